"""The systemd user unit (share/systemd/user/rack.service) as systemd would run it, without a
user manager: its ExecStart line, with the placeholders scripts/install fills and the options of
the example environment file, run as the unit runs it.

- Under PipeWire (a private, headless one) with no LD_LIBRARY_PATH and no edits: rack joins it;
  with jackd running (a private one), rack joins jackd.
- With no server at all: it waits with a growing delay (1 s doubling to 60 s; shortened here
  through RACK_RETRY_FIRST_SECONDS / RACK_RETRY_MAX_SECONDS) instead of exiting for systemd to
  restart it every few seconds forever; SIGTERM ends the wait at once, with status 0.
- Crash loops (any other failure) are bounded by the unit's start limit."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

import livelib

UNIT_DIR = livelib.REPO / "share" / "systemd" / "user"


def unit_entries(text: str) -> dict[str, str]:
    """KEY=VALUE lines of a unit file (the last of each key wins, as for these keys in systemd)."""
    entries = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, value = line.split("=", 1)
            entries[key.strip()] = value.strip()
    return entries


def installed_unit(rack_binary) -> str:
    """The unit as scripts/install writes it, for this build's binary and this tree's helper."""
    text = (UNIT_DIR / "rack.service").read_text()
    return text.replace("@BINDIR@", str(rack_binary.parent)).replace("@LIBEXECDIR@", str(UNIT_DIR))


def exec_start(rack_binary, options: str) -> list[str]:
    """The unit's ExecStart as systemd runs it: $RACK_OPTIONS split on white space."""
    line = unit_entries(installed_unit(rack_binary))["ExecStart"]
    words = []
    for word in shlex.split(line):
        words += options.split() if word == "$RACK_OPTIONS" else [word]
    return words


def service_env(runtime, xdg, **extra) -> dict:
    """The environment of a user service: no JACK, PipeWire or linker variables of the test run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JACK_", "PIPEWIRE_", "LD_LIBRARY_PATH"))}
    env.update(XDG_RUNTIME_DIR=str(runtime), XDG_CONFIG_HOME=str(xdg))
    env.update(extra)
    return env


def test_the_unit_verifies_and_bounds_restarts(rack_binary, tmp_path):
    entries = unit_entries(installed_unit(rack_binary))
    assert entries["Restart"] == "on-failure"
    # A crash loop ends: the start limit is reached before the restart delay spreads the bursts
    # over the interval (the unit of before: 20 starts in 60 s, 3 s apart: never reached).
    burst, interval, delay = (int(entries[k]) for k in ("StartLimitBurst", "StartLimitIntervalSec", "RestartSec"))
    assert burst * delay < interval, entries
    assert (delay, burst, interval) == (10, 5, 300), f"the README: restarted 10 s later, at most 5 times in 5 minutes: {entries}"
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed")
    unit = tmp_path / "rack.service"
    unit.write_text(installed_unit(rack_binary))
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=30)
    problems = [l for l in verify.stderr.splitlines() if l.strip() and "man rack(1)" not in l]
    assert problems == [], verify.stderr


def test_the_unit_joins_pipewire_without_edits(rack_binary, own_pipewire, tmp_path):
    runtime = own_pipewire.runtime
    options = unit_entries((UNIT_DIR / "rack.env.example").read_text())["RACK_OPTIONS"]
    options = options.replace("--osc-port 8000", "--osc-port 0") + " --http-port 0"
    command = exec_start(rack_binary, options)
    service = livelib.RackProcess(command[1:], service_env(runtime, tmp_path / "xdg"), binary=command[0],
                                  subcommand=None)
    try:
        service.wait_ready(timeout=30)
        assert service.server and service.server.startswith("PipeWire"), service.describe()
        assert livelib.wait_until(lambda: any(p.startswith(service.client_name + ":") for p in own_pipewire.ports()),
                                  timeout=10), own_pipewire.ports()
    finally:
        code = service.stop()
    assert code == 0, service.describe()


def test_the_unit_joins_jackd(rack_binary, jack, tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    command = exec_start(rack_binary, "--name svc --osc-port 0 --http-port 0")
    service = livelib.RackProcess(command[1:], service_env(runtime, tmp_path / "xdg", JACK_DEFAULT_SERVER=jack.name),
                                  binary=command[0], subcommand=None)
    try:
        service.wait_ready(timeout=30)
        assert service.server and service.server.startswith("JACK"), service.describe()
        assert any(p.startswith(service.client_name + ":") for p in jack.ports()), jack.ports()
    finally:
        code = service.stop()
    assert code == 0, service.describe()


def test_with_no_server_it_waits_longer_each_time_and_stops_at_once(rack_binary, tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = service_env(runtime, tmp_path / "xdg", RACK_RETRY_FIRST_SECONDS="0.2", RACK_RETRY_MAX_SECONDS="0.8",
                      JACK_DEFAULT_SERVER=f"rack-none-{os.getpid()}")
    command = exec_start(rack_binary, "--osc-port 0 --http-port 0")
    service = livelib.RackProcess(command[1:], env, binary=command[0], subcommand=None)
    seen: list[tuple[float, str]] = []

    def waits() -> list[str]:
        lines = [l for l in service.stdout if "trying again" in l]
        while len(seen) < len(lines):
            seen.append((time.monotonic(), lines[len(seen)]))
        return lines

    try:
        assert livelib.wait_until(lambda: len(waits()) >= 5, timeout=30), service.describe()
    finally:
        code = service.stop()
    delays = [float(re.search(r"in ([0-9.]+) s", line).group(1)) for _, line in seen[:5]]
    assert delays == [0.2, 0.4, 0.8, 0.8, 0.8], service.describe()
    # Each try comes no sooner than its announced delay.
    for (t0, _), (t1, _), delay in zip(seen, seen[1:], delays):
        assert t1 - t0 >= delay - 0.05, (seen, delays)
    assert code == 0, service.describe()

    # The defaults the README gives: 1 s, then 2 s (doubling up to 60 s, the helper's default cap).
    env = service_env(runtime, tmp_path / "xdg", JACK_DEFAULT_SERVER=f"rack-none-{os.getpid()}")
    service = livelib.RackProcess(command[1:], env, binary=command[0], subcommand=None)
    try:
        assert livelib.wait_until(lambda: sum("trying again" in l for l in service.stdout) >= 2, timeout=10), \
            service.describe()
    finally:
        service.stop()
    lines = [l for l in service.stdout if "trying again" in l]
    assert [re.search(r"in ([0-9.]+) s", l).group(1) for l in lines[:2]] == ["1", "2"], lines
    helper = (Path(__file__).resolve().parents[2] / "share/systemd/user/rack-service").read_text()
    assert "most=${RACK_RETRY_MAX_SECONDS:-60}" in helper, "the helper's cap is no longer 60 s"

    # A stop during a long wait ends it at once, not after the wait.
    env.update(RACK_RETRY_FIRST_SECONDS="60", RACK_RETRY_MAX_SECONDS="60")
    service = livelib.RackProcess(command[1:], env, binary=command[0], subcommand=None)
    try:
        assert livelib.wait_until(lambda: any("trying again" in l for l in service.stdout), timeout=30), service.describe()
        started = time.monotonic()
        service.proc.send_signal(signal.SIGTERM)
        code = service.wait_exit(10)
        assert code == 0 and time.monotonic() - started < 5, service.describe()
    finally:
        service.stop()
