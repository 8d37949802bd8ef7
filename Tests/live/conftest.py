"""Fixtures of the live suite: a private headless JACK server for the session, rack processes
with a free OSC port and a private XDG_CONFIG_HOME, OSC clients on bound UDP sockets, and the
C helpers (jackrec, librtprobe.so, probe_selftest) compiled once per session.

Every process a test starts is stopped by its pid when the test ends, pass or fail.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import livelib  # noqa: E402
from livelib import Osc, RackProcess  # noqa: E402

_names = itertools.count(1)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


def _failed(request) -> bool:
    rep = getattr(request.node, "rep_call", None)
    return rep is None or rep.failed


@pytest.fixture(scope="session")
def rack_binary() -> Path:
    path = livelib.rack_bin()
    if not path.exists():
        pytest.fail(f"rack binary not found at {path} (build it, or set RACK_BIN)")
    return path


@pytest.fixture(scope="session")
def helpers(tmp_path_factory) -> dict:
    return livelib.build_helpers(tmp_path_factory.mktemp("bin"))


@pytest.fixture(scope="session")
def jack():
    """The session's server (a module may override it: test_record.py), with a bystander on it
    for the whole session: another vendor's client (jack_simple_client: its sine on the system
    playback ports, as on a studio's server) with a JACK metadata property on its port. No test
    may depend on what else runs on the server or is in its metadata."""
    with livelib.Jack.started(f"rack-test-{os.getpid()}", 48000, 256) as server:
        with bystander(server):
            yield server


@contextlib.contextmanager
def bystander(server):
    client = subprocess.Popen(["jack_simple_client"], env=server.env(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert livelib.wait_until(lambda: "jack_simple_client:output1" in server.ports(), 10), \
            f"the bystander client did not join: {server.ports()}"
        subprocess.run(["jack_property", "-p", "-s", "jack_simple_client:output1", "http://jackaudio.org/metadata/pretty-name",
                        "a bystander's tone"], env=server.env(), capture_output=True, timeout=10, check=True)
        yield client
    finally:
        client.terminate()
        try:
            client.wait(5)
        except subprocess.TimeoutExpired:
            client.kill()
            client.wait(5)


@pytest.fixture
def xdg(tmp_path) -> Path:
    d = tmp_path / "xdg"
    d.mkdir()
    return d


@pytest.fixture
def rack_factory(request, jack, xdg, rack_binary):
    """start(*args, name=None, env=None, wait=True): a rack on the session server with
    --osc-port 0 and a unique client name unless args give them."""
    started: list[RackProcess] = []

    def start(*args, name: str | None = None, env: dict | None = None, wait: bool = True,
              osc_port: bool = True) -> RackProcess:
        args = list(args)
        if "--name" not in args:
            args += ["--name", name or f"rk{next(_names)}"]
        if osc_port and "--osc-port" not in args:
            args += ["--osc-port", "0"]
        full_env = jack.env(XDG_CONFIG_HOME=str(xdg))
        if env:
            full_env.update(env)
        rack = RackProcess(args, full_env, rack_binary)
        started.append(rack)
        if wait:
            rack.wait_ready()
        return rack

    yield start
    unclean = []
    for rack in started:
        running = rack.proc.poll() is None
        t0 = time.monotonic()
        code = rack.stop()
        if running and code != 0:
            unclean.append(f"rack pid {rack.pid} " + ("did not exit within 5 s of SIGTERM (killed)"
                           if code is None else f"exited with {code} on SIGTERM")
                           + f" after {time.monotonic() - t0:.1f} s")
        if _failed(request) or (running and code != 0):
            print(f"--- rack pid {rack.pid} (exit {code}):\n{rack.describe()}")
    if unclean:
        pytest.fail("; ".join(unclean), pytrace=False)


@pytest.fixture
def rack(rack_factory) -> RackProcess:
    return rack_factory()


@pytest.fixture
def osc_factory():
    clients: list[Osc] = []

    def make(port: int) -> Osc:
        c = Osc(port)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


@pytest.fixture
def osc(rack, osc_factory) -> Osc:
    return osc_factory(rack.osc_port)


# --------------------------------------------------------------------------------------------
# The PipeWire lane: the same rack against a private headless PipeWire (test_pipewire.py)


def _pipewire_or_skip(root):
    missing = livelib.pipewire_missing()
    if missing:
        if os.environ.get("RACK_REQUIRE_PIPEWIRE") == "1":   # the PipeWire lane of scripts/test
            pytest.fail(f"PipeWire lane: {', '.join(missing)} not installed", pytrace=False)
        pytest.skip(f"PipeWire lane: {', '.join(missing)} not installed (scripts/install-deps)")
    return livelib.PipeWire(root).start()


@pytest.fixture(scope="session")
def pipewire(tmp_path_factory):
    """One private PipeWire (with WirePlumber) for the tests that leave it as they found it."""
    pw = _pipewire_or_skip(tmp_path_factory.mktemp("pipewire"))
    try:
        yield pw
    finally:
        pw.stop()


@pytest.fixture
def own_pipewire(tmp_path):
    """A private PipeWire for one test (rate changes, restarts)."""
    pw = _pipewire_or_skip(tmp_path / "pw")
    try:
        yield pw
    finally:
        pw.stop()


def _pw_factory(request, pw, xdg, rack_binary):
    started: list[RackProcess] = []

    def start(*args, name: str | None = None, env: dict | None = None, wait: bool = True) -> RackProcess:
        args = list(args)
        if "--name" not in args:
            args += ["--name", name or f"pw{next(_names)}"]
        if "--osc-port" not in args:
            args += ["--osc-port", "0"]
        full_env = pw.env(XDG_CONFIG_HOME=str(xdg))
        if env:
            full_env.update(env)
        rack = RackProcess(args, full_env, rack_binary)
        started.append(rack)
        if wait:
            rack.wait_ready(timeout=20)
        return rack

    return start, started


def _stop_all(request, started):
    unclean = []
    for rack in started:
        running = rack.proc.poll() is None
        code = rack.stop()
        if running and code != 0:
            unclean.append(f"rack pid {rack.pid} exited with {code} on SIGTERM")
        if _failed(request) or (running and code != 0):
            print(f"--- rack pid {rack.pid} (exit {code}):\n{rack.describe()}")
    if unclean:
        pytest.fail("; ".join(unclean), pytrace=False)


@pytest.fixture
def pw_rack_factory(request, pipewire, xdg, rack_binary):
    start, started = _pw_factory(request, pipewire, xdg, rack_binary)
    yield start
    _stop_all(request, started)


@pytest.fixture
def own_pw_rack_factory(request, own_pipewire, xdg, rack_binary):
    start, started = _pw_factory(request, own_pipewire, xdg, rack_binary)
    yield start
    _stop_all(request, started)
