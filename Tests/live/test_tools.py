"""The harness's own tools: scripts/jack-server, the runtime probe (proved on a tiny C JACK
client of ours that allocates, locks and writes in its process callback, or does not, or takes
60 % of the period) and the cycle-by-cycle comparison of a capture (on made-up signals)."""
from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest

import livelib


def test_jack_server_refuses_a_running_name_and_a_foreign_pid(jack):
    out = subprocess.run([str(livelib.JACK_SERVER_SCRIPT), "start", jack.name], capture_output=True,
                         text=True, timeout=20)
    assert out.returncode == 73, out
    assert "already running" in out.stderr
    assert livelib.jack_running(jack.name), "the refused start must leave the running server alone"
    out = subprocess.run([str(livelib.JACK_SERVER_SCRIPT), "stop", str(os.getpid())],
                         capture_output=True, text=True, timeout=20)
    assert out.returncode == 64 and "not jackd" in out.stderr, out


def _run_selftest(helpers, jack, tmp_path, mode: str) -> dict:
    out_json = tmp_path / f"{mode}.json"
    env = jack.env(LD_PRELOAD=str(helpers["probe"]), RACK_PROBE_OUT=str(out_json))
    run = subprocess.run([str(helpers["selftest"]), mode, "1.5"], capture_output=True, text=True,
                         timeout=20, env=env)
    assert run.returncode == 0, run.stderr
    return json.loads(out_json.read_text())


def test_probe_counts_nothing_in_a_clean_callback(helpers, jack, tmp_path):
    report = _run_selftest(helpers, jack, tmp_path, "clean")
    assert report["cycles"] > 100, report
    assert (report["malloc"], report["free"], report["lock"], report["io"]) == (0, 0, 0, 0), report
    assert report["details"]["unbalanced"] == 0
    livelib.assert_callback_fast(report)
    callback = report["details"]["callback"]
    assert callback["cycles"] >= report["cycles"] and sum(callback["percent"]) == callback["cycles"], callback


def test_probe_times_a_slow_callback(helpers, jack, tmp_path):
    """60 % of the period of CPU time in each callback: the probe's timing shows it, and
    livelib.assert_callback_fast (which the capture and flood tests use) fails on it."""
    report = _run_selftest(helpers, jack, tmp_path, "slow")
    callback = report["details"]["callback"]
    assert callback["max_cpu_us"] >= 0.6 * callback["period_us"], callback
    assert callback["cycles"] > 20 and sum(callback["cpu_percent"][10:]) >= 0.9 * callback["cycles"], callback
    with pytest.raises(AssertionError, match="half|50 %"):
        livelib.assert_callback_fast(report)


def test_probe_catches_malloc_free_lock_and_io(helpers, jack, tmp_path):
    report = _run_selftest(helpers, jack, tmp_path, "dirty")
    cycles = report["cycles"]
    assert cycles > 100, report
    # one malloc, one free, one mutex lock, one futex wait, one write per cycle
    assert report["malloc"] == cycles and report["free"] == cycles, report
    assert report["lock"] == 2 * cycles and report["io"] == cycles, report
    calls = report["details"]["calls"]
    assert calls["malloc"] == calls["free"] == calls["pthread_mutex_lock"] == calls["write"] == cycles
    assert calls["futex_wait"] == cycles, calls
    offenders = report["details"]["first_offenders"]
    assert offenders and offenders[0]["stack"][0].startswith("probe_selftest+"), offenders[:1]


def test_capture_comparison_moves_only_where_an_xrun_struck():
    """livelib.compare_capture_by_cycles on made-up signals at 256 frames: a capture that lost
    two cycles where the cycle log marks an xrun matches (moved once); the same capture with no
    mark there, a sample off by -80 dBFS in an unmarked cycle, or a marked cycle that matches
    nowhere in more cycles than allowed, fail."""
    period = 256
    rng = np.random.default_rng(7)
    reference = rng.uniform(-0.3, 0.3, (period * 60, 2))
    kept = [c for c in range(50) if c not in (20, 21)]   # the server ran cycles 20 and 21 without the recorder
    captured = np.concatenate([reference[c * period:(c + 1) * period] for c in kept])
    cycles = [(i * period, c * period, 0) for i, c in enumerate(kept)]
    marked = {k for k in range(1, len(cycles)) if cycles[k][1] - cycles[k - 1][1] != period}
    assert marked == {20}
    result = livelib.compare_capture_by_cycles(captured, reference, 0, cycles, marked, period)
    assert (result["compared"], result["moved"], result["spoiled"]) == (48, 1, 0), result
    first, begin, end = livelib.longest_unmarked(cycles, marked, len(captured))
    assert (first, begin, end) == (20, 20 * period, len(captured))
    # aligned on that stretch (the reference 512 frames on), walking back over the mark
    result = livelib.compare_capture_by_cycles(captured, reference, 2 * period, cycles, marked, period, start=first)
    assert (result["compared"], result["moved"]) == (48, 1), result
    with pytest.raises(AssertionError, match="no xrun of the server struck there"):
        livelib.compare_capture_by_cycles(captured, reference, 0, cycles, set(), period)
    off = captured.copy()
    off[35 * period + 9, 1] += 1e-4
    with pytest.raises(AssertionError, match="cycle 35 .* -80.0 dBFS"):
        livelib.compare_capture_by_cycles(off, reference, 0, cycles, marked, period)
    spoiled = captured.copy()
    spoiled[20 * period:21 * period] = 0.0   # the first cycle after the xrun matches nowhere
    result = livelib.compare_capture_by_cycles(spoiled, reference, 0, cycles, marked, period)
    assert (result["compared"], result["moved"], result["spoiled"]) == (47, 1, 1), result
