#!/usr/bin/env python3
"""A long, seeded OSC fuzz against a live rack on a private headless JACK server
(scripts/long-run fuzz). Sends random datagrams, mutated and truncated valid packets, wrong
type tags, huge strings and blobs, NaN/Inf, extreme ints and path-like preset names; every
so often checks that the rack still answers, that its meters are finite and that JACK still
runs it. Prints packets sent, error replies received, crashes (must be 0) and xruns.

Usage: python3 Tests/live/fuzz_osc.py [[--packets] 200000] [--seed 1]
"""
from __future__ import annotations

import argparse
import math
import os
import random
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import livelib  # noqa: E402
from livelib import Osc, RackProcess, build_bundle, build_message  # noqa: E402

ADDRESSES = ["/rack/cutoff", "/rack/resonance", "/rack/mix", "/rack/gain", "/rack/room", "/rack/preset",
             "/rack/preset/save", "/rack/preset/delete", "/rack/get", "/rack/player/seek", "/rack/player/loop",
             "/rack/cutoff/norm", "/rack/subscribe", "/rack/unsubscribe", "/rack/dump", "/rack/status", "/x"]
NASTY_NAMES = ["../x", "/tmp/x", "a/b", "", "." * 70, "x" * 5000, "ok name", "\x00bad", "é", "-lead"]


def osc_string(s: bytes) -> bytes:
    s += b"\0"
    return s + b"\0" * (-len(s) % 4)


def raw_message(address: str, tags: str, payload: bytes) -> bytes:
    return osc_string(address.encode()) + osc_string(("," + tags).encode()) + payload


def random_packet(rng: random.Random, valid: list[bytes]) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
    if kind == 1:
        p = bytearray(rng.choice(valid))
        for _ in range(rng.randint(1, 6)):
            p[rng.randrange(len(p))] = rng.randrange(256)
        return bytes(p)
    if kind == 2:
        p = rng.choice(valid)
        return p[: rng.randrange(len(p) + 1)]
    if kind == 3:   # wrong or odd type tags with matching payload sizes
        tags = "".join(rng.choice("ifsbhdTFNI") for _ in range(rng.randint(0, 4)))
        payload = b""
        for t in tags:
            if t in "if":
                payload += struct.pack(">I", rng.getrandbits(32))
            elif t in "hd":
                payload += struct.pack(">Q", rng.getrandbits(64))
            elif t == "s":
                payload += osc_string(rng.choice(NASTY_NAMES).encode("utf-8", "replace"))
            elif t == "b":
                n = rng.choice([0, 3, 4, 10_000, 0x7FFFFFFF])
                data = bytes(min(n, 2000))
                payload += struct.pack(">i", n) + data + b"\0" * (-len(data) % 4)
        return raw_message(rng.choice(ADDRESSES), tags, payload)
    if kind == 4:
        v = rng.choice([math.nan, math.inf, -math.inf, 1e38, -1e38, 0.0, -0.0, 5e-324])
        return build_message(rng.choice(ADDRESSES), v).dgram
    if kind == 5:
        v = rng.choice([2**31 - 1, -2**31, 0, -1, 65536, 70000])
        return raw_message(rng.choice(ADDRESSES), "i", struct.pack(">i", v))
    if kind == 6:
        return build_message(rng.choice(["/rack/preset/save", "/rack/preset/delete", "/rack/preset", "/rack/player/load"]),
                             rng.choice(NASTY_NAMES)).dgram
    inner = [build_message(rng.choice(ADDRESSES[:4]), rng.uniform(-1e5, 1e5)) for _ in range(rng.randint(0, 4))]
    return build_bundle(time.time() + rng.uniform(-2, 2), *inner)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: the packet count as `--packets N` or as a bare N (`scripts/long-run fuzz
    20000`), and the seed."""
    ap = argparse.ArgumentParser()
    ap.add_argument("count", nargs="?", type=int, help="packets to send (the same as --packets)")
    ap.add_argument("--packets", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    if a.count is not None:
        a.packets = a.count
    return a


def main() -> int:
    a = arguments()
    rng = random.Random(a.seed)
    server = f"rack-fuzz-{os.getpid()}"
    jack_pid = livelib.start_jack(server, 48000, 256)
    xdg = tempfile.mkdtemp(prefix="rack-fuzz-")
    rack = None
    try:
        rack = RackProcess(["--name", "fuzzed", "--osc-port", "0"], livelib.jack_env(server, XDG_CONFIG_HOME=xdg)).wait_ready()
        osc = Osc(rack.osc_port)
        meters = Osc(rack.osc_port)
        meters.send("/rack/meter")
        valid = [build_message("/rack/cutoff", 800.0).dgram, build_message("/rack/preset", "Warm", 0.1).dgram,
                 build_message("/rack/room", "plate").dgram, build_bundle(0, build_message("/rack/mix", 20.0))]
        xruns0 = osc.status().args[2]
        osc.request("/rack/stats")   # start a fresh DSP-time window
        errors = 0
        t0 = time.monotonic()
        for i in range(a.packets):
            osc.send_raw(random_packet(rng, valid))
            if i % 2000 == 1999:
                errors += sum(1 for m in osc.drain(0) if m.address == "/rack/error")
                if rack.proc.poll() is not None:
                    break
                assert osc.ping(timeout=5), f"no /pong after packet {i}"
                for m in meters.drain(0):
                    if m.address == "/rack/meter":
                        assert all(math.isfinite(x) for x in m.args[:4]), f"non-finite meter {m.args}"
        seconds = time.monotonic() - t0
        alive = rack.proc.poll() is None
        state = osc.status().args[5] if alive else "dead"
        xruns = osc.status().args[2] - xruns0 if alive else -1
        stats = osc.request("/rack/stats").args if alive else [0, 0, 0, 0, 1, 0]
        print(f"fuzz: {a.packets} packets in {seconds:.1f} s ({a.packets / seconds:.0f}/s), "
              f"{errors} error replies seen (rate-limited), crashes: {0 if alive else 1}, "
              f"JACK state: {state}, xruns during the run: {xruns}")
        print(f"fuzz: DSP time per cycle during the run: median {stats[1]:.1f} us, p99 {stats[2]:.1f} us, "
              f"max {stats[3]:.1f} us of a {stats[4]:.0f} us period ({stats[0]} cycles)")
        osc.close()
        meters.close()
        code = rack.stop()
        return 0 if alive and state == "running" and code == 0 else 1
    finally:
        if rack:
            rack.stop()
        livelib.stop_jack(jack_pid)


if __name__ == "__main__":
    sys.exit(main())
