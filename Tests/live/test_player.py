"""The player over OSC: loading (with resampling), transport, bad files."""
from __future__ import annotations

import os
import subprocess
import time

import numpy as np
import pytest

import livelib


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    d = tmp_path_factory.mktemp("media")
    tone = d / "tone44k.wav"
    subprocess.run(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", str(tone), "synth", "10",
                    "sine", "440", "sine", "660", "gain", "-6"], check=True, timeout=30)
    text = d / "notes.wav"
    text.write_text("this is not audio\n" * 200)
    empty = d / "empty.wav"
    empty.write_bytes(b"")
    fifo = d / "pipe.wav"
    os.mkfifo(fifo)
    return {"tone": tone, "text": text, "empty": empty, "fifo": fifo, "dir": d}


def player_seconds(osc) -> float:
    st = osc.status()
    assert st is not None and st.tags.startswith("iiiffs"), st   # a 7th field (replaced samples) follows
    return st.args[4]


def rate_of_progress(osc, wall: float = 1.0) -> float:
    """Player seconds per wall-clock second over a `wall`-second measuring window."""
    s1, t1 = player_seconds(osc), time.monotonic()
    time.sleep(wall)  # the measuring window itself, not a wait for a state
    s2, t2 = player_seconds(osc), time.monotonic()
    return (s2 - s1) / (t2 - t1)


def wait_position(osc, ok, timeout: float) -> float:
    """Polls `player_seconds` (livelib.wait_until) until `ok` holds or `timeout` passes; the last
    position read."""
    seen = []

    def holds() -> bool:
        seen.append(player_seconds(osc))
        return ok(seen[-1])

    livelib.wait_until(holds, timeout, step=0.005)
    return seen[-1]


def wait_still(osc, timeout: float = 2.0) -> float:
    """Waits until two status reads 50 ms apart give the same position (the player has stopped);
    that position."""
    last = [player_seconds(osc)]

    def still() -> bool:
        time.sleep(0.05)
        pos = player_seconds(osc)
        same, last[0] = pos == last[0], pos
        return same

    assert livelib.wait_until(still, timeout, step=0.0), f"still moving {timeout} s after stop"
    return last[0]


def test_load_resampled_file_play_stop_seek(rack, osc, media):
    err = []
    osc.send("/rack/player/load", str(media["tone"]))
    osc.send("/rack/player/loop", 1)
    osc.send("/rack/player/play")
    assert osc.wait_for("/rack/error", 1.0, err) is None, "load of a valid 44.1 kHz WAV gave /rack/error"
    speed = rate_of_progress(osc)
    assert 0.93 <= speed <= 1.07, (f"player_seconds advanced {speed:.3f} s per second "
                                   "(1.088 or 0.919 would mean 44.1 kHz played at 48 kHz or the reverse)")
    osc.send("/rack/player/stop")
    stopped_at = wait_still(osc)
    assert abs(rate_of_progress(osc, 0.3)) < 0.02, "player_seconds moves while stopped"
    osc.send("/rack/player/play")
    moved = wait_position(osc, lambda p: p > stopped_at, 2.0)
    assert moved > stopped_at, f"player_seconds still at {moved} 2 s after play"
    assert rate_of_progress(osc, 0.3) > 0.8, "player does not resume"
    sent = time.monotonic()
    osc.send("/rack/player/seek", 7.5)
    pos = wait_position(osc, lambda p: p >= 7.5, 2.0)
    # Landed at 7.5 s and played on at most as long as the wall clock ran since the seek.
    assert 7.5 <= pos <= 7.5 + (time.monotonic() - sent) + 0.05, f"after seek 7.5: {pos}"
    sent = time.monotonic()
    osc.send("/rack/player/seek", 9.9)  # loop on: wraps past the end of the 10 s file
    pos = wait_position(osc, lambda p: p < 1.0, 2.0)
    assert pos < 1.0, f"loop on, 2 s after seeking to 9.9 s of a 10 s file: {pos}"
    assert pos <= (time.monotonic() - sent) - 0.1 + 0.05, f"wrapped, but not to the start: {pos}"
    assert osc.ping()


