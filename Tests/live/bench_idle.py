#!/usr/bin/env python3
"""What an idle rack costs (called by scripts/bench): on a private dummy jackd at 48 kHz and
--period frames, one `rack run` (demo loop at default settings, nobody subscribed or listening,
no MIDI connected), then eight, each time beside `jack_simple_client` (a client that only
writes a sine) measured in the same window as the floor of what a JACK client costs. Per
process: CPU of all its threads over --seconds (/proc/PID/task/*/schedstat, % of one core);
per rack: its DSP share (the median DSP time per cycle from /rack/stats over the period, which
is the part of a core its rendering takes). The goals: an idle rack within the floor + its DSP
share + 0.2 point; eight within 8 % of a core in all.

Usage: python3 Tests/live/bench_idle.py [--period 256] [--seconds 10] [--racks 8]
Exit status 1 when something is wrong (a rack not ready or not answering); the goals are
reported, not enforced (timing figures on a shared machine are noisy).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import livelib  # noqa: E402
from bench_eight import cpu_seconds  # noqa: E402
from livelib import Osc, RackProcess  # noqa: E402


def measure(racks: list[RackProcess], floor: int, seconds: float, problems: list) -> dict:
    """CPU % of each rack and of the floor over one window, and each rack's DSP share (%)."""
    oscs = [Osc(r.osc_port) for r in racks]
    try:
        for osc in oscs:
            osc.request("/rack/stats", timeout=2.0)   # resets the statistics
        time.sleep(1.0)   # the request's own pass and echoes are over
        pids = {"floor": floor, **{r.client_name: r.pid for r in racks}}
        t0 = time.monotonic()
        before = {k: cpu_seconds(p) for k, p in pids.items()}
        time.sleep(seconds)
        after = {k: cpu_seconds(p) for k, p in pids.items()}
        wall = time.monotonic() - t0
        cpu = {k: 100 * (after[k] - before[k]) / wall for k in pids}
        dsp = {}
        for rack, osc in zip(racks, oscs):
            stats = osc.request("/rack/stats", timeout=2.0)
            if stats is None:
                problems.append(f"{rack.client_name}: no /rack/stats reply")
                continue
            _, median, _, _, period_us, _ = stats.args[:6]
            dsp[rack.client_name] = 100 * median / period_us
        return dict(cpu=cpu, dsp=dsp)
    finally:
        for osc in oscs:
            osc.close()


def report_one(name: str, m: dict) -> None:
    cpu, floor, dsp = m["cpu"][name], m["cpu"]["floor"], m["dsp"].get(name, 0.0)
    goal = floor + dsp + 0.2
    print(f"  one idle rack: CPU {cpu:.2f} %; floor (jack_simple_client) {floor:.2f} %; DSP share {dsp:.2f} %; "
          f"beyond floor + DSP {cpu - floor - dsp:+.2f} point (goal: CPU <= {goal:.2f} %, "
          f"{'met' if cpu <= goal else 'NOT met'})")


def report_many(racks: list[RackProcess], m: dict) -> None:
    rows = [(r.client_name, m["cpu"][r.client_name], m["dsp"].get(r.client_name, 0.0)) for r in racks]
    total = sum(c for _, c, _ in rows)
    print(f"  {len(racks)} idle racks: CPU per rack " + ", ".join(f"{c:.2f}" for _, c, _ in rows) + " %")
    print(f"    per rack median {statistics.median(c for _, c, _ in rows):.2f} %, DSP share median "
          f"{statistics.median(d for _, _, d in rows):.2f} %; floor (jack_simple_client) {m['cpu']['floor']:.2f} %; "
          f"total {total:.2f} % of one core (goal: <= 8 %, {'met' if total <= 8 else 'NOT met'})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--period", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--racks", type=int, default=8)
    a = ap.parse_args()
    if not livelib.rack_bin().exists():
        print(f"bench_idle: {livelib.rack_bin()} not found (build rack or set RACK_BIN)", file=sys.stderr)
        return 66
    problems: list[str] = []
    server = f"rack-bench-idle-{os.getpid()}"
    print(f"idle racks on one JACK server, 48 kHz, {a.period} frames, demo loop at default settings, "
          f"{a.seconds:g} s windows")
    jackd = livelib.start_jack(server, 48000, a.period)
    racks: list[RackProcess] = []
    floor = None
    try:
        with tempfile.TemporaryDirectory() as xdg:
            env = livelib.jack_env(server, XDG_CONFIG_HOME=xdg)
            floor = subprocess.Popen(["jack_simple_client"], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            def start() -> RackProcess:
                return RackProcess(["run", "--no-advertise", "--osc-port", "0", "--http-port", "0"], env,
                                   subcommand=None).wait_ready(20)
            racks.append(start())
            report_one(racks[0].client_name, measure(racks, floor.pid, a.seconds, problems))
            while len(racks) < a.racks:
                racks.append(start())
            report_many(racks, measure(racks, floor.pid, a.seconds, problems))
    finally:
        for rack in racks:
            code = rack.stop()
            if code != 0:
                problems.append(f"{rack.client_name} exited with {code}")
        if floor is not None:
            floor.terminate()
            floor.wait(5)
        livelib.stop_jack(jackd)
    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
