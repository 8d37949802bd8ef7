"""Input that is not audio, live: a JACK client writes NaN, ±Inf and 1e30 samples into rack's
in_1 while the demo loop plays. rack's output (recorded through JACK) stays finite and audible,
/rack/status counts every bad sample (its 7th field), and the meters stay meaningful."""
from __future__ import annotations

import math
import os
import subprocess
import threading
import time

import numpy as np

import livelib


def _build_badsource(tmp_path):
    exe = tmp_path / "badsource"
    subprocess.run([os.environ.get("CC", "gcc"), "-O2", "-o", str(exe), str(livelib.HERE / "badsource.c"),
                    "-ljack", "-lm"], check=True, timeout=120)
    return exe


def test_nan_and_inf_on_the_input_never_reach_the_output(helpers, jack, rack, osc, osc_factory, tmp_path):
    badsource = _build_badsource(tmp_path)
    before = osc.status()
    assert before is not None and before.tags == "iiiffsis", before
    assert before.args[6] == 0
    xruns_before = before.args[2]

    meters = osc_factory(rack.osc_port)
    meters.send("/rack/meter")
    seconds = 3.0
    result = {}

    def feed():
        result["proc"] = subprocess.run([str(badsource), f"{rack.client_name}:in_1", str(seconds), "50"],
                                        capture_output=True, text=True, timeout=seconds + 15,
                                        env=jack.env())

    feeder = threading.Thread(target=feed)
    feeder.start()
    # the recording starts once the bad samples reach rack (its counter moves)
    assert livelib.wait_until(lambda: (osc.status() or livelib.Msg("", "", [0] * 7)).args[6] > 0, 5.0), \
        "no bad sample counted within 5 s of starting the writer"
    ports = [f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"]
    data, rate = livelib.record(helpers["jackrec"], jack.name, ports, seconds, tmp_path / "bad.raw")
    feeder.join()
    proc = result["proc"]
    assert proc.returncode == 0, proc.stderr
    written = int(proc.stdout.strip())
    assert written >= 30, f"only {written} bad samples written"

    # The output: every sample finite, and still the demo loop (not silenced).
    assert np.isfinite(data).all(), f"{np.count_nonzero(~np.isfinite(data))} non-finite output samples"
    last = data[-int(0.5 * rate):].astype(np.float64)
    assert np.sqrt((last ** 2).mean()) > 1e-3, "silent after the bad samples"
    assert np.abs(data).max() <= 4.0, f"implausibly loud: {np.abs(data).max()}"

    # The counter: every bad sample, once (the left channel's dry sum); waited for (the
    # writer has exited, its last periods may still be counted), less only after an xrun.
    livelib.wait_until(lambda: (osc.status() or livelib.Msg("", "", [0] * 7)).args[6] >= written, 2.0)
    after = osc.status()
    assert after is not None and after.tags == "iiiffsis", after
    replaced = after.args[6]
    if after.args[2] == xruns_before:
        assert replaced == written, f"/rack/status counts {replaced}, the client wrote {written}"
    else:   # a cycle the server skipped may have dropped some of the client's periods
        assert 0 < replaced <= written, (replaced, written)

    # The meters: finite and reading the demo loop, not -120 dBFS.
    got = [m for m in meters.collect(0.5) if m.address == "/rack/meter"]
    assert got, "no meters"
    for m in got:
        assert all(math.isfinite(v) for v in m.args[:5]), m
        assert max(m.args[2], m.args[3]) > -90, f"meters read silence: {m}"
    print(f"bad input live: {written} bad samples written, /rack/status counts {replaced}, "
          f"{len(data)} output frames all finite, last meter {got[-1].args[:4]}")
