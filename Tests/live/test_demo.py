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


def _hints(text: str) -> list[str]:
    """The commands the demo prints to try, comments and indentation stripped."""
    block = text.split("Try, in another terminal:", 1)[1].split("Ctrl-C stops rack", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_every_hint_the_demo_prints_works_from_another_terminal(tmp_path):
    """With no JACK server and no PipeWire running, the demo starts a private server; every
    command it then prints is run here as another terminal would run it (a fresh environment
    without the demo's JACK_DEFAULT_SERVER), and does what its comment says."""
    binary = livelib.REPO / ".build" / "release" / "rack"
    if not binary.exists() or not _build_is_current(binary):
        pytest.fail("the release build is missing or older than the sources: build it before the live tests "
                    "(scripts/test does)", pytrace=False)
    base = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "JACK_DEFAULT_SERVER", "RACK_BIN")}
    runtime = tmp_path / "run"   # no PipeWire socket here: the demo does not find one
    runtime.mkdir(mode=0o700)
    base.update(XDG_RUNTIME_DIR=str(runtime), HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    log = tmp_path / "demo.log"
    with open(log, "w") as out:
        demo = subprocess.Popen([str(DEMO)], cwd=livelib.REPO, env=base, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    oscdump = None
    try:
        assert wait_until(lambda: "Ctrl-C stops rack" in log.read_text() or demo.poll() is not None, 180), log.read_text()
        text = log.read_text()
        assert demo.poll() is None, text
        assert "started a private JACK server" in text, text
        hints = _hints(text)
        lsp, sends = hints[0], [h for h in hints if h.startswith("oscsend ")]
        assert lsp.endswith("jack_lsp") and "JACK_DEFAULT_SERVER=rack-demo-" in lsp, hints
        listed = subprocess.run(lsp, shell=True, env=base, capture_output=True, text=True, timeout=20)
        assert "rack:out_1" in listed.stdout.split(), f"{lsp}: {listed.stdout}{listed.stderr}"

        port = int(sends[0].split()[2])
        osc = livelib.Osc(port)
        try:
            want = {"/rack/cutoff f 400": ("cutoff", 400), "/rack/cutoff ff 12000 3": ("cutoff", 12000),
                    "/rack/resonance f 12": ("resonance", 12), "/rack/room s cathedral": ("room", "cathedral"),
                    "/rack/mix f 80": ("mix", 80)}
            for hint in sends:
                done = subprocess.run(hint, shell=True, env=base, capture_output=True, text=True, timeout=10)
                assert done.returncode == 0, f"{hint}: {done.stderr}"
                message = hint.split(None, 3)[3]
                if message in want:
                    name, value = want[message]
                    same = (lambda v: v == value) if isinstance(value, str) else (lambda v: livelib.close_to(v, value))
                    assert wait_until(lambda: same(osc.get(name)), 5), f"{hint}: {name} is {osc.get(name)}"
                elif message == "/rack/preset s Warm":
                    assert wait_until(lambda: osc.request_all("/rack/dump")[-1].args == ["Warm"], 5), hint
                else:
                    pytest.fail(f"a hint this test does not know: {hint}")

            tour = next(h for h in hints if h.startswith("scripts/preset-tour"))
            touring = subprocess.Popen(tour, shell=True, cwd=livelib.REPO, env=base, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
            # It walks the factory presets in rack's numbering (name order); the second comes 4 s
            # after the first.
            second = sorted(p.stem for p in (livelib.REPO / "Presets").glob("*.json"))[1]
            try:
                assert wait_until(lambda: osc.request_all("/rack/dump")[-1].args == [second], 10), (tour, second)
            finally:
                os.killpg(touring.pid, signal.SIGTERM)
                touring.wait(5)

            watch = next(h for h in hints if h.startswith("oscdump "))
            # on a terminal, as a person runs it (oscdump buffers its lines when not on one)
            terminal, screen = os.openpty()
            oscdump = subprocess.Popen(watch, shell=True, env=base, stdout=screen, stderr=screen,
                                       start_new_session=True)
            os.close(screen)
            os.set_blocking(terminal, False)
            shown = bytearray()
            looks = iter(range(10_000))

            def seen() -> bool:   # a change a look, until one is shown (the subscription is made by then)
                osc.send("/rack/mix", 30.0 + next(looks) % 20)
                try:
                    shown.extend(os.read(terminal, 65536))
                except (BlockingIOError, OSError):
                    pass
                return b"/rack/mix" in shown

            assert wait_until(seen, 5), f"{watch}: {shown.decode(errors='replace')}"
            os.close(terminal)
        finally:
            osc.close()
    finally:
        if oscdump is not None:
            os.killpg(oscdump.pid, signal.SIGTERM)
            oscdump.wait(5)
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGINT)
        try:
            demo.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait(5)
    assert "rack-demo-" not in subprocess.run(["ls", "/dev/shm"], capture_output=True, text=True).stdout, \
        "Ctrl-C left the private JACK server running"
