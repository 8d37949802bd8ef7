"""Shared helpers of the live (black-box) tests and the live benchmark.

Drives `rack run` from outside, as a user would: a private headless JACK server
(scripts/jack-server), the rack process itself, OSC over UDP with python-osc, and two small C
helpers built on the fly (jackrec: records JACK ports as raw float32; librtprobe.so: the
LD_PRELOAD runtime probe).
"""
from __future__ import annotations

import contextlib
import math
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from pythonosc.osc_bundle_builder import OscBundleBuilder
from pythonosc.osc_message_builder import OscMessageBuilder
from pythonosc.osc_packet import OscPacket

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
JACK_SERVER_SCRIPT = REPO / "scripts" / "jack-server"


def documentation(name: str | None = None) -> str:
    """The documentation the tests read their figures from: README.md, then every docs/*.md in
    the order of their names, joined (so a figure may move between them without its test
    changing); or the one file `name`, relative to the repository ("docs/parameters.md")."""
    if name is not None:
        return (REPO / name).read_text()
    return "\n".join(f.read_text() for f in documentation_files())


def documentation_files() -> list[Path]:
    """README.md, then every docs/*.md in the order of their names."""
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


NOT_RUN = re.compile(r"^<!-- not run by the tests: (.+\S) -->$")


@dataclass
class CodeBlock:
    """A fenced block of the documentation: its file (relative to the repository), the line of
    its opening fence, its language (what follows the fence, "" when nothing does), its lines,
    and the reason given by the `<!-- not run by the tests: REASON -->` line right above its
    fence (None without one)."""
    file: str
    line: int
    language: str
    lines: list[str]
    not_run: str | None


def code_blocks() -> list[CodeBlock]:
    """Every fenced block of README.md and docs/*.md, in the order of documentation()."""
    blocks = []
    for path in documentation_files():
        lines = path.read_text().splitlines()
        opening = None
        for n, text in enumerate(lines):
            if not text.startswith("```"):
                continue
            if opening is None:
                opening = n
                continue
            above = NOT_RUN.match(lines[opening - 1]) if opening > 0 else None
            blocks.append(CodeBlock(str(path.relative_to(REPO)), opening + 1, lines[opening][3:].strip(),
                                    lines[opening + 1:n], above.group(1) if above else None))
            opening = None
        assert opening is None, f"{path.name}: the fence at line {opening + 1} is never closed"
    return blocks


READY_JOINED = re.compile(r"^rack: joined JACK server as '(.+)' \((\d+) Hz, (\d+) frames\)\s*$")
READY_OSC = re.compile(r"^rack: OSC on osc\.udp://([^:/]+):(\d+)/\s*$")
READY_HTTP = re.compile(r"^rack: OSCQuery on http://([^:/]+):(\d+)/")


def rack_bin() -> Path:
    """$RACK_BIN, else .build/release/rack, else .build/debug/rack (which may not exist yet)."""
    env = os.environ.get("RACK_BIN")
    if env:
        return Path(env)
    release = REPO / ".build" / "release" / "rack"
    debug = REPO / ".build" / "debug" / "rack"
    if not release.exists() and debug.exists():
        return debug
    return release


# --------------------------------------------------------------------------------------------
# JACK


def start_jack(name: str, rate: int = 48000, period: int = 256) -> int:
    """Starts a private headless server through scripts/jack-server; returns its pid."""
    out = subprocess.run(
        [str(JACK_SERVER_SCRIPT), "start", name, str(rate), str(period)],
        capture_output=True, text=True, timeout=20,
    )
    if out.returncode != 0:
        raise RuntimeError(f"jack-server start {name} failed ({out.returncode}): {out.stderr.strip()}")
    return int(out.stdout.strip())


def restart_jack(name: str, rate: int = 48000, period: int = 256) -> tuple[int, float]:
    """Starts a server again under a name whose server stop_jack ended (it returns once that
    server's process is gone, the condition for its name to be free).
    Returns the pid and the time.monotonic() at which the start began."""
    started = time.monotonic()
    return start_jack(name, rate, period), started


def stop_jack(pid: int) -> None:
    """Ends the server `pid` (scripts/jack-server) and returns once its process is gone.
    jackd does not always take its name out of the servers' registry in /dev/shm when it exits
    (not when it could not notify a client on its way out: "Could not write notification" in
    its log), and a new server under that name refuses to start ("server already active") as
    long as the pid the registry holds answers kill(pid, 0), which a zombie does: the exited
    server waits for init to reap it, 1.1-1.9 s measured. Once the pid is gone, the new server
    takes the entry over."""
    subprocess.run([str(JACK_SERVER_SCRIPT), "stop", str(pid)], capture_output=True, timeout=20)
    assert wait_until(lambda: not os.path.exists(f"/proc/{pid}"), 10.0, step=0.02), \
        f"jackd {pid} still not reaped 10 s after its SIGTERM"


