"""The harness's own tools: scripts/jack-server and the runtime probe (proved on a tiny C JACK
client of ours that allocates, locks and writes in its process callback, or does not)."""
from __future__ import annotations

import json
import os
import subprocess

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
