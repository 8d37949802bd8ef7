"""Defaults the README states, measured from outside with `rack render` (offline, the same
engine): a room change without a crossfade time crossfades over the README's default, and a
longer one is cut to the README's cap. Each figure is read from the README's parameter table."""
from __future__ import annotations

import re
import subprocess

import livelib

README = livelib.documentation()


def room_row() -> tuple[float, float]:
    """(default crossfade, longest crossfade) in seconds from the README's `room` row."""
    m = re.search(r"^\| `room` \|.*\| (\d+) ms crossfade \(at most (\d+) ms\) \|", README, re.MULTILINE)
    assert m, "the README's parameter table no longer gives the room's crossfade"
    return int(m.group(1)) / 1000, int(m.group(2)) / 1000


def render(rack_binary, tmp_path, source, script: str, tag: str) -> bytes:
    automation = tmp_path / f"{tag}.txt"
    automation.write_text(script)
    out = tmp_path / f"{tag}.wav"
    r = subprocess.run([str(rack_binary), "render", str(source), str(out), "--automation", str(automation),
                        "--format", "float"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # The samples, not the file: libsndfile's PEAK chunk holds the time of writing, so two
    # renders that straddle a second differ in their headers.
    return subprocess.run(["sox", str(out), "-t", "f32", "-"], capture_output=True, check=True, timeout=60).stdout


def test_room_changes_crossfade_over_the_readme_default_and_cap(rack_binary, tmp_path):
    default, longest = room_row()
    source = tmp_path / "noise.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "floating-point", str(source),
                    "synth", "1.5", "pinknoise", "gain", "-10"], check=True, timeout=60)
    unsaid = render(rack_binary, tmp_path, source, "0.5 /rack/room plate\n", "unsaid")
    said = render(rack_binary, tmp_path, source, f"0.5 /rack/room plate {default}\n", "said")
    shorter = render(rack_binary, tmp_path, source, f"0.5 /rack/room plate {default / 2}\n", "shorter")
    assert unsaid == said, f"a room change without a time does not crossfade over {default} s"
    assert said != shorter, "the crossfade time makes no difference to the output (the check could not fail)"
    capped = render(rack_binary, tmp_path, source, f"0.5 /rack/room plate {longest * 2}\n", "capped")
    at_cap = render(rack_binary, tmp_path, source, f"0.5 /rack/room plate {longest}\n", "at_cap")
    below = render(rack_binary, tmp_path, source, f"0.5 /rack/room plate {longest * 0.75}\n", "below")
    assert capped == at_cap, f"a crossfade of {longest * 2} s is not cut to {longest} s"
    assert at_cap != below


def test_an_out_of_range_set_is_clamped_applied_and_warned_about(rack_binary, tmp_path):
    """The README: out-of-range values are clamped, applied, and reported (a warning on the
    command line): `--set gain=40` renders at +12 dB (the range's top) with one warning, exit 0."""
    import numpy as np

    source = tmp_path / "tone.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "floating-point", str(source),
                    "synth", "1", "sine", "440", "gain", "-30"], check=True, timeout=60)
    out = tmp_path / "loud.wav"
    r = subprocess.run([str(rack_binary), "render", str(source), str(out), "--set", "gain=40", "--set", "mix=0",
                        "--format", "float"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    warnings = [l for l in r.stderr.splitlines() if "clamped to 12" in l]
    assert len(warnings) == 1 and "warning" in warnings[0], r.stderr

    def rms(path):
        raw = tmp_path / (path.stem + ".f32")
        subprocess.run(["sox", str(path), "-t", "f32", str(raw)], check=True, timeout=60)
        x = np.fromfile(raw, dtype=np.float32).astype(np.float64)[48000:]   # past the gain's first ramp
        return float(np.sqrt(np.mean(x ** 2)))

    gain_db = 20 * np.log10(rms(out) / rms(source))
    assert abs(gain_db - 12) < 0.05, f"rendered {gain_db:.3f} dB above the input, not the clamped 12 dB"


def test_preset_save_time_is_printed(rack_factory, osc_factory):
    """A benchmark for the README's save time (a write and two fsyncs): 20 saves over OSC, each
    timed from the save to the answer of a /ping sent after it in the same packet order (the
    control thread writes the file before it reads the ping). Asserted only loosely (each under
    a second); the median and the worst are printed."""
    import statistics
    import time

    rack = rack_factory()
    osc = osc_factory(rack.osc_port)
    assert osc.ping()
    times = []
    for i in range(20):
        t0 = time.monotonic()
        osc.send("/rack/preset/save", f"bench{i}")
        assert osc.ping(), "no /pong after a save"
        times.append(time.monotonic() - t0)
    for i in range(20):
        osc.send("/rack/preset/delete", f"bench{i}")
        assert osc.ping()
    print(f"preset save + /ping round trip: median {statistics.median(times) * 1000:.1f} ms, "
          f"worst {max(times) * 1000:.1f} ms of 20")
    assert max(times) < 1.0, times


def test_control_ticks_every_32_samples_on_absolute_positions(rack_binary, tmp_path):
    """The README: parameters are evaluated at control ticks every 32 samples on absolute
    positions and interpolated linearly inside. A gain ramp linear in dB (−60 → 0 dB over
    20 ms, from sample 4,814: not on a tick) on DC is a chain of straight lines in the output:
    its second difference is non-zero exactly at the multiples of 32 inside the ramp, at every one
    of them, and nowhere else (the ramp's first tick and its end aside)."""
    import numpy as np

    m = re.search(r"ticks every (\d+) samples", README)
    assert m, "the README no longer gives the control tick"
    tick = int(m.group(1))
    source = tmp_path / "dc.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "floating-point", str(source),
                    "synth", "0.2", "sine", "0", "dcshift", "0.5"], check=True, timeout=60)
    automation = tmp_path / "ramp.txt"
    automation.write_text("0.1003 /rack/gain 0 0.02\n")   # frame 4,814.4 -> 4,814
    out = tmp_path / "out.wav"
    r = subprocess.run([str(rack_binary), "render", str(source), str(out), "--set", "gain=-60", "--set", "mix=0",
                        "--automation", str(automation), "--format", "float"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    raw = tmp_path / "out.f32"
    subprocess.run(["sox", str(out), "-t", "f32", str(raw)], check=True, timeout=60)
    x = np.fromfile(raw, dtype=np.float32).reshape(-1, 2)[:, 0].astype(np.float64)
    kink = np.abs(np.diff(x, 2)) / np.abs(x[1:-1]) > 1e-4   # kink[i]: a bend at sample i + 1
    start, end = 4814, 4814 + 960
    inner = np.arange(start + 2 * tick - start % tick, end - 2 * tick)   # from the second tick on
    bent = inner[kink[inner - 1]]
    print(f"gain ramp: bends at {len(bent)} samples inside, spaced {sorted(set(np.diff(bent)))}")
    assert len(bent) > 10, "no bends: the measure cannot see the ticks"
    assert set(bent % tick) == {0}, f"bends off the {tick}-sample grid: {bent[bent % tick != 0][:10]}"
    assert list(bent) == list(inner[inner % tick == 0]), "a tick without a bend: ticks further apart than the README's"
