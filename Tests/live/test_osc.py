"""The OSC address space: setting, reading, validation and the information replies."""
from __future__ import annotations

import math
import re
import subprocess

import pytest

from livelib import close_to

PARAMS = {  # id: (unit, min, max, default)
    "cutoff": ("Hz", 12.0, 20000.0, 20000.0),
    "resonance": ("dB", -20.0, 20.0, 0.0),
    "mix": ("%", 0.0, 100.0, 50.0),
    "gain": ("dB", -60.0, 12.0, 0.0),
}


def test_oscsend_sets_and_get_reads(rack, osc):
    out = subprocess.run(["oscsend", "localhost", str(rack.osc_port), "/rack/cutoff", "f", "800"],
                         capture_output=True, text=True, timeout=5)
    assert out.returncode == 0, out.stderr
    reply = osc.request("/rack/get", "cutoff", reply="/rack/cutoff")
    assert reply is not None, "no reply to /rack/get cutoff"
    assert reply.tags == "f" and close_to(reply.args[0], 800), reply


def test_ramp_argument_and_int_values(osc):
    osc.send("/rack/cutoff", 800)  # i
    assert close_to(osc.get("cutoff"), 800)
    osc.send("/rack/mix", 30, 0.5)  # i value, f ramp
    assert close_to(osc.get("mix"), 30), "get reports the target even while ramping"
    osc.send("/rack/gain", -6.0, 0.0)
    assert close_to(osc.get("gain"), -6)
    osc.send("/rack/resonance", 3.5, 0.1)
    assert close_to(osc.get("resonance"), 3.5)
    assert osc.collect(0.2) == [], "valid sets get no reply"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_non_finite_values_are_rejected(osc, value):
    osc.send("/rack/mix", 25.0)
    err = osc.expect_error("/rack/mix", value)
    assert err is not None, f"no /rack/error for {value}"
    assert err.tags == "ss" and err.args[0] == "/rack/mix", err
    assert close_to(osc.get("mix"), 25), "a rejected value must not be applied"
    err = osc.expect_error("/rack/cutoff", 1000.0, value)
    assert err is not None, f"no /rack/error for ramp time {value}"


@pytest.mark.parametrize("param,value,clamped", [
    ("cutoff", 50000.0, 20000.0), ("cutoff", 1.0, 12.0), ("resonance", -50.0, -20.0),
    ("resonance", 21.0, 20.0), ("mix", 150.0, 100.0), ("mix", -1.0, 0.0), ("gain", 100.0, 12.0),
    ("gain", -100.0, -60.0),
])
def test_out_of_range_is_clamped_applied_and_reported(osc, param, value, clamped):
    err = osc.expect_error(f"/rack/{param}", value)
    assert err is not None, f"no /rack/error for {param} {value}"
    assert err.tags == "ss" and err.args[0] == f"/rack/{param}", err
    assert "clamped to" in err.args[1], err
    assert re.search(r"clamped to -?[0-9]", err.args[1]), err
    assert close_to(osc.get(param), clamped), f"{param} should be {clamped} after clamping"


@pytest.mark.parametrize("param,norm,value", [
    ("cutoff", 1.0, 20000.0), ("cutoff", 0.0, 12.0), ("mix", 0.5, 50.0), ("mix", 1.0, 100.0),
    ("gain", 0.0, -60.0), ("resonance", 1.0, 20.0),
])
def test_norm_addresses(osc, param, norm, value):
    osc.send(f"/rack/{param}/norm", norm)
    assert close_to(osc.get(param), value, rel=1e-3), param


def test_cutoff_norm_is_logarithmic(osc):
    osc.send("/rack/cutoff/norm", 0.5)
    got = osc.get("cutoff")
    assert close_to(got, math.sqrt(12 * 20000), rel=0.02), f"cutoff/norm 0.5 -> {got}, expected ~490 Hz (log map)"