class Jack:
    """A private server the suite started: its name, its pid and its clients' environment."""

    def __init__(self, name: str, pid: int):
        self.name, self.pid = name, pid

    @classmethod
    @contextlib.contextmanager
    def started(cls, name: str, rate: int = 48000, period: int = 256):
        """Starts a server for the `with` block and stops it by its pid after it."""
        pid = start_jack(name, rate, period)
        try:
            yield cls(name, pid)
        finally:
            stop_jack(pid)

    def env(self, **extra) -> dict:
        return jack_env(self.name, **extra)

    def ports(self) -> list[str]:
        return jack_port_list(self.name)

    def connections(self) -> dict:
        return jack_connections(self.name)


def jack_env(server: str, **extra: str) -> dict:
    env = dict(os.environ)
    env["JACK_DEFAULT_SERVER"] = server
    env["JACK_NO_START_SERVER"] = "1"
    env.update(extra)
    return env


def jack_running(server: str) -> bool:
    out = subprocess.run(["jack_wait", "-s", server, "-c"], capture_output=True, text=True,
                         timeout=10, env=jack_env(server))
    return out.stdout.strip() == "running"


def jack_ports(server: str, *flags: str) -> str:
    out = subprocess.run(["jack_lsp", *flags], capture_output=True, text=True, timeout=10,
                         env=jack_env(server))
    return out.stdout


def jack_port_list(server: str) -> list[str]:
    return [l.strip() for l in jack_ports(server).splitlines() if l.strip()]


def parse_connections(lsp_output: str) -> dict[str, list[str]]:
    """{port: [connected ports]} from the output of `jack_lsp -c`."""
    result: dict[str, list[str]] = {}
    current = None
    for line in lsp_output.splitlines():
        if not line.strip():
            continue
        if line.startswith((" ", "\t")):
            if current is not None:
                result[current].append(line.strip())
        else:
            current = line.strip()
            result[current] = []
    return result


def jack_connections(server: str) -> dict[str, list[str]]:
    """{port: [connected ports]} on `server`."""
    return parse_connections(jack_ports(server, "-c"))


