#!/usr/bin/env python3
"""Live benchmark of `rack run` on private headless JACK servers (called by scripts/bench).

  (a) DSP time per JACK period, at 48 kHz with periods 64 and 256: start a private jackd and a
      rack (demo loop, default settings), let it run, then ask /rack/stats (DSP time per cycle
      measured inside the process callback) and print median/p99/max as % of the period, and
      xruns.
      With --shaped, the reverb's shaping controls are set away from the room's values and kept
      moving during the window (a ramp of each every 0.5 s, freeze switched every 2 s).
  (b) OSC throughput: 20,000 valid /rack/mix messages sent back to back over UDP, then /ping:
      messages per second handled (N / time until /pong), whether the final /rack/get mix is
      the last value sent, and xruns before/after from /rack/status.

Usage: python3 Tests/live/bench_live.py [--periods 64,256] [--seconds 10] [--messages 20000] [--shaped]
Exit status 1 when something is wrong (rack not ready, no reply, final value not the last one).
RACK_BIN defaults to .build/release/rack.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import livelib  # noqa: E402
from livelib import Osc, RackProcess  # noqa: E402


def start_rack(server: str, xdg: str, name: str) -> RackProcess:
    env = livelib.jack_env(server, XDG_CONFIG_HOME=xdg)
    return RackProcess(["--name", name, "--osc-port", "0"], env).wait_ready(15)


def stats(osc: Osc) -> list | None:
    m = osc.request("/rack/stats", timeout=2.0)
    if m is None or len(m.args) < 6:
        return None
    return m.args


def xruns(osc: Osc):
    m = osc.status(2.0)
    return None if m is None else m.args[2]


# The shaping controls away from mediumHall's values (1.8 s, 0 ms, 3529 Hz, off, off, 100 %), and
# the two ends each one ramps between while the window runs.
SHAPED_ENDS = {"decay": (1.2, 6.0), "predelay": (10.0, 80.0), "damping": (1500.0, 9000.0),
               "lowcut": (60.0, 400.0), "highcut": (3000.0, 15000.0), "width": (40.0, 150.0)}


def keep_shaping_moving(port: int, stop: threading.Event) -> None:
    """Sets the shaping controls, then ramps each to its other end every 0.5 s (over 0.5 s) and
    switches freeze every 2 s, until `stop` is set."""
    osc = Osc(port)
    try:
        step = 0
        while not stop.is_set():
            for name, ends in SHAPED_ENDS.items():
                osc.send(f"/rack/{name}", ends[step % 2], 0.5)
            if step % 4 == 0:
                osc.send("/rack/freeze", (step // 4) % 2)
            step += 1
            stop.wait(0.5)
        osc.send("/rack/freeze", 0)
    finally:
        osc.close()


def dsp_bench(period: int, seconds: float, xdg: str, problems: list, throughput=None, shaped=False) -> dict:
    server = f"rack-bench-{os.getpid()}-{period}"
    pid = livelib.start_jack(server, 48000, period)
    rack = None
    osc = None
    row = {"period": period}
    try:
        rack = start_rack(server, xdg, f"bench{period}")
        osc = Osc(rack.osc_port)
        stop = threading.Event()
        mover = threading.Thread(target=keep_shaping_moving, args=(rack.osc_port, stop), daemon=True)
        if shaped:
            mover.start()
        time.sleep(1.0)
        if stats(osc) is None:  # warm-up window discarded; this also resets the statistics
            problems.append(f"period {period}: no /rack/stats reply")
            return row
        time.sleep(seconds)
        s = stats(osc)
        stop.set()
        if shaped:
            mover.join(5)
        if s is None:
            problems.append(f"period {period}: no /rack/stats reply")
            return row
        cycles, med, p99, mx, period_us, xr = s[:6]
        row.update(cycles=cycles, median=med, p99=p99, max=mx, period_us=period_us, xruns=xr,
                   status_xruns=xruns(osc))
        expected_us = period / 48000 * 1e6
        if abs(period_us - expected_us) > 1:
            problems.append(f"period {period}: /rack/stats period_us {period_us}, expected {expected_us:.1f}")
        expected_cycles = seconds * 48000 / period
        if not 0.8 * expected_cycles <= cycles <= 1.2 * expected_cycles + 50:
            problems.append(f"period {period}: {cycles} cycles in {seconds} s, expected ~{expected_cycles:.0f}")
        if throughput is not None:
            row["throughput"] = osc_throughput(osc, throughput, problems)
        return row
    finally:
        if osc:
            osc.close()
        if rack:
            code = rack.stop()
            if code != 0:
                problems.append(f"period {period}: rack exited with {code}: {rack.stderr[-3:]}")
        livelib.stop_jack(pid)


def udp_drops(port: int) -> int | None:
    """The kernel's count of datagrams dropped at the socket bound to 127.0.0.1:port."""
    try:
        lines = Path("/proc/net/udp").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        f = line.split()
        if len(f) > 12 and f[1].upper() == f"0100007F:{port:04X}":
            return int(f[-1])
    return None


