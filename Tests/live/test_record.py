"""Timetagged bundles (applied at their sample) and --record (every applied change, on exit)."""
from __future__ import annotations

import subprocess
import time

import livelib
from livelib import build_bundle, build_message, close_to


def parse_record(path):
    events = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        assert len(fields) >= 2, f"{path}:{n}: {line!r}"
        events.append((float(fields[0]), fields[1], fields[2:], n))
    times = [e[0] for e in events]
    assert times == sorted(times), f"times go backwards in {path}"
    return events


def find(events, address, value=None):
    for t, addr, args, n in events:
        if addr == address and (value is None or (args and (args[0] == value or
                                                            _num(args[0]) == _num(value)))):
            return t
    raise AssertionError(f"no {address} {value} in record: {events}")


def _num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return s


def test_future_bundles_apply_at_their_time(rack_factory, osc_factory, tmp_path):
    rec = tmp_path / "bundles.txt"
    rack = rack_factory("--record", str(rec))
    osc = osc_factory(rack.osc_port)
    osc.send("/rack/mix", 30.0)  # an immediate event: the reference point
    assert close_to(osc.get("mix"), 30)
    now = time.time()
    osc.send_raw(build_bundle(now + 0.5, build_message("/rack/cutoff", 500.0)))
    osc.send_raw(build_bundle(now + 0.75, build_message("/rack/cutoff", 900.0)))
    osc.send_raw(build_bundle(now + 0.6, build_message("/rack/resonance", 6.0)))
    osc.send("/rack/resonance", -6.0)  # sent after the future bundle, applied before it
    time.sleep(max(0.0, now + 1.0 - time.time()))
    got_after = (osc.get("cutoff"), osc.get("resonance"))
    osc.send_raw(build_bundle(0, build_message("/rack/gain", -2.0)))  # the 'immediately' timetag
    assert close_to(osc.get("gain"), -2), "bundle with the 'immediately' timetag"
    osc.send_raw(build_bundle(time.time() - 10, build_message("/rack/gain", -3.0)))
    assert close_to(osc.get("gain"), -3), "a bundle whose time has passed applies at once"
    code = rack.stop()
    assert code == 0, rack.describe()
    assert rec.exists(), "--record file not written on exit"
    events = parse_record(rec)
    t_mix = find(events, "/rack/mix", "30")
    t_a = find(events, "/rack/cutoff", "500")
    t_b = find(events, "/rack/cutoff", "900")
    t_res_now = find(events, "/rack/resonance", "-6")
    t_res_later = find(events, "/rack/resonance", "6")
    assert abs((t_b - t_a) - 0.25) <= 0.002, f"A at {t_a:.6f}, B at {t_b:.6f}: {t_b - t_a:.6f} s apart"
    assert 0.4 <= t_a - t_mix <= 0.7, f"A applied {t_a - t_mix:.3f} s after the immediate event (sent ~0.5 s before its time)"
    assert t_res_now < t_res_later, (t_res_now, t_res_later)
    assert abs((t_res_later - t_a) - 0.1) <= 0.002, f"bundle C at {t_res_later:.6f}, A at {t_a:.6f}"
    assert close_to(got_after[0], 900) and close_to(got_after[1], 6), (
        f"after every bundle was applied /rack/get says cutoff {got_after[0]}, resonance {got_after[1]}; "
        "the engine applied resonance 6 (the bundle) after -6 (the immediate message)")


def test_record_round_trip_passes_rack_check(rack_factory, osc_factory, rack_binary, tmp_path):
    rec = tmp_path / "session.txt"
    rack = rack_factory("--record", str(rec))
    osc = osc_factory(rack.osc_port)
    osc.send("/rack/cutoff", 800.0, 0.25)
    osc.send("/rack/mix", 70)
    osc.send("/rack/room", "plate")
    osc.expect_error("/rack/gain", 40.0)  # clamped to 12: recorded as applied
    osc.send("/rack/resonance/norm", 0.75)
    time.sleep(0.3)
    osc.send("/rack/preset", "Warm", 0.1)
    time.sleep(0.2)
    osc.send("/rack/cutoff", "bogus")  # rejected: not recorded
    assert osc.ping()
    assert rack.stop() == 0, rack.describe()
    text = rec.read_text()
    events = parse_record(rec)
    assert events and events[0][0] >= 0, text
    assert find(events, "/rack/cutoff", "800") >= 0
    assert find(events, "/rack/room", "plate") >= 0
    assert find(events, "/rack/gain", "12") >= 0, text
    assert find(events, "/rack/preset", "Warm") >= 0
    assert "bogus" not in text
    check = subprocess.run([str(rack_binary), "check", str(rec)], capture_output=True, text=True,
                           timeout=20)
    assert check.returncode == 0, f"rack check {rec} -> {check.returncode}\n{check.stderr}\n--- file:\n{text}"


def test_pending_bundle_is_neither_reported_nor_fed_back_before_its_time(rack, osc_factory):
    osc = osc_factory(rack.osc_port)
    sub = osc_factory(rack.osc_port)
    sub.send("/rack/subscribe")
    assert sub.ping()
    sub.drain(0.05)
    t0 = time.time()
    osc.send_raw(build_bundle(t0 + 0.5, build_message("/rack/cutoff", 500.0)))
    osc.send("/rack/resonance", -6.0)
    assert close_to(osc.get("resonance"), -6), "an immediate message waits behind a future bundle"
    got = osc.get("cutoff")
    fed = [m for m in sub.collect(max(0.0, t0 + 1.0 - time.time())) if m.address == "/rack/cutoff"]
    assert close_to(osc.get("cutoff"), 500)
    assert len(fed) == 1 and close_to(fed[0].args[0], 500), fed
    late = time.time() - (time.monotonic() - fed[0].received) - t0
    assert 0.4 <= late <= 0.7, f"subscriber told of the bundle {late:.3f} s after sending (due at 0.5 s)"
    assert close_to(got, 20000), f"/rack/get cutoff gave {got} before the bundle's time: not applied yet"
