"""The realtime path under the runtime probe: no allocation, lock or I/O in any process cycle,
while the control side is kept busy (parameter sets, preset recalls, player loads, feedback)."""
from __future__ import annotations

import json
import subprocess
import time

import pytest


@pytest.fixture
def tone(tmp_path):
    path = tmp_path / "probe_tone.wav"
    subprocess.run(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", str(path), "synth", "3",
                    "pinknoise", "gain", "-10"], check=True, timeout=30)
    return path


def test_render_path_never_allocates_locks_or_does_io(rack_factory, osc_factory, helpers, tmp_path, tone):
    out_json = tmp_path / "probe.json"
    rec = tmp_path / "probe-record.txt"
    rack = rack_factory("--record", str(rec),
                        env={"LD_PRELOAD": str(helpers["probe"]), "RACK_PROBE_OUT": str(out_json)})
    ctl = osc_factory(rack.osc_port)
    sub = osc_factory(rack.osc_port)
    sub.send("/rack/subscribe")
    presets = ["Warm", "Bright", "Cathedral", "Dry", "Prominent"]
    rooms = ["plate", "smallRoom", "cathedral", "largeHall2"]
    t0 = time.monotonic()
    i = 0
    while time.monotonic() - t0 < 5.0:
        ctl.send("/rack/cutoff", 200.0 + (i * 997) % 15000, 0.01 * (i % 3))
        ctl.send("/rack/mix", float(i % 100))
        ctl.send("/rack/resonance/norm", (i % 10) / 10)
        ctl.send("/rack/gain", -float(i % 12))
        # The reverb's shaping controls and bypass move too.
        ctl.send("/rack/decay", 0.2 + (i * 0.37) % 12, 0.02 * (i % 3))
        ctl.send("/rack/predelay", float((i * 13) % 250))
        ctl.send("/rack/damping/norm", (i % 7) / 6)
        ctl.send("/rack/lowcut", 10.0 + (i * 31) % 900)
        ctl.send("/rack/highcut", 1000.0 + (i * 577) % 19000)
        ctl.send("/rack/width", float((i * 11) % 150))
        if i % 15 == 0:
            ctl.send("/rack/freeze", (i // 15) % 2)
            ctl.send("/rack/bypass", ((i // 15) + 1) % 2, 0.01)
        if i % 10 == 0:
            ctl.send("/rack/preset", presets[(i // 10) % len(presets)], 0.05)
            ctl.send("/rack/room", rooms[(i // 10) % len(rooms)])
        if i % 25 == 0:
            ctl.send("/rack/player/load", str(tone))
            ctl.send("/rack/player/play")
            ctl.send("/rack/player/seek", 1.0)
            ctl.send("/rack/cutoff", float("nan"))
            ctl.send("/rack/status")
            ctl.send("/rack/dump")
        if i % 40 == 0:
            sub.send("/rack/unsubscribe")
            sub.send("/rack/subscribe")
        i += 1
        time.sleep(0.005)   # the load's pace, not a wait
        if i % 20 == 0:
            ctl.drain(0), sub.drain(0)
    assert ctl.ping(), "rack stopped answering under load"
    code = rack.stop()
    assert code == 0, rack.describe()
    assert out_json.exists(), ("the probe wrote no report: rack did not run its exit path "
                               "(destructors), or never loaded the probe")
    report = json.loads(out_json.read_text())
    print(f"runtime probe: {report['cycles']} process cycles, malloc {report['malloc']}, free {report['free']}, "
          f"lock {report['lock']}, io {report['io']}")
    assert report["cycles"] > 100, f"the probe hooks were not called: {report}"
    bad = {k: report[k] for k in ("malloc", "free", "lock", "io") if report[k]}
    assert not bad, f"realtime path violations {bad}: {json.dumps(report['details'], indent=1)}"
    assert report["details"]["unbalanced"] == 0, report