def process_usage(pid: int) -> dict:
    """A process's threads, resident memory (MB) and open descriptors, from /proc."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return {"threads": int(fields["Threads"]), "rss_mb": int(fields["VmRSS"].split()[0]) / 1024,
            "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def thread_names(pid: int) -> dict[str, int]:
    """How many threads of a process carry each name (the kernel's `comm`, 15 bytes), from
    /proc; a thread that ends while being read is left out."""
    names: dict[str, int] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        names[name] = names.get(name, 0) + 1
    return names


def wait_until(predicate, timeout: float = 2.0, step: float = 0.02):
    """The suite's one wait on a condition: polls `predicate` every `step` seconds until it holds
    or `timeout` seconds pass; its last answer (truthy when it held)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


def distribution(seconds: list[float]) -> str:
    """A line for a set of durations: how many, the median, the 90th and 99th percentiles and
    the worst (nearest-rank percentiles), in seconds."""
    ordered = sorted(seconds)
    def rank(p: float) -> float:
        return ordered[max(0, -(-len(ordered) * p // 100) - 1)] if ordered else float("nan")
    return (f"n={len(ordered)} median {rank(50):.2f} s, 90 % {rank(90):.2f} s, 99 % {rank(99):.2f} s, "
            f"worst {ordered[-1] if ordered else float('nan'):.2f} s")


# --------------------------------------------------------------------------------------------
# xruns: the server's report, rack's report, and what the runtime probe saw of rack's callback

XRUN_LINE = re.compile(r"XRun")   # the server's log: one line an xrun notification it sent


def server_xruns(server: str) -> int:
    """The xruns the private server `server` has reported since it started: the lines of its log
    (scripts/jack-server keeps it while the server runs) that jackd writes once for each xrun
    notification it sends its clients ("JackTimedDriver::Process XRun = N usec": the driver's
    own cycle started late; "JackEngine::XRun: client = NAME was not finished, state = S": a
    client had not returned by the deadline)."""
    log = Path(tempfile.gettempdir()) / f"jack-server-{server}.log"   # where scripts/jack-server puts it
    return sum(1 for line in log.read_text(errors="replace").splitlines() if XRUN_LINE.search(line))


def rack_xruns(osc) -> int:
    """The xruns rack has reported (/rack/status i:xruns: its JACK xrun callback's count)."""
    return osc.status().args[2]


def xrun_marks(server: str, osc) -> tuple[int, int]:
    """(the server's, rack's) xruns so far, rack's read first: an xrun between the two reads
    then counts in the server's mark, so later rack's increase can only exceed the server's."""
    rack = rack_xruns(osc)
    return server_xruns(server), rack


def assert_every_xrun_reported(server: str, osc, server_before: int, rack_before: int,
                               server_at_rack_start: int = 0) -> tuple[int, int]:
    """Rack reported every xrun the server reported since (server_before, rack_before): rack's
    count grew at least as much as the server's log (the notification reaches rack a moment
    after the server writes its line: waited for, wait_until), and no more than the server
    logged since rack joined (`server_at_rack_start`). Returns (server's, rack's) increase."""
    seen = [0, 0]

    def caught_up() -> bool:
        seen[0] = server_xruns(server) - server_before
        seen[1] = rack_xruns(osc) - rack_before
        return seen[1] >= seen[0]

    wait_until(caught_up, 3.0, step=0.05)
    server_since_join = server_xruns(server) - server_at_rack_start
    assert seen[1] >= seen[0], f"the server reported {seen[0]} xruns, rack only {seen[1]}"
    assert rack_xruns(osc) - rack_before <= server_since_join, \
        f"rack reported {rack_xruns(osc) - rack_before} xruns, the server only {server_since_join} since rack joined"
    return seen[0], seen[1]


# rack's callback, at most, as a fraction of the period (CPU time of its thread within one
# callback). Measured at 256 frames in the capture and flood tests while other builds kept both
# cores busy (load average 6-15): 115 to 833 us of 5,333 us (at most 16 %), while the wall-clock
# duration of the same callbacks reached 63.7 ms, twelve periods (the thread preempted
# mid-callback: there is no realtime scheduling on the dummy server), so the wall clock cannot
# tell rack's work from the machine's load; the CPU time can, and half the period leaves rack's
# worst a margin of 3.
CALLBACK_CPU_LIMIT = 0.5


def probe_report(path: Path) -> dict:
    """The runtime probe's report (rtprobe.c), written when the probed process exits."""
    import json

    assert wait_until(path.exists, 5.0), "the probe wrote no report"
    return json.loads(path.read_text())


def assert_callback_fast(report: dict) -> str:
    """rack's process callback never came near the period: in no cycle did its thread spend
    CALLBACK_CPU_LIMIT of the period or more (the probe's per-cycle CPU time, histogram in 5 %
    steps). So an xrun the server reported meanwhile was not rack's doing: the server's timer
    thread or a client woke late. Returns a one-line summary of the callback's figures."""
    cb = report["details"]["callback"]
    period = cb["period_us"]
    over = sum(cb["cpu_percent"][int(CALLBACK_CPU_LIMIT * 20):])
    summary = (f"rack's callback over {cb['cycles']} cycles: CPU at most {cb['max_cpu_us']:.0f} us, wall clock at "
               f"most {cb['max_us']:.0f} us ({cb['max_fraction'] * 100:.1f} %) of a {period:.0f} us period; "
               f"wall clock by 5 % of the period {cb['percent']}; notified of {cb['xruns']} xruns")
    assert over == 0 and cb["max_cpu_us"] < CALLBACK_CPU_LIMIT * period, \
        f"rack's callback used {CALLBACK_CPU_LIMIT * 100:.0f} % of the period or more in {over} cycles: {summary}"
    assert cb["cycles"] > 100, f"the probe timed too few process callbacks: {cb}"
    return summary


def read_capture_cycles(path: Path, period: int, rack_cycles: Path | None = None) -> tuple[list[tuple[int, int, int]], set[int], int]:
    """jackrec's JACKREC_CYCLES log: [(index in the capture, frame time, xruns notified so
    far)], the cycles at which the server's xruns left their mark, and the xruns notified to the
    recorder during the recording. A cycle is marked when its frame time is not the last
    cycle's plus the period (the server skipped cycles of the recorder, or reset its timer);
    with `rack_cycles` (the probe's RACK_PROBE_CYCLES log: rack's frame time in each of its
    cycles) also when rack did not run in that cycle (the recorder read a buffer rack had not
    written), or did but not in the one before (rack's output went on from where it was)."""
    cycles, xruns = [], 0
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields[0] == "xruns":
            xruns = int(fields[1])
        else:
            cycles.append((int(fields[0]), int(fields[1]), int(fields[2])))
    marked = {k for k in range(1, len(cycles)) if (cycles[k][1] - cycles[k - 1][1]) % (1 << 32) != period}
    if rack_cycles is not None:
        frames = [int(line) for line in rack_cycles.read_text().split()]
        ran = set(frames)
        after_a_gap = {f for prev, f in zip(frames, frames[1:]) if (f - prev) % (1 << 32) != period}
        marked |= {k for k in range(1, len(cycles)) if cycles[k][1] not in ran or cycles[k][1] in after_a_gap}
    return cycles, marked, xruns


def longest_unmarked(cycles, marked: set[int], length: int) -> tuple[int, int, int]:
    """The longest run of recorded cycles no server xrun marked (none moved inside it): its
    first cycle, and its first and end frame in a capture of `length` frames."""
    bounds = [0, *sorted(marked), len(cycles)]
    first, last = max(zip(bounds, bounds[1:]), key=lambda b: b[1] - b[0])
    return first, cycles[first][0], cycles[last][0] if last < len(cycles) else length


def compare_capture_by_cycles(captured, reference, offset: int, cycles, marked: set[int], period: int,
                              start: int = 0, limit_db: float = -90.0, reach: int = 32) -> dict:
    """Compares a JACK capture with the reference it must equal, one recorded cycle at a time
    (`cycles` from read_capture_cycles), from cycle `start` on and back, where
    captured[i] == reference[offset + i]. Every cycle is compared; only between two cycles
    that a server xrun separated (the later one is in `marked`) may the capture go on further
    on or back in the reference by whole periods (the cycles the server ran without the
    recorder, or without rack), up to `reach` periods: the new position must match to
    `limit_db` there and on: the best-matching such position is taken, when it also holds for
    the next cycle in the walk (or that one is marked too). A cycle there that matches at no
    such position (a cycle the xrun spoiled) is left out, and the next one may move again.
    Asserts that every other cycle matches; returns {"compared", "moved", "spoiled", "peak"}
    (peak in dBFS)."""
    import numpy as np

    limit = 10 ** (limit_db / 20)
    counts = {"compared": 0, "moved": 0, "spoiled": 0}
    peak = [0.0]

    def differs(k: int, o: int) -> float:
        """How much recorded cycle k differs from the reference at position o (inf: outside)."""
        index = cycles[k][0]
        block = captured[index:index + period]
        if not (0 <= o + index and o + index + len(block) <= len(reference)):
            return math.inf
        return float(np.max(np.abs(block - reference[o + index:o + index + len(block)])))

    def walk(order, may_move_at) -> None:
        order = list(order)
        position = offset
        may_move = False
        for n, k in enumerate(order):
            index = cycles[k][0]
            block = captured[index:index + period]
            if len(block) == 0:
                continue
            fits = lambda o: 0 <= o + index and o + index + len(block) <= len(reference)            # noqa: E731
            if may_move or may_move_at(k):
                may_move = False
                if not differs(k, position) < limit:
                    diff, found = min((differs(k, position + s * period), position + s * period)
                                      for s in range(-reach, reach + 1))
                    after = order[n + 1] if n + 1 < len(order) else None
                    if after is not None and not may_move_at(after) and not differs(after, found) < limit:
                        found = None
                    if not diff < limit or found is None:
                        counts["spoiled"] += 1
                        may_move = True
                        continue
                    position = found
                    counts["moved"] += 1
            assert fits(position), f"the capture runs past the reference at its cycle {k}"
            diff = differs(k, position)
            peak[0] = max(peak[0], diff)
            assert diff < limit, (
                f"cycle {k} of the capture (frame {index}, reference frame {position + index}, "
                f"{(position + index) / 48000:.3f} s) differs by {20 * math.log10(diff) if diff else -math.inf:.1f} "
                f"dBFS, and no xrun of the server struck there")
            counts["compared"] += 1

    walk(range(start, len(cycles)), lambda k: k in marked)
    walk(range(start - 1, -1, -1), lambda k: k + 1 in marked)
    return {**counts, "peak": 20 * math.log10(peak[0]) if peak[0] > 0 else -math.inf}


def wait_rack_looked(osc) -> None:
    """Waits for two turns of rack's control loop: two /ping round trips (the second is read
    after a housekeeping pass that began once the first was answered). Rack looks at its JACK
    connections in that pass when JACK has said they changed, so a connection made on the
    server before the call is then known to rack (wanted)."""
    assert osc.ping() and osc.ping(), "rack does not answer /ping"


def wait_ramps_over(meters, timeout: float = 3.0) -> None:
    """Waits (wait_until) for two /rack/meter pushes in a row saying no ramp runs (the last field,
    i:ramping, is 0). `meters` is an Osc that sent /rack/meter; changes sent before the call and
    answered (a ping or a get) are applied within a cycle, shorter than the 66 ms between pushes,
    so the second push was made after them."""
    meters.drain(0)
    idle_in_a_row = [0]

    def idle() -> bool:
        m = meters.wait_for("/rack/meter", 0.5)
        idle_in_a_row[0] = idle_in_a_row[0] + 1 if m is not None and m.args[-1] == 0 else 0
        return idle_in_a_row[0] >= 2

    assert wait_until(idle, timeout, step=0.0), f"a ramp still running (or no meters) after {timeout} s"


# --------------------------------------------------------------------------------------------
# C helpers


def build_helpers(outdir: Path) -> dict[str, Path]:
    """Compiles jackrec, midisend, portcycle, portwatch, libslowunmap.so, probe_selftest and librtprobe.so into outdir (reuses
    RACK_PROBE_LIB)."""
    outdir.mkdir(parents=True, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    built = {}
    probe = os.environ.get("RACK_PROBE_LIB")
    if probe and Path(probe).exists():
        built["probe"] = Path(probe)
    else:
        built["probe"] = outdir / "librtprobe.so"
        subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(built["probe"]),
                        str(HERE / "rtprobe.c"), "-ldl", "-lpthread"], check=True, timeout=120)
    built["jackrec"] = outdir / "jackrec"
    subprocess.run([cc, "-O2", "-o", str(built["jackrec"]), str(HERE / "jackrec.c"), "-ljack"],
                   check=True, timeout=120)
    built["midisend"] = outdir / "midisend"
    subprocess.run([cc, "-O2", "-o", str(built["midisend"]), str(HERE / "midisend.c"), "-ljack"],
                   check=True, timeout=120)
    built["portcycle"] = outdir / "portcycle"
    subprocess.run([cc, "-O2", "-o", str(built["portcycle"]), str(HERE / "portcycle.c"), "-ljack"],
                   check=True, timeout=120)
    built["portwatch"] = outdir / "portwatch"
    subprocess.run([cc, "-O2", "-o", str(built["portwatch"]), str(HERE / "portwatch.c"), "-ljack"],
                   check=True, timeout=120)
    built["slowunmap"] = outdir / "libslowunmap.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(built["slowunmap"]), str(HERE / "slowunmap.c"), "-ldl"],
                   check=True, timeout=120)
    built["selftest"] = outdir / "probe_selftest"
    subprocess.run([cc, "-O2", "-o", str(built["selftest"]), str(HERE / "probe_selftest.c"),
                    "-ljack", "-lpthread"], check=True, timeout=120)
    return built


def record(jackrec: Path, server: str, ports: list[str], seconds: float, path: Path):
    """Records ports for seconds; returns a numpy array (frames x len(ports)) and the rate."""
    import numpy as np

    out = subprocess.run([str(jackrec), str(path), str(seconds), *ports], capture_output=True,
                         text=True, timeout=seconds + 15, env=jack_env(server))
    if out.returncode != 0:
        raise RuntimeError(f"jackrec failed ({out.returncode}): {out.stderr.strip()}")
    data = np.fromfile(path, dtype=np.float32).reshape(-1, len(ports))
    return data, int(out.stdout.strip())


def spectral_centroid(signal, rate: int) -> float:
    import numpy as np

    mono = signal.mean(axis=1) if signal.ndim == 2 else signal
    mono = mono - mono.mean()
    spectrum = np.abs(np.fft.rfft(mono * np.hanning(len(mono))))
    freqs = np.fft.rfftfreq(len(mono), 1.0 / rate)
    keep = freqs >= 20.0
    total = spectrum[keep].sum()
    return float((freqs[keep] * spectrum[keep]).sum() / total) if total > 0 else 0.0


# --------------------------------------------------------------------------------------------
# rack


class RackProcess:
    """`rack run ...` with its stdout/stderr collected by threads; stop() is always safe."""

    def __init__(self, args: list[str], env: dict, binary: Path | None = None, subcommand: str | None = "run",
                 cwd: Path | None = None):
        # Every rack in the tests serves HTTP on a port of its own (the default, 8001, is for users).
        if subcommand == "run" and "--http-port" not in args:
            args = [*args, "--http-port", "0"]
        self.args = [str(binary or rack_bin()), *([subcommand] if subcommand else []), *args]
        self.env = env
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self.client_name: str | None = None
        self.rate: int | None = None
        self.period: int | None = None
        self.osc_host: str | None = None
        self.osc_port: int | None = None
        self.http_host: str | None = None
        self.http_port: int | None = None
        self.server: str | None = None   # "PipeWire 0.3.65" or "JACK 1.9.21"
        self.ready_at: float | None = None
        self.joined_at: float | None = None   # when the "joined JACK server" line came
        self._cond = threading.Condition()
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, env=env, text=True, bufsize=1, cwd=cwd)
        self._threads = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self.stdout), daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr), daemon=True),
        ]
        for t in self._threads:
            t.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _pump(self, stream, sink):
        for line in stream:
            with self._cond:
                sink.append(line.rstrip("\n"))
                m = READY_JOINED.match(line)
                if m and sink is self.stdout:
                    self.client_name, self.rate, self.period = m.group(1), int(m.group(2)), int(m.group(3))
                    self.joined_at = time.monotonic()
                m = READY_HTTP.match(line)
                if m and sink is self.stdout:
                    self.http_host, self.http_port = m.group(1), int(m.group(2))
                m = READY_SERVER.match(line)
                if m and sink is self.stdout:
                    self.server = m.group(1) + " " + m.group(2)
                m = READY_OSC.match(line)
                if m and sink is self.stdout:
                    self.osc_host, self.osc_port = m.group(1), int(m.group(2))
                if self.ready_at is None and self.client_name is not None and self.osc_port is not None:
                    self.ready_at = time.monotonic()
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_ready(self, timeout: float = 10.0) -> "RackProcess":
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.client_name is None or self.osc_port is None:
                if self.proc.poll() is not None:
                    self._cond.wait(0.2)  # let the pumps finish reading
                    raise RuntimeError(f"rack exited with {self.proc.returncode} before it was ready\n"
                                       + self.describe())
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"rack not ready within {timeout} s\n" + self.describe())
                self._cond.wait(min(left, 0.1))
        return self

    def describe(self) -> str:
        return ("  cmd: " + " ".join(self.args) + "\n  stdout: " + repr(self.stdout[-20:])
                + "\n  stderr: " + repr(self.stderr[-20:]))

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 5.0, settle: float = 0.25) -> int | None:
        """Signals the process and waits; SIGKILL after timeout (then returns None).

        The signal is sent no earlier than `settle` seconds after the ready lines: stopping
        right at start-up is tested on its own (test_sigterm_right_after_the_ready_lines), and
        everywhere else a start-up race must not pass for a shutdown problem."""
        if self.proc.poll() is None:
            if self.ready_at is not None:
                time.sleep(max(0.0, self.ready_at + settle - time.monotonic()))
            try:
                self.proc.send_signal(sig)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
                self._join()
                return None
        self._join()
        return self.proc.returncode

    def _join(self):
        for t in self._threads:
            t.join(2)

    def wait_exit(self, timeout: float) -> int | None:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        self._join()
        return self.proc.returncode


