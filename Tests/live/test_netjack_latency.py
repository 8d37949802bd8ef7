"""netjack2's latency mode: `jackd -d net -l 2` on the DSP host (netjacklib.TwoHosts; the
default, 5, is measured by test_netjack.py). The round trip master -> DSP host (its capture wired
to its playback) -> master is measured to the frame: (N + 1) periods, what the ports report.

Needs root (ip netns); skipped with one line otherwise. Two JACK servers at a time.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import livelib
import netjacklib

RATE, PERIOD = 48000, 256


@pytest.fixture(scope="module")
def netloop(tmp_path_factory) -> Path:
    return netjacklib.build_netloop(tmp_path_factory.mktemp("netloop"))


def _reported(server: str) -> int:
    """Capture latency of system:capture_1 + playback latency of system:playback_1 (jack_lsp -l)."""
    out = subprocess.run(["jack_lsp", "-l"], capture_output=True, text=True, timeout=10,
                         env=livelib.jack_env(server)).stdout
    latency, port = {}, ""
    for line in out.splitlines():
        if not line.startswith((" ", "\t")):
            port = line.strip()
        elif "latency = [" in line:
            kind = line.split("port ")[1].split(" latency")[0]
            latency[(port, kind)] = int(line.split("[")[1].split()[0])
    return latency[("system:capture_1", "capture")] + latency[("system:playback_1", "playback")]


@pytest.mark.parametrize("cycles", [2])   # the default, 5, in test_netjack.py
def test_the_round_trip_follows_the_latency_mode(cycles, netloop, tmp_path):
    why = netjacklib.why_not()
    if why:
        pytest.skip(why)
    (tmp_path / "hosts").mkdir()
    hosts = netjacklib.TwoHosts(tmp_path / "hosts", PERIOD, RATE)
    try:
        hosts.start_network()
        hosts.start_master()
        hosts.start_dsp(latency_cycles=cycles)
        hosts.wait_joined()
        wire = subprocess.run(["jack_connect", "system:capture_1", "system:playback_1"], capture_output=True,
                              text=True, timeout=10, env=livelib.jack_env(hosts.dsp_server))
        assert wire.returncode == 0, wire.stderr
        played, back = netjacklib.round_trip(netloop, hosts.master_server, 2.0, tmp_path / "wire.raw")
        lag, match = netjacklib.delay_frames(played, back[:, 0])
        reported = _reported(hosts.dsp_server)
        print(f"jackd -d net -l {cycles}: round trip {lag} frames ({1000 * lag / RATE:.1f} ms, "
              f"{lag / PERIOD:g} periods of {PERIOD}); the ports report {reported}; correlation {match:.4f}")
        # 1 on an idle machine; periods lost to a loaded one (no realtime scheduling) lower it
        assert match > 0.5, f"not the played signal, delayed (correlation {match:.4f})"
        assert lag == reported
        assert lag == (cycles + 1) * PERIOD, f"{lag} frames for {cycles} cycles of network latency"
    finally:
        hosts.stop()
