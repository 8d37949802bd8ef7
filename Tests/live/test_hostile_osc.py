"""OSC timetags that used to be refused quietly wrong: a bundle timetag of 0, or
one far in the past, was "beyond the scheduling horizon" (a signed difference wrapped it 68 years
ahead). Past timetags apply at once, as timetag 1 ("immediately") does."""
from __future__ import annotations

import struct
import time

import pytest

from livelib import build_message, close_to

NTP_UNIX_OFFSET = 2_208_988_800   # seconds from 1900 to 1970


def bundle_with_raw_timetag(raw: int, *messages) -> bytes:
    body = b"".join(struct.pack(">i", len(m.dgram)) + m.dgram for m in messages)
    return b"#bundle\0" + struct.pack(">Q", raw) + body


@pytest.mark.parametrize("raw, what", [
    (0, "timetag 0"),
    (1, "timetag 1 (immediately)"),
    (1 << 32, "1900 + 1 s"),
    (int((time.time() + NTP_UNIX_OFFSET - 70 * 365 * 86400) * 2**32), "70 years ago"),
    (int((time.time() + NTP_UNIX_OFFSET - 10) * 2**32), "10 s ago"),
])
def test_past_timetags_apply_at_once(osc, raw, what):
    osc.drain(0)
    osc.send_raw(bundle_with_raw_timetag(raw, build_message("/rack/cutoff", 500.0)))
    assert osc.wait_for("/rack/error", 0.3) is None, what
    assert close_to(osc.get("cutoff"), 500), what
