"""scripts/long-run's fuzz takes its packet count as its usage line says, `fuzz [PACKETS]`: the
count bare or as `--packets N` (the fuzz itself is a long run, not part of the suite)."""
from __future__ import annotations

import re

import fuzz_osc
import livelib


def test_the_fuzz_takes_the_count_its_usage_names():
    usage = re.search(r"^# Usage: scripts/long-run .*fuzz \[PACKETS\]", (livelib.REPO / "scripts" / "long-run").read_text(), re.MULTILINE)
    assert usage, "scripts/long-run's usage no longer names fuzz [PACKETS]"
    assert fuzz_osc.arguments(["20000"]).packets == 20000
    assert fuzz_osc.arguments(["--packets", "300", "--seed", "2"]).packets == 300
