"""A file that breaks while it plays: a WAV truncated while it plays, a FLAC cut
short. The player used to play to the damage and then silence for ever, with no `/rack/error`,
no stderr line and `/rack/status` still `running` with `player_seconds` frozen. Now the failure is
told (the log, `/rack/error /rack/player` to subscribers, the last field of `/rack/status`) and the
transport stops there."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from livelib import wait_until

RATE = 48000
BYTES_PER_FRAME = 4   # 16-bit stereo


def make(path, seconds: float = 10.0):
    subprocess.run(["sox", "-n", "-r", str(RATE), "-c", "2", "-b", "16", str(path), "synth", str(seconds),
                    "sine", "440", "gain", "-6"], check=True, timeout=30)
    return path


def status(osc):
    st = osc.status()
    assert st is not None and st.tags == "iiiffsis", st
    return st


def wav_truncated_while_playing(tmp_path, osc):
    path = make(tmp_path / "long.wav")
    osc.send("/rack/player/load", str(path))
    assert wait_until(lambda: status(osc).args[4] > 0.2, timeout=3), "never started"
    os.truncate(path, 44 + 3 * RATE * BYTES_PER_FRAME)    # the data ends at 3 s
    return path


def flac_cut_short(tmp_path, osc):
    path = make(tmp_path / "long.flac")
    os.truncate(path, os.path.getsize(path) * 4 // 10)  # well beyond the first 0.25 s
    osc.send("/rack/player/load", str(path))
    return path


@pytest.mark.parametrize("damage", [wav_truncated_while_playing, flac_cut_short], ids=lambda f: f.__name__)
def test_a_file_that_breaks_while_it_plays_is_reported_and_the_transport_stops(rack, osc, tmp_path, damage):
    osc.send("/rack/subscribe")
    osc.send("/rack/player/loop", 1)
    osc.drain(0.1)
    path = damage(tmp_path, osc)
    errors = []
    assert wait_until(lambda: any(m.address == "/rack/error" for m in osc.collect(0.1) if not errors.append(m)),
                      timeout=10), "no /rack/error within 10 s"
    told = [m for m in errors if m.address == "/rack/error"][0]
    assert told.args[0] == "/rack/player" and told.args[1].startswith("stopped: "), told
    assert path.name in told.args[1], told
    st = status(osc)
    assert st.args[7] == told.args[1], st
    first = st.args[4]
    time.sleep(0.3)   # a window for a defect to show (the position moving on), not a wait a pass needs
    assert status(osc).args[4] == first, "player_seconds moves after the failure (transport not stopped)"
    assert wait_until(lambda: any(told.args[1] in line for line in rack.stderr), timeout=2), rack.stderr
    # Another file clears it.
    osc.send("/rack/player/load", str(make(tmp_path / "good.wav", 2.0)))
    osc.send("/rack/player/play")
    assert wait_until(lambda: status(osc).args[7] == "", timeout=2)
