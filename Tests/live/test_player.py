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
    s1, t1 = player_seconds(osc), time.monotonic()
    time.sleep(wall)
    s2, t2 = player_seconds(osc), time.monotonic()
    return (s2 - s1) / (t2 - t1)


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
    time.sleep(0.05)
    assert abs(rate_of_progress(osc, 0.3)) < 0.02, "player_seconds moves while stopped"
    osc.send("/rack/player/play")
    time.sleep(0.05)
    assert rate_of_progress(osc, 0.3) > 0.8, "player does not resume"
    osc.send("/rack/player/seek", 7.5)
    time.sleep(0.1)
    pos = player_seconds(osc)
    assert 7.5 <= pos <= 7.9, f"after seek 7.5: {pos}"
    osc.send("/rack/player/seek", 9.9)  # loop on: wraps past the end of the 10 s file
    time.sleep(0.4)
    pos = player_seconds(osc)
    assert pos < 1.0, f"loop on, 0.4 s after seeking to 9.9 s of a 10 s file: {pos}"
    assert osc.ping()


def test_played_file_is_heard_at_the_right_pitch(helpers, jack, rack, osc, media, tmp_path):
    osc.send("/rack/mix", 0.0)
    osc.send("/rack/player/load", str(media["tone"]))
    osc.send("/rack/player/play")
    assert osc.wait_for("/rack/error", 0.5) is None
    time.sleep(0.2)
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
