"""`rack send` against a live rack: it checks that a rack answers before playing, paces a file
denser than the rack schedules ahead so that every event is applied (never dropped with exit 0),
and `rack check` warns about such files."""
from __future__ import annotations

import subprocess
import time

import livelib
from test_record import parse_record


def _dense_file(path, count: int, seconds: float) -> None:
    lines = [f"{i * seconds / count:.6f} /rack/cutoff {200 + (i % 2) * 100 + i % 997}" for i in range(count)]
    path.write_text("\n".join(lines) + "\n")


def test_send_to_a_port_where_no_rack_listens_fails_with_69(rack_binary, tmp_path):
    script = tmp_path / "one.txt"
    script.write_text("0 /rack/cutoff 500\n")
    port = livelib.free_udp_port()
    started = time.monotonic()
    out = subprocess.run([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{port}"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 69, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"no rack answers OSC at 127.0.0.1:{port}" in lines[0], out.stderr
    assert time.monotonic() - started < 5


def test_a_file_denser_than_the_scheduler_holds_is_delivered_whole(rack_factory, rack_binary, tmp_path):
    """50,000 changes within 0.5 s: the rack holds 4,096 scheduled changes, so a sender that sends
    each 0.2 s ahead loses most of them (12,288 applied, exit 0, before this was fixed). Every one
    must be applied, and the recording lists each."""
    rec = tmp_path / "heard.txt"
    rack = rack_factory("--record", str(rec))
    script = tmp_path / "dense.txt"
    count = 50_000
    _dense_file(script, count, 0.5)

    check = subprocess.run([str(rack_binary), "check", str(script)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    assert "warning: more than 1024 events within 50 ms from here" in check.stderr, check.stderr
    strict = subprocess.run([str(rack_binary), "check", "--strict", str(script)], capture_output=True, text=True, timeout=60)
    assert strict.returncode == 65 and "error: more than 1024 events" in strict.stderr, strict.stderr

    out = subprocess.run([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{rack.osc_port}"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "were sent after their time" in out.stderr, out.stderr   # said, not hidden
    assert livelib.wait_until(lambda: sum(1 for e in parse_record(rec) if e[1] == "/rack/cutoff") >= count, 10)
    assert rack.stop() == 0
    applied = [e for e in parse_record(rec) if e[1] == "/rack/cutoff"]
    assert len(applied) == count, f"{len(applied)} of {count} applied"


def test_a_sparse_file_is_sent_ahead_and_clean(rack, rack_binary, tmp_path):
    script = tmp_path / "sparse.txt"
    _dense_file(script, 200, 1.0)
    check = subprocess.run([str(rack_binary), "check", "--strict", str(script)], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stderr
    out = subprocess.run([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{rack.osc_port}"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stderr == "", out.stderr