def osc_throughput(osc: Osc, n: int, problems: list) -> dict:
    before = xruns(osc)
    drops_before = udp_drops(osc.target[1])
    values = [float(v % 97) + 0.5 for v in range(n)]
    grams = {v: livelib.build_message("/rack/mix", v).dgram for v in set(values)}
    ping = livelib.build_message("/ping").dgram
    osc.drain(0)
    sock, target = osc.sock, osc.target
    t0 = time.monotonic()
    for v in values:
        sock.sendto(grams[v], target)
    t_sent = time.monotonic()
    sock.sendto(ping, target)
    pong = osc.wait_for("/pong", 30.0)
    pings = 1
    while pong is None and pings < 4:  # the first ping may have been dropped with a full buffer
        sock.sendto(ping, target)
        pings += 1
        pong = osc.wait_for("/pong", 5.0)
    t_pong = time.monotonic()
    result = {"n": n, "send_s": t_sent - t0, "pings": pings, "xruns_before": before}
    if pong is None:
        problems.append("throughput: no /pong after the burst")
        return result
    result["rate"] = n / (t_pong - t0)
    result["elapsed"] = t_pong - t0
    final = osc.get("mix", 2.0)
    result["final"] = final
    result["last_sent"] = values[-1]
    if final is None or abs(final - values[-1]) > 1e-4:
        problems.append(f"throughput: final mix {final}, last sent {values[-1]}")
    errors = [m for m in osc.drain(0.1) if m.address == "/rack/error"]
    if errors:
        problems.append(f"throughput: {len(errors)} /rack/error replies to valid messages: {errors[:2]}")
    result["xruns_after"] = xruns(osc)
    drops_after = udp_drops(osc.target[1])
    if drops_before is not None and drops_after is not None:
        result["dropped"] = drops_after - drops_before
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--periods", default="64,256")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--messages", type=int, default=20000, help="0: no throughput part")
    ap.add_argument("--shaped", action="store_true", help="shaping controls set and moving")
    a = ap.parse_args()
    binary = livelib.rack_bin()
    if not binary.exists():
        print(f"bench_live: {binary} not found (build rack or set RACK_BIN)", file=sys.stderr)
        return 66
    periods = [int(p) for p in a.periods.split(",") if p]
    problems: list[str] = []
    rows = []
    with tempfile.TemporaryDirectory() as xdg:
        for i, period in enumerate(periods):
            last = i == len(periods) - 1
            try:
                rows.append(dsp_bench(period, a.seconds, xdg, problems,
                                      a.messages if last and a.messages > 0 else None, a.shaped))
            except Exception as e:  # keep going: report what failed
                problems.append(f"period {period}: {e}")
                rows.append({"period": period})

    setting = ("shaping controls set and moving (a ramp of each every 0.5 s, freeze switched every 2 s)"
               if a.shaped else "default settings")
    print(f"live, 48 kHz, demo loop at {setting}, {a.seconds:g} s per period size "
          f"(DSP time per cycle from /rack/stats)")
    print(f"  {'period':>6} {'budget':>9} {'cycles':>7} {'median':>16} {'p99':>16} {'max':>16} {'xruns':>5}")
    for r in rows:
        if "median" not in r:
            print(f"  {r['period']:>6}  (no data)")
            continue
        pu = r["period_us"]
        cell = lambda us: f"{us:7.1f} us {us / pu * 100:5.1f}%"  # noqa: E731
        print(f"  {r['period']:>6} {pu:6.0f} us {r['cycles']:>7} {cell(r['median']):>16} "
              f"{cell(r['p99']):>16} {cell(r['max']):>16} {r['xruns']:>5}")
    for r in rows:
        t = r.get("throughput")
        if not t:
            continue
        print(f"OSC throughput (period {r['period']}): {t['n']} x /rack/mix over UDP, then /ping")
        if "rate" in t:
            ok = "ok" if abs((t.get("final") or -1) - t["last_sent"]) <= 1e-4 else "WRONG"
            print(f"  sent in {t['send_s'] * 1000:.0f} ms, /pong after {t['elapsed'] * 1000:.0f} ms "
                  f"-> {t['rate']:,.0f} msg/s handled; final mix {t['final']} (last sent "
                  f"{t['last_sent']}: {ok}); xruns {t['xruns_before']} -> {t['xruns_after']}"
                  + (f"; {t['pings']} pings needed" if t["pings"] > 1 else ""))
            if "dropped" in t:
                print(f"  datagrams dropped by the kernel at rack's socket (receive buffer full): {t['dropped']}"
                      + (f" -> {t['n'] - t['dropped']:,} handled, {(t['n'] - t['dropped']) / t['elapsed']:,.0f} msg/s"
                         if t["dropped"] else ""))
        else:
            print("  no /pong")
    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
