"""scripts/demo, the README's first command: it installs only what building and running rack
needs, reuses a build that is newer than every source, and on a PipeWire desktop joins
PipeWire's JACK through pw-jack instead of starting a silent private jackd."""
from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

import livelib
from livelib import wait_until

DEMO = livelib.REPO / "scripts" / "demo"
INSTALL_DEPS = livelib.REPO / "scripts" / "install-deps"


def test_the_demo_installs_only_what_rack_needs_to_build_and_run():
    demo = subprocess.run([str(INSTALL_DEPS), "--demo", "--list"], capture_output=True, text=True, timeout=30)
    full = subprocess.run([str(INSTALL_DEPS), "--list"], capture_output=True, text=True, timeout=30)
    assert demo.returncode == 0 and full.returncode == 0, demo.stderr + full.stderr
    wanted, everything = set(demo.stdout.split()), set(full.stdout.split())
    assert {"jackd2", "libjack-jackd2-dev", "liblo-dev", "liblo-tools", "libsndfile1-dev",
            "libsamplerate0-dev", "libavahi-client-dev"} <= wanted
    # the test suite's browser, daemons and Python are not the demo's business
    for test_only in ("chromium", "chromium-driver", "avahi-daemon", "python3-pip", "pipewire", "wireplumber", "sox"):
        assert test_only in everything and test_only not in wanted, test_only


def _build_is_current(binary) -> bool:
    built = binary.stat().st_mtime
    for root in ("Sources", "Presets"):
        for path in (livelib.REPO / root).rglob("*"):
            if path.is_file() and path.stat().st_mtime > built:
                return False
    return (livelib.REPO / "Package.swift").stat().st_mtime <= built


def test_the_demo_joins_pipewire_through_pw_jack_and_reuses_the_build(pipewire, tmp_path):
    binary = livelib.REPO / ".build" / "release" / "rack"
    if not binary.exists() or not _build_is_current(binary):
        pytest.fail("the release build is missing or older than the sources: build it before the live tests "
                    "(scripts/test does)", pytrace=False)
    env = pipewire.env(XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path))
    for key in ("LD_LIBRARY_PATH", "JACK_DEFAULT_SERVER", "RACK_BIN"):
        env.pop(key, None)
    log = tmp_path / "demo.log"
    with open(log, "w") as out:
        demo = subprocess.Popen([str(DEMO)], cwd=livelib.REPO, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert wait_until(lambda: "Ctrl-C stops rack" in log.read_text() or demo.poll() is not None, 120), log.read_text()
        text = log.read_text()
        assert demo.poll() is None, text
        assert "using the current build" in text and "building rack" not in text, text
        assert "using PipeWire's JACK server (through pw-jack)" in text, text
        assert "started a private JACK server" not in text, text
        assert wait_until(lambda: "rack:out_1" in pipewire.ports(), 10), pipewire.ports()
        # the demo's rack plays into PipeWire's graph: --connect wired it to the sink
        assert wait_until(lambda: any(p.endswith(":playback_FL") for p in pipewire.connections().get("rack:out_1", [])), 10), \
            pipewire.connections()
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGINT)
        try:
            demo.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait(5)
    assert wait_until(lambda: "rack:out_1" not in pipewire.ports(), 10), "Ctrl-C stopped the demo's rack"
