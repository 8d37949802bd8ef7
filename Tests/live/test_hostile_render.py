"""Interrupted renders: SIGINT, SIGTERM or SIGHUP during `rack render` used to leave
the hidden temp file (hundreds of MB) beside the output for good. Now the temp file goes with the
process, which dies of the signal (a shell reports 130, 143, 129), and the next render into the
directory removes what an older or killed render left (files of rack's own naming that no running
render holds)."""
from __future__ import annotations

import fcntl
import os
import signal
import subprocess
from pathlib import Path

import pytest

from livelib import wait_until


def temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".rack-tmp-" in p.name)


@pytest.fixture
def tone(tmp_path) -> Path:
    path = tmp_path / "in" / "tone.wav"
    path.parent.mkdir()
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", str(path), "synth", "1", "sine", "440"], check=True)
    return path


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_stopped_render_leaves_no_temp_file(rack_binary, tone, tmp_path, stop):
    out = tmp_path / "out"
    out.mkdir()
    # An hour of tail: minutes of work, stopped as soon as the temp file exists.
    proc = subprocess.Popen([str(rack_binary), "render", str(tone), str(out / "long.wav"), "--tail", "3600"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert wait_until(lambda: temp_files(out), timeout=10), "the render never started writing"
        assert wait_until(lambda: (out / temp_files(out)[0]).stat().st_size > 1_000_000, timeout=10)
        proc.send_signal(stop)
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == -stop, f"exit {code}: {proc.stderr.read()!r}"   # the shell's 128 + signal
    assert os.listdir(out) == [], os.listdir(out)


def test_the_next_render_removes_stale_temp_files_and_only_those(rack_binary, tone, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    stale = [out / ".old.wav.rack-tmp-AbC123", out / ".other take.flac.rack-tmp-zz9ZZ9"]
    for path in stale:
        path.write_bytes(b"\0" * 4096)
    kept = [out / ".preset.json.rack-tmp-AbC123",   # not an audio file's: not a render's
            out / ".x.wav.rack-tmp-toolong1",         # not rack's naming
            out / "x.wav.rack-tmp-AbC123"]            # not hidden: not rack's naming
    for path in kept:
        path.write_bytes(b"keep")
    busy = out / ".busy.wav.rack-tmp-Busy00"        # a render still writing holds its lock
    busy.write_bytes(b"busy")
    with open(busy, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        result = subprocess.run([str(rack_binary), "render", str(tone), str(out / "new.wav")],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert not any(path.exists() for path in stale)
    assert all(path.exists() for path in kept) and busy.exists()
    assert (out / "new.wav").stat().st_size > 0
    for path in stale:
        assert f"removed '{path}'" in result.stderr, result.stderr
