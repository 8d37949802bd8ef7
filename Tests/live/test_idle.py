"""An idle rack costs (almost) nothing: its threads wake about as often as a plain JACK client's.

The README's bound: an idle rack (demo loop playing, nobody listening, no MIDI connected) wakes
at most EXTRA_WAKES_PER_SECOND times a second more than jack_simple_client on the same server,
measured in the same window, besides one wake of JACK's notification thread per xrun (rack
counts xruns; jack_simple_client does not ask to be told). Wakes are the voluntary context
switches of every thread (/proc/PID/task/*/status).
"""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from livelib import documentation

README = documentation()
EXTRA_WAKES_PER_SECOND = int(re.search(
    r"wake\s+at\s+most\s+(\d+)\s+times\s+a\s+second\s+more\s+than\s+`jack_simple_client`", README).group(1))
WINDOW_SECONDS = 4.0


def thread_counters(pid: int) -> dict[str, tuple[str, int, int]]:
    """Per thread id: (name, voluntary context switches, CPU time in ns so far)."""
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
            name = (task / "comm").read_text().strip()
            cpu_ns = int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue   # a thread that ended meanwhile
        switches = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
        threads[task.name] = (name, switches, cpu_ns)
    return threads


def rates(before: dict, after: dict, seconds: float) -> list[tuple[str, str, float, float]]:
    """(thread id, name, wakes per second, CPU % of a core) for the threads alive throughout."""
    return [(tid, after[tid][0], (after[tid][1] - before[tid][1]) / seconds,
             100 * (after[tid][2] - before[tid][2]) / 1e9 / seconds)
            for tid in sorted(after, key=int) if tid in before]


def xruns(osc) -> int:
    reply = osc.status(timeout=2.0)
    assert reply is not None, "no /rack/status reply"
    return reply.args[2]


def test_an_idle_rack_wakes_about_as_often_as_a_plain_jack_client(rack, osc, jack):
    simple = subprocess.Popen(["jack_simple_client"], env=jack.env(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.5)   # both joined and running; rack's start-up echoes taken
        xruns_before = xruns(osc)
        time.sleep(0.6)   # past the status request's own pass
        t0 = time.monotonic()
        rack_before, simple_before = thread_counters(rack.pid), thread_counters(simple.pid)
        time.sleep(WINDOW_SECONDS)
        rack_after, simple_after = thread_counters(rack.pid), thread_counters(simple.pid)
        window = time.monotonic() - t0
        xrun_rate = (xruns(osc) - xruns_before) / window
    finally:
        simple.terminate()
        simple.wait(5)
    rack_rows = rates(rack_before, rack_after, window)
    simple_rows = rates(simple_before, simple_after, window)
    for label, rows in (("rack", rack_rows), ("jack_simple_client", simple_rows)):
        for tid, name, wakes, cpu in rows:
            print(f"{label:>18} {tid:>7} {name:<16} {wakes:7.1f} wakes/s {cpu:6.2f} % CPU")
    rack_wakes = sum(r[2] for r in rack_rows)
    simple_wakes = sum(r[2] for r in simple_rows)
    print(f"rack {rack_wakes:.1f} wakes/s, {sum(r[3] for r in rack_rows):.2f} % CPU; jack_simple_client "
          f"{simple_wakes:.1f} wakes/s, {sum(r[3] for r in simple_rows):.2f} % CPU; xruns {xrun_rate:.1f}/s")
    assert rack_wakes <= simple_wakes + xrun_rate + EXTRA_WAKES_PER_SECOND, (
        f"an idle rack woke {rack_wakes:.1f} times a second, jack_simple_client {simple_wakes:.1f} "
        f"(+{xrun_rate:.1f} xruns/s allowed, bound +{EXTRA_WAKES_PER_SECOND})")
