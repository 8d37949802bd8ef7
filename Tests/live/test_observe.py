"""Meters, JACK metadata and `rack send`: what controllers and patchbays see."""
from __future__ import annotations

import math
import subprocess

import livelib
from test_record import find, parse_record, recalls


def test_meters_are_pushed_at_a_modest_rate(rack, osc):
    osc.send("/rack/meter")
    msgs = [m for m in osc.collect(1.0) if m.address == "/rack/meter"]
    assert 8 <= len(msgs) <= 30, f"{len(msgs)} meter messages in 1 s"
    for m in msgs:
        assert len(m.args) == 7 and all(math.isfinite(x) for x in m.args[:5])
    # The demo loop plays: the output is well above silence and peaks are at least the RMS.
    last = msgs[-1].args
    assert last[0] > -60 and last[1] > -60, last
    assert last[0] >= last[2] - 0.01 and last[1] >= last[3] - 0.01, last
    osc.send("/rack/gain", -60.0)
    assert osc.ping()
    livelib.wait_ramps_over(osc)   # the gain's 20 ms ramp is over
    quiet = [m for m in osc.collect(0.5) if m.address == "/rack/meter"][-1].args
    assert quiet[0] < last[0] - 30, (last, quiet)
    osc.send("/rack/unsubscribe")
    osc.drain(0.2)
    assert [m for m in osc.collect(0.4) if m.address == "/rack/meter"] == []


def _pretty_name(jack, subject, kind):
    out = subprocess.run(["jack_property", kind, "-l", subject, "http://jackaudio.org/metadata/pretty-name"],
                         capture_output=True, text=True, env=jack.env(), timeout=10)
    return out.stdout.strip()


def test_ports_carry_pretty_names_with_the_client_name(rack_factory, jack):
    """Two racks in one patchbay read apart: each port's pretty name starts with its own
    client's name ("fx input L"), and the client's is "fx effects"."""
    racks = {name: rack_factory(name=name) for name in ["fxa", "fxb"]}
    for name in racks:
        for port, what in [("in_1", "input L"), ("in_2", "input R"), ("out_1", "output L"),
                           ("out_2", "output R"), ("midi_in", "MIDI control in"),
                           ("midi_out", "MIDI feedback out")]:
            assert _pretty_name(jack, f"{name}:{port}", "--port") == f"{name} {what}"
        assert _pretty_name(jack, name, "--client") == f"{name} effects"


def test_rack_send_plays_a_file_at_its_times(rack_factory, rack_binary, jack, tmp_path):
    rec = tmp_path / "heard.txt"
    rack = rack_factory("--record", str(rec))
    script = tmp_path / "script.txt"
    script.write_text("0.0 /rack/cutoff 500\n0.25 /rack/mix 20 0.1\n0.5 /rack/preset Warm\n0.75 /rack/room plate\n")
    out = subprocess.run([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{rack.osc_port}"],
                         capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    assert livelib.wait_until(lambda: rec.exists() and "/rack/room plate" in rec.read_text(), 3.0), \
        "the script's last change (0.75 s) not in the journal within 3 s"
    assert rack.stop() == 0
    events = parse_record(rec)
    # The first line of each address (the recall writes the values it set after them), the
    # recall's own time from the comment naming it, the room's from its plate line.
    times = {}
    for t, addr, args, n in events:
        times.setdefault(addr, t)
    times["/rack/preset"] = next(t for t, name in recalls(rec) if name == "Warm")
    times["/rack/room"] = find(events, "/rack/room", "plate")
    t0 = times["/rack/cutoff"]
    # Sent as timetagged bundles: the spacing of the file is kept to the sample, whatever the
    # network and scheduling did (a millisecond of slack for JACK's clock estimate).
    errors = {a: round((times[a] - t0 - due) * 48000) for a, due in
              (("/rack/mix", 0.25), ("/rack/preset", 0.5), ("/rack/room", 0.75))}
    print(f"rack send: spacing errors in samples at 48 kHz {errors}")
    assert abs((times["/rack/mix"] - t0) - 0.25) < 0.001, events
    assert abs((times["/rack/preset"] - t0) - 0.5) < 0.001, events
    assert abs((times["/rack/room"] - t0) - 0.75) < 0.001, events
    bad = tmp_path / "bad.txt"
    bad.write_text("0 /rack/cutof 3\n")
    out = subprocess.run([str(rack_binary), "send", str(bad)], capture_output=True, text=True, timeout=10)
    assert out.returncode == 65 and "bad.txt:1:" in out.stderr