def test_played_file_is_heard_at_the_right_pitch(helpers, jack, rack, osc, media, tmp_path):
    osc.send("/rack/mix", 0.0)
    osc.send("/rack/player/load", str(media["tone"]))
    osc.send("/rack/player/play")
    assert osc.wait_for("/rack/error", 0.5) is None
    pos = wait_position(osc, lambda p: p >= 0.2, 2.0)  # past the 5 ms fade-in, well into the tone
    assert pos >= 0.2, f"not playing: at {pos} s"
    data, rate = livelib.record(helpers["jackrec"], jack.name,
                                [f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"], 1.0,
                                tmp_path / "tone.raw")
    mono = data.mean(axis=1)
    spec = np.abs(np.fft.rfft(mono * np.hanning(len(mono))))
    freqs = np.fft.rfftfreq(len(mono), 1 / rate)
    peak = freqs[np.argmax(spec)]
    assert abs(peak - 440) < 3 or abs(peak - 660) < 3, f"strongest component at {peak:.1f} Hz, want 440/660 (resampling)"


@pytest.mark.parametrize("kind", ["text", "empty", "missing", "dir", "fifo"])
def test_bad_file_is_refused_and_audio_keeps_flowing(helpers, jack, rack, osc, media, tmp_path, kind):
    osc.send("/rack/player/load", str(media["tone"]))
    osc.send("/rack/player/loop", 1)
    osc.send("/rack/player/play")
    assert osc.wait_for("/rack/error", 0.3) is None
    path = {"missing": media["dir"] / "missing.wav", "dir": media["dir"]}.get(kind) or media[kind]
    t0 = time.monotonic()
    err = osc.request("/rack/player/load", str(path), reply="/rack/error", timeout=1.0)
    assert err is not None, f"no /rack/error within 1 s for loading {kind}"
    assert time.monotonic() - t0 <= 1.0
    assert err.args[0] == "/rack/player/load", err
    assert osc.ping(), "rack stopped answering"
    assert rate_of_progress(osc, 0.3) > 0.8, "the previous file must keep playing"
    data, _ = livelib.record(helpers["jackrec"], jack.name,
                             [f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"], 0.5,
                             tmp_path / "after.raw")
    assert np.isfinite(data).all() and np.sqrt((data ** 2).mean()) > 1e-3, "audio stopped"


@pytest.fixture(scope="module")
def short_tones(tmp_path_factory):
    """2 s tones at 48 kHz and at 44.1 kHz (resampled: the converter reads further ahead)."""
    d = tmp_path_factory.mktemp("loopmedia")
    out = {}
    for rate in (48000, 44100):
        path = d / f"tone2s_{rate}.wav"
        subprocess.run(["sox", "-n", "-r", str(rate), "-c", "2", "-b", "16", str(path), "synth", "2",
                        "sine", "440", "gain", "-6"], check=True, timeout=30)
        out[rate] = path
    return out


def window_rms(data, rate: int, start: float, end: float) -> float:
    seg = data[int(start * rate):int(end * rate)]
    return float(np.sqrt((seg.astype(np.float64) ** 2).mean())) if len(seg) else 0.0


@pytest.mark.parametrize("rate", [48000, 44100])
def test_loop_off_near_the_end_stops_at_the_end_of_the_pass_heard(helpers, jack, rack, osc, short_tones, tmp_path, rate):
    """Loop turned off ~0.7 s before the end of a 2 s file, when the reader has already read
    (and wrapped) 1 s ahead: what is heard ends with this pass; the file does not play again."""
    osc.send("/rack/mix", 0.0)
    osc.send("/rack/player/loop", 1)
    osc.send("/rack/player/play")
    osc.send("/rack/player/load", str(short_tones[rate]))
    assert osc.wait_for("/rack/error", 0.3) is None
    ports = [f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"]
    raw = tmp_path / "loopoff.raw"
    rec = subprocess.Popen([str(helpers["jackrec"]), str(raw), "4.0", *ports], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=jack.env())
    try:
        # 1.25 s into the file (the reader is then ~1 s further, past the end).
        pos = wait_position(osc, lambda p: p >= 1.25, 3.0)
        assert 1.2 <= pos < 1.9, f"player at {pos} s"
        osc.send("/rack/player/loop", 0)
        sent_at = pos
        out, err = rec.communicate(timeout=20)
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    assert rec.returncode == 0, err
    rec_rate = int(out.strip())
    data = np.fromfile(raw, dtype=np.float32).reshape(-1, 2)
    assert np.isfinite(data).all()
    assert window_rms(data, rec_rate, 0.0, 0.4) > 0.05, "the file was not heard before loop off"
    # The recorder started ~0.1 s after the load; loop off ~1.25 s after the load, so the pass
    # ends ~2 s after the load, ~1.9 s into the recording. The last 1.5 s of the 4 s recording
    # must be silence (before the fix, the whole file played again: sound to the end).
    tail = data[int(2.5 * rec_rate):]
    assert np.abs(tail).max() < 1e-4, (f"sound {np.abs(tail).max():.3f} after the end of the pass heard "
                                       f"(loop off at {sent_at:.2f} s of a 2 s file)")
    assert player_seconds(osc) == pytest.approx(2.0, abs=1e-3), "stands at the end of the file"


def test_loop_on_after_the_end_restarts_from_the_beginning(helpers, jack, rack, osc, short_tones, tmp_path):
    osc.send("/rack/mix", 0.0)
    osc.send("/rack/player/load", str(short_tones[48000]))
    osc.send("/rack/player/loop", 0)
    osc.send("/rack/player/play")
    osc.send("/rack/player/seek", 1.5)
    assert osc.wait_for("/rack/error", 0.2) is None
    pos = wait_position(osc, lambda p: p >= 2.0 - 1e-3, 2.0)
    assert pos == pytest.approx(2.0, abs=1e-3), f"loop off: the player should stop at the end, at {pos}"
    ports = [f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"]
    silent, rate = livelib.record(helpers["jackrec"], jack.name, ports, 0.3, tmp_path / "ended.raw")
    assert np.abs(silent).max() < 1e-4, "sound after the end with loop off"
    sent = time.monotonic()
    osc.send("/rack/player/loop", 1)
    pos = wait_position(osc, lambda p: 0.0 < p < 1.9, 2.0)
    since = time.monotonic() - sent
    assert 0.0 < pos <= since + 0.05, (f"loop on after the end must restart from the beginning: at "
                                       f"{pos} s, {since:.2f} s after loop on")
    data, rate = livelib.record(helpers["jackrec"], jack.name, ports, 0.5, tmp_path / "again.raw")
    assert window_rms(data, rate, 0.0, 0.5) > 0.1, "the file did not play again"
    pos2 = player_seconds(osc)
    assert pos2 > pos + 0.3, f"not playing on ({pos} -> {pos2})"
