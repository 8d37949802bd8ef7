"""`rack render` in a shell pipeline, as sox and ffmpeg are used: `-` reads standard input and
writes standard output (`--type` names the container), a render into a pipe streams (its memory
does not grow with the file), a reader that goes away ends the render with one line and status
74; and float WAVs that sox reads without a warning."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest


def sox(*args: str) -> None:
    subprocess.run(["sox", *args], check=True, capture_output=True)


def samples(path: Path) -> np.ndarray:
    """The file's samples as float32, decoded by sox (a reader that is not rack)."""
    raw = subprocess.run(["sox", str(path), "-t", "f32", "-e", "floating-point", "-"], check=True,
                         capture_output=True).stdout
    return np.frombuffer(raw, dtype="<f4")


def sh(command: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", "set -o pipefail; " + command], capture_output=True, text=True, **kw)


@pytest.fixture
def tone(tmp_path) -> Path:
    path = tmp_path / "tone.wav"
    sox("-n", "-r", "48000", "-c", "2", "-b", "16", str(path), "synth", "1.5", "sine", "300-3000", "gain", "-3")
    return path


SETTINGS = ["--set", "cutoff=2500", "--set", "mix=40", "--tail", "0.5"]


def test_standard_input_renders_as_the_file_does(rack_binary, tone, tmp_path):
    rack = str(rack_binary)
    subprocess.run([rack, "render", str(tone), str(tmp_path / "ref.wav"), "--format", "float", *SETTINGS],
                   check=True, capture_output=True)
    flac = tmp_path / "tone.flac"
    sox(str(tone), str(flac))
    for source in (tone, flac):
        out = tmp_path / f"from-{source.suffix[1:]}.wav"
        run = sh(f"cat '{source}' | '{rack}' render - '{out}' --format float " + " ".join(SETTINGS))
        assert run.returncode == 0, run.stderr
        assert np.array_equal(samples(out), samples(tmp_path / "ref.wav")), f"{source.name} through a pipe differs"
    # Both ends at once, between two other programs (the README's pipeline).
    both = tmp_path / "both.wav"
    run = sh(f"sox '{flac}' -t wav - | '{rack}' render - - -t wav --format float {' '.join(SETTINGS)} | sox -t wav - '{both}'")
    assert run.returncode == 0, run.stderr
    assert np.array_equal(samples(both), samples(tmp_path / "ref.wav"))
    # Redirected from a file, standard input is read where it is.
    run = sh(f"'{rack}' render - '{tmp_path / 'redir.wav'}' --format float {' '.join(SETTINGS)} < '{tone}'")
    assert run.returncode == 0, run.stderr
    assert np.array_equal(samples(tmp_path / "redir.wav"), samples(tmp_path / "ref.wav"))
    # What is not audio is named as '-'.
    bad = sh(f"echo hello | '{rack}' render - '{tmp_path / 'x.wav'}'")
    assert bad.returncode == 65 and bad.stderr.startswith("rack: cannot read '-': "), bad.stderr
    assert len(bad.stderr.splitlines()) == 1, bad.stderr


@pytest.mark.parametrize("fmt", ["16", "24", "float"])
def test_standard_output_streams_the_render(rack_binary, tone, tmp_path, fmt):
    rack = str(rack_binary)
    ref = tmp_path / "ref.wav"
    subprocess.run([rack, "render", str(tone), str(ref), "--format", fmt, *SETTINGS], check=True, capture_output=True)
    piped, redirected = tmp_path / "piped.wav", tmp_path / "redirected.wav"
    run = sh(f"'{rack}' render '{tone}' - -t wav --format {fmt} {' '.join(SETTINGS)} | cat > '{piped}'")
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("rack: rendered 2.00 s to standard output"), run.stderr
    run = sh(f"'{rack}' render '{tone}' - --type wav --format {fmt} {' '.join(SETTINGS)} > '{redirected}'")
    assert run.returncode == 0, run.stderr
    for out in (piped, redirected):
        assert np.array_equal(samples(out), samples(ref)), f"{out.name} differs from the file render"
        info = subprocess.run(["soxi", str(out)], capture_output=True, text=True)
        assert "WARN" not in info.stderr, info.stderr
        assert "96000 samples" in info.stdout, info.stdout


def test_ogg_streams_and_flac_or_mp3_into_a_pipe_is_refused(rack_binary, tone, tmp_path):
    rack = str(rack_binary)
    run = sh(f"'{rack}' render '{tone}' - -t ogg | cat > '{tmp_path / 'o.ogg'}'")
    assert run.returncode == 0, run.stderr
    assert "72000 samples" in subprocess.run(["soxi", str(tmp_path / "o.ogg")], capture_output=True, text=True).stdout
    flac = sh(f"'{rack}' render '{tone}' - -t flac | cat > /dev/null")
    assert flac.returncode == 73, flac.stderr
    assert flac.stderr.strip() == ("rack: cannot create '-': FLAC cannot be streamed into a pipe; "
                                   "use --type wav or ogg, or redirect to a file"), flac.stderr
    mp3 = sh(f"'{rack}' render '{tone}' - -t mp3 | cat > /dev/null")
    assert mp3.returncode == 73 and "MP3 cannot be streamed into a pipe" in mp3.stderr, mp3.stderr
    run = sh(f"'{rack}' render '{tone}' - -t flac > '{tmp_path / 'r.flac'}'")
    assert run.returncode == 0, run.stderr
    assert "72000 samples" in subprocess.run(["soxi", str(tmp_path / "r.flac")], capture_output=True, text=True).stdout


def test_standard_output_needs_a_type_and_a_type_needs_standard_output(rack_binary, tone, tmp_path):
    rack = str(rack_binary)
    untyped = sh(f"'{rack}' render '{tone}' - | cat > /dev/null")
    assert untyped.returncode == 64, untyped.stderr
    assert untyped.stderr.strip() == "rack: writing to '-' (standard output) needs --type wav, flac, ogg or mp3"
    typed = sh(f"'{rack}' render '{tone}' '{tmp_path / 'o.wav'}' -t flac")
    assert typed.returncode == 64, typed.stderr
    assert "--type is for output - (standard output)" in typed.stderr
    appending = sh(f"'{rack}' render '{tone}' - -t wav >> '{tmp_path / 'a.wav'}'; "
                   f"'{rack}' render '{tone}' - -t wav >> '{tmp_path / 'a.wav'}'")
    assert appending.returncode == 73 and "opened for appending" in appending.stderr, appending.stderr


def test_a_reader_that_goes_away_ends_the_render_with_one_line(rack_binary, tmp_path):
    long = tmp_path / "long.wav"
    sox("-n", "-r", "48000", "-c", "2", "-b", "16", str(long), "synth", "30", "sine", "440")
    for stderr_too in (False, True):
        redirect = "2>&1 " if stderr_too else f"2> '{tmp_path / 'err'}' "
        run = sh(f"'{rack_binary}' render '{long}' - -t wav {redirect}| head -c 100 > /dev/null; "
                 "exit ${PIPESTATUS[0]}")
        assert run.returncode == 74, f"exit {run.returncode}: {run.stderr}"   # not SIGPIPE, not a trap
        if not stderr_too:
            assert (tmp_path / "err").read_text() == "rack: I/O error on '-': write failed: broken pipe\n"


def test_a_render_into_a_pipe_keeps_its_memory_flat(rack_binary, tmp_path):
    """Ten minutes rendered into a pipe take no more memory than one minute (the samples stream:
    the same render held in memory would need 10 × 23 MB more)."""
    peaks = {}
    for minutes in (1, 10):
        source = tmp_path / f"{minutes}.wav"
        sox("-n", "-r", "48000", "-c", "2", "-b", "16", str(source), "synth", str(60 * minutes), "sine", "440")
        measure = ("import resource, subprocess, sys; "
                   "r = subprocess.run(sys.argv[1] + ' | cat > /dev/null', shell=True, executable='/bin/bash'); "
                   "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", measure, f"'{rack_binary}' render '{source}' - -t wav --format float"],
                             check=True, capture_output=True, text=True).stdout.split()
        assert out[0] == "0"
        peaks[minutes] = int(out[1])          # KiB, the largest child: rack
        source.unlink()
    assert peaks[10] - peaks[1] < 8 * 1024, f"peak resident memory {peaks} KiB"
