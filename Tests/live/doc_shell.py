"""The shell that runs the documentation's examples (test_doc_examples.py): each line as written,
in a temporary directory, with only what must be substituted substituted.

- The directory holds `.build/release/rack` (a link to the binary under test), `Examples` (a link
  to the repository's), `scripts/NAME` (each runs the repository's script) and the inputs the
  examples name: `in.wav`, `in.flac` and `song.flac` (2 s of noise at 48 kHz, 16-bit, from sox).
- PATH starts with a directory holding `rack` (the binary under test); HOME is the directory, so
  `~/.lv2`, `~/.clap` and `~/.local` are in it, and LV2_PATH is its `~/.lv2` alone (a rack.lv2
  installed on the machine cannot answer for it); RACK_BIN names the binary under test (so
  `scripts/install` builds nothing); JACK_DEFAULT_SERVER names the suite's private server.
- The OSC and HTTP ports 8000 and 8001 become the ports of the rack the example talks to (which
  it printed), other ports free ones (`ports`); a `rack send` without `--to` is given
  `--to 127.0.0.1:8000`, its default, and the port substituted like the others.
- A line runs through `bash -e -c LINE` with its standard output line-buffered (`stdbuf -oL`, as
  on a terminal), in a session of its own: what it leaves running in the background
  (`oscdump 9999 &`) gets SIGTERM when the example is over. A line that runs until it is stopped
  (`rack run`, `jalv`: "in another terminal") is split as the shell splits it (comments dropped)
  and started on its own, beside the next lines; it gets SIGTERM when the example is over, and
  a rack must then exit 0 (command-line.md).
- A line that builds rack (`swift build`: the tests run the build under test) or installs it
  system-wide (`sudo`) is left out (docs/testing.md).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import livelib

LEFT_OUT = ("swift build", "sudo ")


@dataclass
class Done:
    line: str
    code: int
    out: str
    err: str
    output: Path   # its standard output, which what it left in the background goes on writing


class Shell:
    def __init__(self, root: Path, base_env: dict, binary: Path):
        self.dir = root / "home"
        bindir = root / "bin"
        for d in (self.dir / ".build" / "release", self.dir / "scripts", bindir):
            d.mkdir(parents=True)
        (bindir / "rack").symlink_to(binary)
        (self.dir / ".build" / "release" / "rack").symlink_to(binary)
        (self.dir / "Examples").symlink_to(livelib.REPO / "Examples")
        for script in (livelib.REPO / "scripts").iterdir():
            wrapper = self.dir / "scripts" / script.name
            wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(str(script))} "$@"\n')
            wrapper.chmod(0o755)
        self.own = {"PATH": f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(self.dir),
                    "XDG_CONFIG_HOME": str(self.dir / ".config"), "LV2_PATH": str(self.dir / ".lv2"),
                    "RACK_BIN": str(binary)}
        self.on(base_env)
        self.ports: dict[int, int] = {}
        self.racks: list[livelib.RackProcess] = []
        self.others: list[subprocess.Popen] = []
        self.sessions: list[int] = []
        self.lines_run = 0
        for name in ("in.wav", "in.flac", "song.flac"):
            subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", str(self.dir / name),
                            "synth", "2", "whitenoise", "gain", "-12"], check=True, timeout=30)

    def on(self, base_env: dict) -> None:
        """Runs the next lines in `base_env` (a server's clients' environment) with the shell's own."""
        self.env = {k: v for k, v in base_env.items() if k not in ("RACK_PRESETS", "LD_PRELOAD")}
        self.env.update(self.own)

    def talk_to(self, rack: livelib.RackProcess) -> None:
        """Ports 8000 and 8001 in the next lines are `rack`'s OSC and HTTP ports."""
        self.ports[8000], self.ports[8001] = rack.osc_port, rack.http_port

    def substituted(self, line: str) -> str:
        code, hash_, comment = line.partition(" #")
        if re.match(r"^\s*rack send\b", code) and "--to" not in code:
            code = code.rstrip() + " --to 127.0.0.1:8000"
        line = code + hash_ + comment
        for port, real in self.ports.items():
            line = re.sub(rf"\b{port}\b", str(real), line)
        return line

    def run(self, line: str, timeout: float = 60, status: int = 0) -> Done:
        """Runs one line; asserts its exit status."""
        assert not line.startswith(LEFT_OUT), line
        text = self.substituted(line)
        self.lines_run += 1
        out, err = self.dir / f".line{self.lines_run}.out", self.dir / f".line{self.lines_run}.err"
        with open(out, "w") as o, open(err, "w") as e:
            p = subprocess.Popen(["stdbuf", "-oL", "bash", "-e", "-c", text], cwd=self.dir, env=self.env,
                                 stdin=subprocess.DEVNULL, stdout=o, stderr=e, start_new_session=True)
            self.sessions.append(p.pid)
            p.wait(timeout)
        done = Done(text, p.returncode, out.read_text(), err.read_text(), out)
        assert done.code == status, f"{text}: exit {done.code}, not {status}\n{done.out}{done.err}"
        return done

    def left_out(self, line: str) -> None:
        assert line.startswith(LEFT_OUT), f"{line!r} is run here, or is left out by a rule of docs/testing.md"

    def _argv(self, line: str) -> tuple[Path, list[str]]:
        argv = shlex.split(self.substituted(line), comments=True)
        program = self.dir / argv[0] if "/" in argv[0] else shutil.which(argv[0], path=self.env["PATH"])
        assert program, f"{argv[0]} not found"
        return Path(program), argv[1:]

    def start_rack(self, line: str, timeout: float = 20) -> livelib.RackProcess:
        """Starts a line that runs rack (`rack run`, `pw-jack rack run`) and waits for its ready lines."""
        program, args = self._argv(line)
        rack = livelib.RackProcess(args, self.env, program, subcommand=None, cwd=self.dir)
        self.racks.append(rack)
        return rack.wait_ready(timeout)

    def start(self, line: str, path: Path) -> subprocess.Popen:
        """Starts a line that runs until stopped, its console a pipe, its output (line-buffered)
        into `path`."""
        program, args = self._argv(line)
        with open(path, "w") as log:
            p = subprocess.Popen(["stdbuf", "-oL", str(program), *args], cwd=self.dir, env=self.env, stdin=subprocess.PIPE,
                                 stdout=log, stderr=subprocess.STDOUT, text=True)
        self.others.append(p)
        return p

    def close(self) -> None:
        """Stops what the example left running; a rack must exit 0 on SIGTERM."""
        for p in self.others:
            if p.poll() is None:
                p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        for pgid in self.sessions:
            try:
                os.killpg(pgid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        codes = [(rack.describe(), rack.stop()) for rack in self.racks]
        bad = [f"{described} exited with {code}" for described, code in codes if code != 0]
        assert bad == [], "a rack did not exit 0 on SIGTERM: " + "; ".join(bad)


def frames(path: Path) -> int:
    return int(subprocess.run(["soxi", "-s", str(path)], capture_output=True, text=True, timeout=30, check=True).stdout)


def soxi(flag: str, path: Path) -> str:
    return subprocess.run(["soxi", flag, str(path)], capture_output=True, text=True, timeout=30, check=True).stdout.strip()


def samples(path: Path):
    """The file's samples, mixed to mono, as float32 (sox)."""
    import numpy as np

    raw = subprocess.run(["sox", str(path), "-t", "f32", "-c", "1", "-"], capture_output=True, timeout=30, check=True).stdout
    return np.frombuffer(raw, dtype=np.float32)


def commands(block: livelib.CodeBlock) -> list[str]:
    """The block's lines that are commands: not blank, not a comment alone."""
    return [line for line in block.lines if line.strip() and not line.lstrip().startswith("#")]


def ramp_seconds(meters: livelib.Osc, run) -> float:
    """How long the ramp that `run()` starts lasts, from /rack/meter pushes to `meters` (15 a
    second, i:ramping last): from the moment `run` returns to the first push saying no ramp runs
    after one saying a ramp runs."""
    meters.send("/rack/meter")
    livelib.wait_ramps_over(meters)
    run()
    sent, ramping = time.monotonic(), False
    while time.monotonic() < sent + 10:
        m = meters.wait_for("/rack/meter", 1.0)
        assert m is not None, "no /rack/meter push within 1 s"
        ramping = ramping or m.args[-1] == 1
        if ramping and m.args[-1] == 0:
            return m.received - sent
    raise AssertionError("the ramp did not end within 10 s")
