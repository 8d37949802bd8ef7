"""Seeks and loads leave nothing behind: 2,000 seeks and 250 loads on a private jackd (10,000
and 1,000 under `scripts/long-run leaks`, which sets RACK_LEAK_SEEKS and RACK_LEAK_LOADS), each
one paced until rack reports the new position (so each really makes a new stream: the
controller coalesces seeks that arrive while a swap is in flight), then rack's threads, open
file descriptors and resident memory are compared with where they started (/proc/PID).

Threads are counted by name. rack's own (the player's streams are "rack-player") must come back
to what they were, name by name. The dispatch library's worker pool (the runtime's async tasks
and the page's picture queue run on it; its threads are named after its root queues,
"com.apple.root.<qos>[.overcommit]", cut to 15 bytes) starts a worker when work arrives and
retires it after about 5 s idle, so its size at any moment depends on when the last status
push came: it is held to not growing with the number of streams."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

import livelib

# Enough that a stream leaked in one swap of a hundred shows in resident memory (0.6 MB each,
# 2,250 streams: 13 MB against the 8 MB margin below); any leaked thread or descriptor shows
# at once, as they are counted exactly.
SEEKS = int(os.environ.get("RACK_LEAK_SEEKS", 2_000))
LOADS = int(os.environ.get("RACK_LEAK_LOADS", 250))
# The worker pool's size is taken after this many loads, once it has seen swaps come and go.
POOL_LOADS = 250
# What is allowed to remain after the retire period: nothing, in threads and descriptors; a
# little resident memory (malloc keeps freed pages of its arenas; each leaked stream would be
# ~0.6 MB, so 10,000 of them ~6 GB).
RSS_MARGIN_MB = 8.0


def is_pool(name: str) -> bool:
    """A worker of the dispatch library's pool (its root queues' names end in "qos" or
    "qos.overcommit")."""
    return "qos" in name


def own_threads(pid: int) -> dict[str, int]:
    return {n: c for n, c in livelib.thread_names(pid).items() if not is_pool(n)}


def pool_threads(pid: int) -> int:
    return sum(c for n, c in livelib.thread_names(pid).items() if is_pool(n))


@pytest.fixture(scope="module")
def fast_jack():
    """A private server with 64-frame periods (1.3 ms): a swap completes within a period or
    a few, so that 11,000 of them fit in a test run."""
    name = f"rack-leak-{os.getpid()}"
    pid = livelib.start_jack(name, 48000, 64)
    try:
        yield name
    finally:
        livelib.stop_jack(pid)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("leakmedia")
    made = []
    for name, rate, freq in (("a48k.wav", 48000, 440), ("b48k.wav", 48000, 550), ("c44k.wav", 44100, 660)):
        path = d / name
        subprocess.run(["sox", "-n", "-r", str(rate), "-c", "2", "-b", "16", str(path), "synth", "10",
                        "sine", str(freq), "gain", "-12"], check=True, timeout=30)
        made.append(path)
    return made


class Pacer:
    """Sends a seek or load and polls /rack/status until rack plays from the new position."""

    def __init__(self, osc, rack):
        self.osc, self.rack = osc, rack
        self.errors: list = []
        self.streams = 0

    def status(self):
        others: list = []
        st = self.osc.request("/rack/status", timeout=2.0, others=others)
        self.errors += [m for m in others if m.address == "/rack/error"]
        assert st is not None, "no /rack/status reply within 2 s\n" + self.rack.describe()
        return st

    def until(self, what: str, ok, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while True:
            st = self.status()
            if ok(st.args[4]):
                self.streams += 1
                return
            assert not self.errors, f"{what} after {self.streams} streams: {self.errors[:3]}"
            assert time.monotonic() < deadline, (f"{what} after {self.streams} streams: status {st.args} "
                                                 f"{timeout} s later\n{self.rack.describe()}")

    def seek(self, target: float):
        self.osc.send("/rack/player/seek", float(target))
        self.until(f"seek {target}", lambda pos: target - 1e-3 <= pos <= target + 0.3)

    def load(self, path):
        self.osc.send("/rack/player/load", str(path))
        self.until(f"load {path.name}", lambda pos: pos <= 0.3)


def test_seeks_and_loads_leave_nothing_behind(fast_jack, files, rack_binary, tmp_path):
    plain, other, resampled = files
    assert LOADS >= POOL_LOADS, f"RACK_LEAK_LOADS below {POOL_LOADS}: the worker pool is measured after that many"
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    rack = livelib.RackProcess(["--name", "leaks", "--osc-port", "0", "--file", str(plain)],
                               livelib.jack_env(fast_jack, XDG_CONFIG_HOME=str(xdg)), rack_binary)
    osc = None
    try:
        rack.wait_ready()
        osc = livelib.Osc(rack.osc_port)
        pace = Pacer(osc, rack)
        targets = [1.0 + 0.5 * (i % 15) for i in range(SEEKS)]   # consecutive targets differ

        def load_and_seek(i: int):
            # Two 48 kHz files, and every tenth load one at 44.1 kHz (resampled: slower to open).
            pace.load(resampled if i % 10 == 9 else plain if i % 2 == 0 else other)
            pace.seek(5.0)

        # Warm-up: the first streams start one-time state (libsamplerate, malloc arenas).
        for i in range(100):
            load_and_seek(i)
        # The base, once the warm-up's last old stream has retired (waited for, 10 s at most):
        # the playing stream's thread alone (it names itself once it first runs: a
        # thread just started shows its parent's name until then) and threads and files steady
        # over two reads 0.1 s apart.
        def steady() -> bool:
            before = (own_threads(rack.pid), livelib.process_usage(rack.pid)["fds"])
            time.sleep(0.1)
            return before[0].get("rack-player", 0) == 1 and before == (own_threads(rack.pid), livelib.process_usage(rack.pid)["fds"])

        assert livelib.wait_until(steady, 10.0, step=0.0), f"no steady base: {livelib.thread_names(rack.pid)}"
        base = livelib.process_usage(rack.pid)
        base_own = own_threads(rack.pid)
        early_pools = [pool_threads(rack.pid)]   # the pool's size at the start and after POOL_LOADS loads
        t0 = time.monotonic()
        seeks = loads = 0

        def check_running(where: str):
            now = livelib.process_usage(rack.pid)
            players = own_threads(rack.pid).get("rack-player", 0)
            # One swap in flight (two streams), and the threads of the last few retired streams
            # finishing the chunk they were reading; a leak grows by one per stream.
            assert players <= base_own.get("rack-player", 0) + 8 and now["fds"] <= base["fds"] + 8, (
                f"after {seeks} seeks and {loads} loads ({where}): {players} player threads, {now}, "
                f"started at {base_own}, {base}")
            if loads == POOL_LOADS and len(early_pools) == 1:
                early_pools.append(pool_threads(rack.pid))

        # The loads, each followed by a seek, while playing: every swap crossfades.
        phases = []
        for i in range(LOADS):
            load_and_seek(i)
            loads += 1
            seeks += 1
            if loads % POOL_LOADS == 0:
                check_running("loads while playing")
        # Seeks while playing, then with the transport stopped (a swap without a crossfade:
        # the old ring is let go of in the same period; the same stream lifecycle, faster).
        playing_seeks = SEEKS // 10
        phases.append(time.monotonic() - t0)
        for i in range(SEEKS - seeks):
            if i == playing_seeks:
                phases.append(time.monotonic() - t0)
                osc.send("/rack/player/stop")
            pace.seek(targets[i])
            seeks += 1
            if seeks % (SEEKS // 10) == 0:
                check_running("seeks")
        elapsed = time.monotonic() - t0
        assert pace.streams >= SEEKS + LOADS
        # Retire period: the last swap's old stream ends its thread within a few polls.
        def settled() -> bool:
            own = own_threads(rack.pid)
            return (all(own.get(n, 0) <= c for n, c in base_own.items()) and set(own) <= set(base_own)
                    and livelib.process_usage(rack.pid)["fds"] <= base["fds"])

        livelib.wait_until(settled, 10.0, step=0.05)
        end = livelib.process_usage(rack.pid)
        end_own, end_pool = own_threads(rack.pid), pool_threads(rack.pid)
        print(f"\n{seeks} seeks + {loads} loads in {elapsed:.1f} s (phases end at {phases} s): threads {base_own} -> {end_own}, "
              f"pool {early_pools} -> {end_pool}, fds {base['fds']} -> {end['fds']}, "
              f"RSS {base['rss_mb']:.1f} -> {end['rss_mb']:.1f} MB")
        # A leak is growth, name by name.
        grown = {n: (base_own.get(n, 0), c) for n, c in end_own.items() if c > base_own.get(n, 0)}
        assert not grown, f"threads grew (name: before, after): {grown}"
        assert end_pool <= max(early_pools), f"the worker pool grew: {early_pools} -> {end_pool}"
        assert end["fds"] <= base["fds"], f"open files {base['fds']} -> {end['fds']}"
        assert end["rss_mb"] <= base["rss_mb"] + RSS_MARGIN_MB, (
            f"RSS {base['rss_mb']:.1f} -> {end['rss_mb']:.1f} MB")
        assert osc.ping(), "rack stopped answering"
    finally:
        if osc is not None:
            osc.close()
        code = rack.stop()
        assert code == 0, f"rack exited with {code} on SIGTERM\n{rack.describe()}"
