#!/usr/bin/env python3
"""The closing line of scripts/test, counted from the runners' own reports, never from their
free text: pytest's JUnit XML (--junitxml) and XCTest's xUnit XML (swift test --xunit-output).

    Tests/tally.py [--allow-skip REGEX]... RUNNER=FILE...

Each RUNNER=FILE names one run (its label, then its XML report). A run whose report is missing
or unreadable counts as one failure (the runner died before writing it). Every test case is one
of: passed, failed (a failure or an error element, or an unexpected pass of an expected
failure), skipped (a skip whose reason matches one of --allow-skip; any other skip is a
failure), or an expected failure (pytest's xfail). Prints a line per run, then

    scripts/test: N passed, N failed, N skipped, N expected failures

and exits 0 only when nothing failed and nothing was an expected failure: a failure the suite
expects is still one it has, and the closing line shows it rather than hiding it.
"""
from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    expected_failures: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: "Tally") -> None:
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.expected_failures += other.expected_failures
        self.notes += other.notes

    def line(self) -> str:
        return (f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped, "
                f"{self.expected_failures} expected failures")


def _case_name(case: ET.Element) -> str:
    return f"{case.get('classname', '')}::{case.get('name', '')}"


def judge_case(case: ET.Element, allowed: list[re.Pattern]) -> tuple[str, str]:
    """(outcome, note) of one <testcase>."""
    failure = case.find("failure")
    error = case.find("error")
    skipped = case.find("skipped")
    if failure is not None or error is not None:
        element = failure if failure is not None else error
        if element.get("type", "") == "pytest.xpass" or "XPASS" in (element.get("message") or ""):
            return "failed", f"an expected failure passed: {_case_name(case)}"
        return "failed", ""
    if skipped is not None:
        reason = skipped.get("message") or (skipped.text or "")
        if skipped.get("type", "") == "pytest.xfail":
            return "expected_failures", f"expected failure: {_case_name(case)}: {reason.strip()}"
        if any(p.search(reason) for p in allowed):
            return "skipped", ""
        return "failed", f"a skip that is not allowed counts as a failure: {_case_name(case)}: {reason.strip()}"
    return "passed", ""


def tally_report(path: str, allowed: list[re.Pattern]) -> Tally:
    t = Tally()
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        t.failed = 1
        t.notes.append(f"no report from the runner ({path}: {e}): counted as one failure")
        return t
    cases = list(root.iter("testcase"))
    for case in cases:
        outcome, note = judge_case(case, allowed)
        setattr(t, outcome, getattr(t, outcome) + 1)
        if note:
            t.notes.append(note)
    return t


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--allow-skip", action="append", default=[], metavar="REGEX")
    parser.add_argument("--status", action="append", default=[], metavar="RUNNER=CODE",
                        help="a runner's exit code: non-zero with no failure in its report counts one")
    parser.add_argument("runs", nargs="+", metavar="RUNNER=FILE")
    args = parser.parse_args(argv)
    allowed = [re.compile(p) for p in args.allow_skip]
    statuses = dict(s.split("=", 1) for s in args.status)
    total = Tally()
    for run in args.runs:
        label, _, path = run.partition("=")
        t = tally_report(path, allowed)
        status = int(statuses.get(label, "0"))
        if status != 0 and t.failed == 0 and t.expected_failures == 0:
            t.failed += 1
            t.notes.append(f"{label} exited {status} with no failure in its report: counted as one failure")
        print(f"  {label}: {t.line()}")
        total.add(t)
    for note in total.notes:
        print(f"scripts/test: {note}")
    print(f"scripts/test: {total.line()}")
    return 0 if total.failed == 0 and total.expected_failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