# --------------------------------------------------------------------------------------------
# OSC


@dataclass
class Msg:
    address: str
    tags: str
    args: list
    timetag: float | None = None
    received: float = field(default_factory=time.monotonic)

    def __repr__(self) -> str:
        return f"Msg({self.address} ,{self.tags} {self.args!r})"


def _typetags(dgram: bytes) -> str:
    end = dgram.index(b"\0")
    start = (end + 4) & ~3
    if start >= len(dgram) or dgram[start:start + 1] != b",":
        return ""
    tag_end = dgram.index(b"\0", start)
    return dgram[start + 1:tag_end].decode()


def parse_packet(dgram: bytes) -> list[Msg]:
    packet = OscPacket(dgram)
    now = time.monotonic()
    return [Msg(tm.message.address, _typetags(tm.message.dgram), list(tm.message.params), tm.time, now)
            for tm in packet.messages]


def build_message(address: str, *args):
    """args: plain values (float -> f, int -> i, str -> s, bool -> T/F) or (tag, value) pairs."""
    b = OscMessageBuilder(address=address)
    for a in args:
        if isinstance(a, tuple):
            tag, value = a
            b.add_arg(value, tag)
        elif isinstance(a, bool):
            b.add_arg(a)
        elif isinstance(a, int):
            b.add_arg(a, "i")
        elif isinstance(a, float):
            b.add_arg(a, "f")
        else:
            b.add_arg(a, "s")
    return b.build()


