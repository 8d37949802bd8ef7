"""Tests/live/README.md names only environment variables that something reads: each `RACK_…`
it names appears as a whole name in the suite, the scripts or the sources."""
from __future__ import annotations

import re

import livelib

READERS = [*livelib.REPO.glob("Tests/live/*.py"), *livelib.REPO.glob("Tests/live/*.c"),
           *(p for p in livelib.REPO.glob("scripts/*") if p.is_file()), *livelib.REPO.glob("Sources/**/*.swift"),
           *livelib.REPO.glob("Sources/**/*.c")]


def test_every_variable_the_live_readme_names_is_read():
    named = set(re.findall(r"\bRACK_[A-Z0-9_]+\b", (livelib.REPO / "Tests" / "live" / "README.md").read_text()))
    assert named, "the live suite's README names its variables"
    code = "\n".join(p.read_text(errors="replace") for p in READERS if p.name != "test_live_readme.py")
    unread = sorted(v for v in named if not re.search(rf"\b{v}\b", code))
    assert unread == [], f"Tests/live/README.md names variables nothing reads: {unread}"
