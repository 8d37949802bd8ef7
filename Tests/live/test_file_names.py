"""File names that are not UTF-8: `$'\\xff\\xfe-x.wav'` failed with "no such file"
(66) offline and live, its bytes repaired to U+FFFD on the way. Live: `--file`, `--record` and
`/rack/player/load` take the bytes as they are; an error shows them escaped."""
from __future__ import annotations

import os
import subprocess

from livelib import wait_until

ODD = b"\xff\xfe"


def _osc_string(raw: bytes) -> bytes:
    raw += b"\0"
    return raw + b"\0" * (-len(raw) % 4)


def _load_datagram(path_bytes: bytes) -> bytes:
    return _osc_string(b"/rack/player/load") + _osc_string(b",s") + _osc_string(path_bytes)


def _sine(path: str, freq: int):
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", "3", "sine", str(freq),
                    "gain", "-12"], check=True, timeout=30)


def test_file_record_and_load_take_the_bytes(rack_factory, osc_factory, tmp_path):
    base = os.fsencode(tmp_path)
    first = base + b"/" + ODD + b"-a.wav"
    second = base + b"/" + ODD + b"-b.wav"
    record = base + b"/" + ODD + b"-session.txt"
    _sine(os.fsdecode(first), 440)
    _sine(os.fsdecode(second), 550)
    # os.fsdecode keeps the bytes (surrogateescape), and subprocess hands them to argv as they were.
    rack = rack_factory("--file", os.fsdecode(first), "--record", os.fsdecode(record))
    osc = osc_factory(rack.osc_port)
    osc.drain(0)
    osc.send_raw(_load_datagram(second))
    replies = osc.collect(1.0)
    assert not [m for m in replies if m.address == "/rack/error"], replies
    osc.send_raw(_load_datagram(base + b"/" + ODD + b"-missing.wav"))
    error = osc.wait_for("/rack/error", 2.0)
    assert error is not None and "\\xFF\\xFE-missing.wav" in error.args[1], error
    assert rack.stop() == 0
    assert wait_until(lambda: os.path.exists(record), 2.0), sorted(os.listdir(base))