def build_bundle(timetag: float, *messages) -> bytes:
    """timetag: Unix time in seconds (0 = immediately)."""
    b = OscBundleBuilder(timetag)
    for m in messages:
        b.add_content(m)
    return b.build().dgram


class Osc:
    """An OSC endpoint on its own bound UDP socket: sends to rack and receives what comes back."""

    def __init__(self, port: int, host: str = "127.0.0.1"):
        self.target = (host, port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.backlog: list[Msg] = []
        self.sources: set = set()

    def close(self):
        self.sock.close()

    def send(self, address: str, *args) -> None:
        self.sock.sendto(build_message(address, *args).dgram, self.target)

    def send_raw(self, dgram: bytes) -> None:
        self.sock.sendto(dgram, self.target)

    def _read(self, timeout: float) -> list[Msg]:
        r, _, _ = select.select([self.sock], [], [], max(timeout, 0))
        if not r:
            return []
        data, src = self.sock.recvfrom(65536)
        self.sources.add(src)
        try:
            return parse_packet(data)
        except Exception as e:  # a reply python-osc cannot parse is a finding in itself
            return [Msg("<unparsable>", "", [repr(e), data])]

    def recv(self, timeout: float = 1.0) -> Msg | None:
        if self.backlog:
            return self.backlog.pop(0)
        deadline = time.monotonic() + timeout
        while True:
            msgs = self._read(deadline - time.monotonic())
            if msgs:
                self.backlog.extend(msgs[1:])
                return msgs[0]
            if time.monotonic() >= deadline:
                return None

    def drain(self, quiet: float = 0.05) -> list[Msg]:
        """Everything that arrives until the socket has been quiet for `quiet` seconds."""
        got = self.backlog
        self.backlog = []
        while True:
            msgs = self._read(quiet)
            if not msgs:
                return got
            got.extend(msgs)

    def collect(self, duration: float) -> list[Msg]:
        """Everything that arrives within `duration` seconds."""
        got = self.backlog
        self.backlog = []
        deadline = time.monotonic() + duration
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return got
            got.extend(self._read(left))

    def wait_for(self, address: str, timeout: float = 1.0, others: list | None = None) -> Msg | None:
        """The first message with that address within timeout; the others go to `others`."""
        deadline = time.monotonic() + timeout
        while True:
            m = self.recv(max(deadline - time.monotonic(), 0))
            if m is None:
                return None
            if m.address == address:
                return m
            if others is not None:
                others.append(m)

    def request(self, address: str, *args, reply: str | None = None, timeout: float = 1.0,
                others: list | None = None) -> Msg | None:
        """Drains old input, sends, and waits for the reply (default: same address)."""
        self.drain(0)
        self.send(address, *args)
        return self.wait_for(reply or address, timeout, others)

    def request_all(self, address: str, *args, quiet: float = 0.3, timeout: float = 2.0) -> list[Msg]:
        """Sends and collects every reply until the socket is quiet (for multi-message replies)."""
        self.drain(0)
        self.send(address, *args)
        first = self.recv(timeout)
        if first is None:
            return []
        return [first] + self.drain(quiet)

    def get(self, param: str, timeout: float = 1.0):
        m = self.request("/rack/get", param, reply=f"/rack/{param}", timeout=timeout)
        return None if m is None else m.args[0]

    def ping(self, timeout: float = 1.0) -> bool:
        return self.request("/ping", reply="/pong", timeout=timeout) is not None

    def status(self, timeout: float = 1.0) -> Msg | None:
        return self.request("/rack/status", timeout=timeout)

    def expect_error(self, address: str, *args, timeout: float = 1.0) -> Msg | None:
        return self.request(address, *args, reply="/rack/error", timeout=timeout)


def close_to(a, b, rel: float = 1e-4, abs_: float = 1e-3) -> bool:
    return a is not None and math.isfinite(a) and abs(a - b) <= max(abs_, rel * abs(b))


def free_udp_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def which(tool: str) -> bool:
    return shutil.which(tool) is not None


# --------------------------------------------------------------------------------------------
# PipeWire: a private headless PipeWire with its JACK library, for the PipeWire lane

PW_SINK = "rack-test-sink"
READY_SERVER = re.compile(r"^rack: the JACK server is (PipeWire|JACK) (\S+)\s*$")

_PW_CONF = """\
context.properties = {
    default.clock.rate = 48000
    default.clock.quantum = 256
    default.clock.min-quantum = 16
    default.clock.max-quantum = 8192
}
context.objects = [
    { factory = adapter
      args = {
          factory.name = support.null-audio-sink
          node.name = "%s"
          media.class = Audio/Sink
          object.linger = true
          audio.position = [ FL FR ]
      }
    }
]
""" % PW_SINK


def pipewire_missing() -> list[str]:
    """The tools the PipeWire lane needs that are not installed."""
    return [t for t in ("pipewire", "wireplumber", "dbus-run-session", "pw-jack", "pw-metadata", "jack_lsp")
            if shutil.which(t) is None]


def pipewire_jack_libdir() -> str:
    """Where pw-jack points the dynamic linker (PipeWire's libjack); in the 1.x lane
    (scripts/pipewire-1x), the lane's."""
    if os.environ.get("RACK_PIPEWIRE_JACK_LIBDIR"):
        return os.environ["RACK_PIPEWIRE_JACK_LIBDIR"]
    out = subprocess.run(["pw-jack", "sh", "-c", "echo $LD_LIBRARY_PATH"], capture_output=True, text=True, timeout=10)
    return out.stdout.strip()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        # gone, or gone between the open and the read (ESRCH)
        return False


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
    return kids


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def pipewire_lane_env(*first: str) -> dict:
    """The 1.x lane's own variables (scripts/pipewire-1x names them in RACK_PIPEWIRE_LANE_VARS),
    with the lane's libraries after `first` on LD_LIBRARY_PATH; only `first` without a lane."""
    names = os.environ.get("RACK_PIPEWIRE_LANE_VARS", "").split()
    env = {k: os.environ[k] for k in names if k in os.environ}
    path = [p for p in (*first, os.environ.get("RACK_PIPEWIRE_LIBRARY_PATH", "")) if p]
    if path:
        env["LD_LIBRARY_PATH"] = ":".join(path)
    return env


class PipeWire:
    """A private, headless PipeWire: its own XDG_RUNTIME_DIR, config and state, the dummy
    driver at 48 kHz / 256 frames, a null sink (playback ports, created by WirePlumber some
    time after PipeWire starts, as on a desktop), WirePlumber on a D-Bus of its own
    (dbus-run-session; JACK metadata needs it). Clients get PipeWire's libjack through
    LD_LIBRARY_PATH, as `pw-jack` does. Only the processes it started are ever signalled."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.runtime = self.root / "run"
        self.config = self.root / "config"
        self.state = self.root / "state"
        self.runtime.mkdir(parents=True, exist_ok=True)
        self.runtime.chmod(0o700)
        (self.config / "pipewire" / "pipewire.conf.d").mkdir(parents=True, exist_ok=True)
        (self.config / "pipewire" / "pipewire.conf.d" / "rack-test.conf").write_text(_PW_CONF)
        # The 1.x lane's server configuration is its own; a PIPEWIRE_CONFIG_DIR would hide the
        # drop-in above from the server, so the server gets the lane's file as its user's file.
        lane_config = pipewire_lane_env().get("PIPEWIRE_CONFIG_DIR")
        if lane_config:
            shutil.copy(Path(lane_config) / "pipewire.conf", self.config / "pipewire" / "pipewire.conf")
        self.state.mkdir(parents=True, exist_ok=True)
        self.libdir = pipewire_jack_libdir()
        self.pipewire: subprocess.Popen | None = None
        self.session: subprocess.Popen | None = None
        self.wireplumber_pid: int | None = None
        self.dbus_pid: int | None = None   # the session's dbus-daemon
        self.version: str | None = None
        self.returned_at: float | None = None   # when the last start's socket was there

    def _server_env(self) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("JACK_", "PIPEWIRE_", "DBUS_", "LD_LIBRARY_PATH"))}
        env.update(XDG_RUNTIME_DIR=str(self.runtime), XDG_CONFIG_HOME=str(self.config),
                   XDG_STATE_HOME=str(self.state), DISPLAY="")
        env.update(pipewire_lane_env())
        env.pop("PIPEWIRE_CONFIG_DIR", None)   # see __init__
        return env

    def env(self, **extra: str) -> dict:
        """For JACK clients (rack, jack_lsp, jackrec...) of this PipeWire."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JACK_DEFAULT_SERVER", "PIPEWIRE_"))}
        env.update(XDG_RUNTIME_DIR=str(self.runtime), JACK_NO_START_SERVER="1")
        env.update(pipewire_lane_env(self.libdir))
        env.update(extra)
        return env

    def start(self, timeout: float = 20.0) -> "PipeWire":
        """Starts PipeWire, then WirePlumber; returns once the sink's playback ports exist."""
        log = open(self.root / "pipewire.log", "ab")
        sock = self.runtime / "pipewire-0"
        sock.unlink(missing_ok=True)
        self.pipewire = subprocess.Popen(["pipewire"], env=self._server_env(), stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not sock.exists():
            if self.pipewire.poll() is not None:
                raise RuntimeError(f"pipewire exited with {self.pipewire.returncode} at start-up")
            if time.monotonic() > deadline:
                raise RuntimeError("pipewire did not create its socket in time")
            time.sleep(0.01)
        self.returned_at = time.monotonic()
        wlog = open(self.root / "wireplumber.log", "ab")
        self.session = subprocess.Popen(["dbus-run-session", "--", "wireplumber"], env=self._server_env(),
                                        stdin=subprocess.DEVNULL, stdout=wlog, stderr=wlog, start_new_session=True)
        while not any(p.endswith(":playback_FL") for p in self.ports()):
            if time.monotonic() > deadline:
                ports = self.ports()
                self.stop()   # nothing of a failed start is left running
                raise RuntimeError(f"no sink ports within {timeout} s: {ports}")
            time.sleep(0.05)
        for _ in range(100):
            kids = _children(self.session.pid)
            wp = [k for k in kids if _comm(k) == "wireplumber"]
            self.dbus_pid = next((k for k in kids if _comm(k) == "dbus-daemon"), self.dbus_pid)
            if wp:
                self.wireplumber_pid = wp[0]
                break
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stops WirePlumber, then PipeWire (SIGTERM, SIGKILL after 5 s), then the D-Bus session:
        dbus-run-session stops its dbus-daemon once WirePlumber has exited, but not when it is
        signalled itself, so it is given that time first and its daemon is stopped by pid after."""
        procs = []
        if self.wireplumber_pid and _alive(self.wireplumber_pid) and _comm(self.wireplumber_pid) == "wireplumber":
            os.kill(self.wireplumber_pid, signal.SIGTERM)
        if self.session is not None:
            try:
                self.session.wait(5)
            except subprocess.TimeoutExpired:
                pass
        for p in (self.pipewire, self.session):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                procs.append(p)
        for p in procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        if self.wireplumber_pid and _alive(self.wireplumber_pid) and _comm(self.wireplumber_pid) == "wireplumber":
            os.kill(self.wireplumber_pid, signal.SIGKILL)
        if self.dbus_pid and _alive(self.dbus_pid) and _comm(self.dbus_pid) == "dbus-daemon":
            os.kill(self.dbus_pid, signal.SIGTERM)
        self.pipewire = self.session = None
        self.wireplumber_pid = self.dbus_pid = None

    def kill_server(self) -> None:
        """Stops PipeWire alone (SIGTERM), as a crash or `systemctl --user restart` would;
        WirePlumber follows it out, and stop() cleans up."""
        if self.pipewire is not None and self.pipewire.poll() is None:
            self.pipewire.send_signal(signal.SIGTERM)
            self.pipewire.wait(5)
        self.stop()

    def _run(self, *cmd: str, timeout: float = 10) -> subprocess.CompletedProcess:
        return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, env=self.env())

    def ports(self) -> list[str]:
        return [l.strip() for l in self._run("jack_lsp").stdout.splitlines() if l.strip()]

    def connections(self) -> dict[str, list[str]]:
        return parse_connections(self._run("jack_lsp", "-c").stdout)

    def setting(self, key: str, value) -> None:
        """pw-metadata -n settings 0 KEY VALUE (clock.force-rate, clock.force-quantum)."""
        env = self._server_env()
        out = subprocess.run(["pw-metadata", "-n", "settings", "0", key, str(value)], capture_output=True,
                             text=True, timeout=10, env=env)
        if out.returncode != 0:
            raise RuntimeError(f"pw-metadata {key} {value}: {out.stderr.strip()}")
