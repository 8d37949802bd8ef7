#!/usr/bin/env python3
"""Eight racks on one JACK server (called by scripts/bench): at 48 kHz with periods 64 and 256,
a private jackd (dummy backend), eight `rack run` started without --osc-port or --http-port
(ports by fallback; demo loop at default settings) and, in the same run, a trivial client
(jack_thru: copies its inputs to its outputs) as the floor of what a JACK client costs in
wake-ups alone. Over a window of --seconds, per process: CPU (all its threads, from
/proc/PID/task/*/schedstat, as % of one core), memory (RSS and PSS, /proc/PID/smaps_rollup);
per rack: the DSP time per cycle (/rack/stats: median, p99) and xruns; jackd's own CPU.

Usage: python3 Tests/live/bench_eight.py [--periods 64,256] [--seconds 10] [--racks 8]
Exit status 1 when something is wrong (a rack not ready or not answering, names or ports shared).
RACK_BIN defaults to .build/release/rack.
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
from livelib import Osc, RackProcess  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """Time on a CPU of every thread of pid so far, in seconds (schedstat's first field, ns)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ValueError, IndexError):
            pass
    return total / 1e9


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        fields[key] = int(value.split()[0])
    return fields.get("Rss", 0), fields.get("Pss", 0)


def run(period: int, seconds: float, count: int, xdg: str, problems: list) -> dict:
    server = f"rack-bench8-{os.getpid()}-{period}"
    jackd = livelib.start_jack(server, 48000, period)
    racks: list[RackProcess] = []
    oscs: list[Osc] = []
    floor = None
    try:
        env = livelib.jack_env(server, XDG_CONFIG_HOME=xdg)
        for _ in range(count):
            # subcommand None: RackProcess would add --http-port 0 to `run`; the fallback is wanted
            racks.append(RackProcess(["run", "--no-advertise"], env, subcommand=None).wait_ready(20))
        floor = subprocess.Popen(["jack_thru"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        names = [r.client_name for r in racks]
        ports = [r.osc_port for r in racks]
        if len(set(names)) != count or len(set(ports)) != count:
            problems.append(f"period {period}: names {names}, OSC ports {ports} not distinct")
        oscs = [Osc(r.osc_port) for r in racks]
        time.sleep(1.0)   # settle; the first /rack/stats also resets the statistics
        for osc in oscs:
            osc.request("/rack/stats", timeout=2.0)
        pids = {"jackd": jackd, "floor": floor.pid, **{r.client_name: r.pid for r in racks}}
        t0 = time.monotonic()
        before = {k: cpu_seconds(p) for k, p in pids.items()}
        time.sleep(seconds)
        after = {k: cpu_seconds(p) for k, p in pids.items()}
        wall = time.monotonic() - t0
        cpu = {k: 100 * (after[k] - before[k]) / wall for k in pids}
        rows = []
        for rack, osc in zip(racks, oscs):
            stats = osc.request("/rack/stats", timeout=2.0)
            if stats is None:
                problems.append(f"period {period}: {rack.client_name}: no /rack/stats reply")
                continue
            cycles, median, p99, _, period_us, xruns = stats.args[:6]
            rss, pss = memory_kib(rack.pid)
            rows.append(dict(name=rack.client_name, osc=rack.osc_port, http=rack.http_port, cpu=cpu[rack.client_name],
                             median=median, p99=p99, period_us=period_us, xruns=xruns, rss=rss, pss=pss))
        return dict(period=period, rows=rows, cpu=cpu, floor_memory=memory_kib(floor.pid), wall=wall)
    finally:
        for osc in oscs:
            osc.close()
        for rack in racks:
            code = rack.stop()
            if code != 0:
                problems.append(f"period {period}: {rack.client_name} exited with {code}")
        if floor is not None:
            floor.terminate()
            floor.wait(5)
        livelib.stop_jack(jackd)


def report(result: dict, seconds: float) -> None:
    rows, cpu = result["rows"], result["cpu"]
    if not rows:
        print(f"  period {result['period']}: no data")
        return
    pu = rows[0]["period_us"]
    print(f"period {result['period']} frames ({pu:.0f} us), {len(rows)} racks, {seconds:g} s window")
    print(f"  {'client':<9} {'OSC':>5} {'HTTP':>5} {'CPU':>7} {'DSP median':>17} {'DSP p99':>17} {'xruns':>5} {'RSS':>8} {'PSS':>8}")
    for r in rows:
        cell = lambda us: f"{us:6.1f} us {us / pu * 100:4.1f}%"  # noqa: E731
        print(f"  {r['name']:<9} {r['osc']:>5} {r['http']:>5} {r['cpu']:6.2f}% {cell(r['median']):>17} "
              f"{cell(r['p99']):>17} {r['xruns']:>5} {r['rss'] / 1024:6.1f} M {r['pss'] / 1024:6.1f} M")
    total = sum(r["cpu"] for r in rows)
    print(f"  racks: CPU total {total:.2f}% of one core, per rack median {statistics.median(r['cpu'] for r in rows):.2f}%; "
          f"DSP median of medians {statistics.median(r['median'] for r in rows):.1f} us; "
          f"xruns total {sum(r['xruns'] for r in rows)}; PSS total {sum(r['pss'] for r in rows) / 1024:.1f} MiB")
    print(f"  floor (jack_thru, a trivial client): CPU {cpu['floor']:.2f}%, RSS {result['floor_memory'][0] / 1024:.1f} MiB; "
          f"jackd: CPU {cpu['jackd']:.2f}%; load average at the end {os.getloadavg()[0]:.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--periods", default="64,256")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--racks", type=int, default=8)
    a = ap.parse_args()
    if not livelib.rack_bin().exists():
        print(f"bench_eight: {livelib.rack_bin()} not found (build rack or set RACK_BIN)", file=sys.stderr)
        return 66
    problems: list[str] = []
    print(f"{a.racks} racks on one JACK server, 48 kHz, demo loop at default settings, started without port flags")
    with tempfile.TemporaryDirectory() as xdg:
        for period in [int(p) for p in a.periods.split(",") if p]:
            try:
                report(run(period, a.seconds, a.racks, xdg, problems), a.seconds)
            except Exception as e:  # keep going: report what failed
                problems.append(f"period {period}: {e}")
    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
