#!/usr/bin/env python3
"""The mixed soak of HTTP, WebSocket, OSC, MIDI and file loads at once against one
`rack run` (release binary) on a private headless jackd, for SECONDS (default 180), while
rack's threads, open file descriptors and resident memory are sampled from /proc/PID.

  - OSC: parameter changes, room changes, preset recalls, saves and deletes, list, dump, status;
  - HTTP: the page, the OSCQuery tree and a value, each on a new connection;
  - WebSocket: connect, LISTEN, send OSC frames, read the pushes, close, again;
  - MIDI: a JACK MIDI source (midisend.c) sending controllers and program changes, a new JACK
    client every few seconds;
  - files: /rack/player/load alternating between two files, and seeks.

Prints one line per sample and a summary; exits 1 when rack died, stopped answering, or grew:
threads or descriptors above the first sample (after a 10 s warm-up) by more than
THREAD_MARGIN / FD_MARGIN, or RSS more than RSS_MARGIN_MB above it at the end.

Usage: python3 Tests/live/bench_mixed_soak.py [--seconds 180] [--server NAME]
RACK_BIN defaults to .build/release/rack.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httplib  # noqa: E402
import livelib  # noqa: E402
from livelib import Osc, RackProcess  # noqa: E402

WARM_UP_SECONDS = 10
THREAD_MARGIN = 2      # a WebSocket or HTTP connection being served at the moment of a sample
FD_MARGIN = 8
RSS_MARGIN_MB = 16.0   # malloc keeps freed pages of its arenas; a leak per request would be far more


class Load:
    """The five sources of traffic, each a thread counting what it did and what failed."""

    def __init__(self, rack: RackProcess, server: str, files: list[Path], midisend: Path, workdir: Path):
        self.rack, self.server, self.files, self.midisend, self.workdir = rack, server, files, midisend, workdir
        self.stop = threading.Event()
        self.counts: dict[str, int] = {}
        self.failures: dict[str, int] = {}
        self.lock = threading.Lock()

    def count(self, what: str, ok: bool = True):
        with self.lock:
            table = self.counts if ok else self.failures
            table[what] = table.get(what, 0) + 1

    def osc(self):
        osc = Osc(self.rack.osc_port)
        rng = random.Random(1)
        rooms = ["smallRoom", "plate", "mediumHall", "largeChamber"]
        n = 0
        while not self.stop.is_set():
            n += 1
            osc.send("/rack/cutoff", rng.uniform(100, 12000), 0.05)
            osc.send("/rack/mix", rng.uniform(0, 100))
            if n % 10 == 0:
                osc.send("/rack/room", rng.choice(rooms), 0.1)
                osc.send("/rack/preset", rng.choice(["Warm", "bright", "Big Hall", 0, 1]))
            if n % 25 == 0:
                name = f"Soak {n % 7}"
                osc.send("/rack/preset/save", name)
                if n % 50 == 0:
                    osc.send("/rack/preset/delete", name)
            if n % 5 == 0:
                for address in ("/rack/preset/list", "/rack/status", "/rack/dump"):
                    got = osc.request_all(address, quiet=0.02, timeout=2.0)
                    self.count("osc queries", bool(got))
            osc.drain(0)
            self.count("osc messages")
            time.sleep(0.005)
        osc.close()

    def http(self):
        targets = ["/", "/ui/", "/rack/cutoff?VALUE", "/?HOST_INFO"]
        i = 0
        while not self.stop.is_set():
            target = targets[i % len(targets)]
            i += 1
            try:
                status, _ = httplib.get(self.rack.http_port, target)
            except OSError:
                status = None
            self.count("http requests", status == 200)
            time.sleep(0.02)

    def websocket(self):
        from websockets.sync.client import connect
        while not self.stop.is_set():
            try:
                with connect(f"ws://127.0.0.1:{self.rack.http_port}/", open_timeout=3) as ws:
                    ws.send('{"COMMAND": "LISTEN", "DATA": "/rack/mix"}')
                    for k in range(20):
                        ws.send(httplib.osc("/rack/mix", float(k * 5)))
                        ws.send(httplib.osc("/rack/preset/list"))
                        try:
                            while True:
                                ws.recv(timeout=0.01)
                        except TimeoutError:
                            pass
                self.count("websocket sessions")
            except Exception:   # a refused or broken session is a failure to count, not a crash
                self.count("websocket sessions", False)
            time.sleep(0.05)

    def midi(self):
        schedule = self.workdir / "midi.txt"
        lines = []
        for k in range(200):
            frame = k * 1000
            if k % 20 == 19:
                lines.append(f"{frame} C0 {k % 4:02X}")
            else:
                lines.append(f"{frame} B0 4A {k % 128:02X}")
        schedule.write_text("\n".join(lines) + "\n")
        while not self.stop.is_set():
            out = subprocess.run([str(self.midisend), str(schedule), "5", "-o", f"{self.rack.client_name}:midi_in"],
                                 capture_output=True, text=True, timeout=30, env=livelib.jack_env(self.server))
            self.count("midi runs (200 events)", out.returncode == 0 and out.stdout.startswith("sent "))

    def player(self):
        osc = Osc(self.rack.osc_port)
        i = 0
        while not self.stop.is_set():
            osc.send("/rack/player/load", str(self.files[i % len(self.files)]))
            osc.send("/rack/player/seek", float(i % 5))
            i += 1
            self.count("file loads")
            self.stop.wait(0.5)
        osc.close()

    def start(self) -> list[threading.Thread]:
        threads = [threading.Thread(target=t, daemon=True)
                   for t in (self.osc, self.http, self.websocket, self.midi, self.player)]
        for t in threads:
            t.start()
        return threads


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--server", default=f"rack-soak-{os.getpid()}")
    ap.add_argument("--sample", type=float, default=10)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rack-soak-"))
    files = []
    for name, freq in (("a.wav", 440), ("b.wav", 550)):
        path = work / name
        subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", str(path), "synth", "8",
                        "sine", str(freq), "gain", "-12"], check=True, timeout=30)
        files.append(path)
    helpers = livelib.build_helpers(work / "helpers")
    jack = livelib.start_jack(a.server, 48000, 256)
    rack = None
    problems = []
    try:
        env = livelib.jack_env(a.server, XDG_CONFIG_HOME=str(work / "xdg"), XDG_CACHE_HOME=str(work / "cache"))
        rack = RackProcess(["--name", "soak", "--osc-port", "0", "--file", str(files[0])], env).wait_ready(15)
        load = Load(rack, a.server, files, helpers["midisend"], work)
        threads = load.start()
        t0 = time.monotonic()
        samples = []
        print(f"{'t (s)':>6} {'threads':>8} {'fds':>5} {'RSS MB':>8}")
        while time.monotonic() - t0 < a.seconds:
            time.sleep(min(a.sample, a.seconds - (time.monotonic() - t0)))
            if rack.proc.poll() is not None:
                problems.append(f"rack exited with {rack.proc.returncode}")
                break
            u = livelib.process_usage(rack.pid)
            samples.append((time.monotonic() - t0, u))
            print(f"{samples[-1][0]:6.0f} {u['threads']:8d} {u['fds']:5d} {u['rss_mb']:8.1f}", flush=True)
        load.stop.set()
        for t in threads:
            t.join(timeout=15)
        ping = Osc(rack.osc_port)
        if not ping.ping(2.0):
            problems.append("no /pong after the soak")
        ping.close()
        base = next((u for t, u in samples if t >= WARM_UP_SECONDS), samples[0][1] if samples else None)
        end = samples[-1][1] if samples else None
        if base and end:
            print(f"after warm-up: threads {base['threads']}, fds {base['fds']}, RSS {base['rss_mb']:.1f} MB; "
                  f"end: threads {end['threads']}, fds {end['fds']}, RSS {end['rss_mb']:.1f} MB "
                  f"(max {max(u['rss_mb'] for _, u in samples):.1f} MB)")
            if end["threads"] > base["threads"] + THREAD_MARGIN:
                problems.append(f"threads {base['threads']} → {end['threads']}")
            if end["fds"] > base["fds"] + FD_MARGIN:
                problems.append(f"fds {base['fds']} → {end['fds']}")
            if end["rss_mb"] > base["rss_mb"] + RSS_MARGIN_MB:
                problems.append(f"RSS {base['rss_mb']:.1f} → {end['rss_mb']:.1f} MB")
        print("done: " + ", ".join(f"{k} {v}" for k, v in sorted(load.counts.items())))
        if load.failures:
            print("failed: " + ", ".join(f"{k} {v}" for k, v in sorted(load.failures.items())))
        stderr_lines = len(rack.stderr)
        code = rack.stop()
        print(f"rack stderr lines: {stderr_lines}; exit on SIGTERM: {code}")
        if code != 0:
            problems.append(f"exit {code} on SIGTERM")
    finally:
        if rack is not None:
            rack.stop()
        livelib.stop_jack(jack)
    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