@pytest.mark.parametrize("address,args", [
    ("/rack/cutoff", ("abc",)),
    ("/rack/cutoff", ()),
    ("/rack/mix", (("T", True),)),
    ("/rack/room", (2.5,)),
    ("/rack/room", (99,)),
    ("/rack/room", ("noSuchRoom",)),
    ("/rack/get", ("bogus",)),
    ("/rack/get", ()),
    ("/rack/preset", ("No Such Preset",)),
    ("/rack/preset", (9999,)),
    ("/rack/player/seek", ("x",)),
    ("/rack/cutoff/norm", (1.5,)),
    ("/rack/nope", ()),
    ("/nope", (1.0,)),
])
def test_bad_messages_get_an_error_and_rack_survives(osc, address, args):
    before = {p: osc.get(p) for p in PARAMS}
    err = osc.expect_error(address, *args)
    assert err is not None, f"no /rack/error for {address} {args}"
    assert err.tags == "ss" and err.args[0] == address and err.args[1], err
    if address != "/rack/cutoff/norm":  # out-of-range norm may be clamped and applied
        assert {p: osc.get(p) for p in PARAMS} == before, "a rejected message changed the state"
    assert osc.ping()


def test_room_set_and_get(osc):
    osc.send("/rack/room", "plate")
    reply = osc.request("/rack/get", "room", reply="/rack/room")
    assert reply is not None and reply.tags == "s" and reply.args == ["plate"], reply


def test_dump_order_and_types(osc):
    msgs = osc.request_all("/rack/dump")
    got = [(m.address, m.tags) for m in msgs]
    assert got[:5] == [("/rack/cutoff", "f"), ("/rack/resonance", "f"), ("/rack/mix", "f"),
                       ("/rack/gain", "f"), ("/rack/room", "s")], msgs
    assert got[-1] == ("/rack/preset", "s"), msgs
    # Every row of the table, in its order (the rack's own /rack/params), numbers but the room.
    rows = [m.args[0] for m in osc.request_all("/rack/params")]
    assert [a for a, _ in got[:-1]] == ["/rack/" + r for r in rows], (got, rows)
    assert all(t == "f" for a, t in got[:-1] if a != "/rack/room"), got
    values = [m.args[0] for m in msgs]
    assert [close_to(v, PARAMS[p][3]) for v, p in zip(values, PARAMS)] == [True] * 4, values
    assert values[4] == "mediumHall" and values[-1] == "", values


def test_dump_reports_targets_and_last_preset(osc):
    osc.send("/rack/preset", "Warm")
    osc.send("/rack/mix", 12.0, 5.0)
    msgs = osc.request_all("/rack/dump")
    d = {m.address: m.args[0] for m in msgs}
    assert close_to(d["/rack/cutoff"], 384) and close_to(d["/rack/mix"], 12), d
    assert d["/rack/preset"] == "Warm", d


def test_params(osc):
    msgs = osc.request_all("/rack/params")
    assert len(msgs) == len(osc.request_all("/rack/dump")) - 1, msgs   # one per parameter
    assert all(m.address == "/rack/params" and m.tags == "ssfffs" for m in msgs), msgs
    rows = {m.args[0]: m.args[1:] for m in msgs}
    assert set(rows) >= set(PARAMS) | {"room"}, rows
    for pid, (unit, lo, hi, default) in PARAMS.items():
        r = rows[pid]
        assert r[0] == unit, (pid, r)
        assert close_to(r[1], lo) and close_to(r[2], hi) and close_to(r[3], default), (pid, r)
        assert r[4], (pid, "empty taper")
    assert "log" in rows["cutoff"][4].lower(), rows["cutoff"]


def test_version_is_semver(osc):
    reply = osc.request("/rack/version")
    assert reply is not None and reply.tags == "s", reply
    assert re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?", reply.args[0]), reply


def stats_xruns(osc) -> int:
    """The xrun count of /rack/stats (its sixth argument), read apart from /rack/status."""
    reply = osc.request("/rack/stats")
    assert reply is not None and len(reply.args) >= 6, reply
    return reply.args[5]


def test_status(osc):
    before = stats_xruns(osc)
    reply = osc.status()
    after = stats_xruns(osc)
    assert reply is not None, "no /rack/status reply"
    assert reply.tags == "iiiffsis", reply
    rate, period, xruns, load, player, state, replaced, player_error = reply.args
    assert (rate, period) == (48000, 256)
    # The status's xrun count is the driver's: between the counts /rack/stats gave just before
    # and just after (xruns only ever add up).
    assert 0 <= before <= xruns <= after, (before, xruns, after)
    assert 0.0 <= load <= 100.0 and math.isfinite(player) and player >= 0
    assert state == "running"
    assert replaced == 0, "input samples replaced although nothing feeds the inputs"
    assert player_error == "", "the demo loop plays"


def test_ping_and_replies_come_from_the_rack_port(rack, osc):
    assert osc.ping()
    assert osc.sources == {("127.0.0.1", rack.osc_port)}, osc.sources
