"""`rack send` against a live rack: it checks that a rack answers before playing, paces a file
denser than the rack schedules ahead so that every event is applied (never dropped with exit 0),
and `rack check` warns about such files."""
from __future__ import annotations

import re
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
    # Nothing but the closing line (no bar through a pipe, no warning).
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(rf"rack: sent 200 events to 127\.0\.0\.1:{rack.osc_port} in [0-9]+\.[0-9] s\n", out.stderr), out.stderr


def test_events_the_rack_refuses_end_rack_send_with_69_and_the_first_reason(rack, osc_factory, rack_binary, jack,
                                                                             tmp_path):
    """A recall of a preset the sending user has and the rack's user has not: the rack refuses
    it with /rack/error, and `rack send` exits 69 with one line naming the count and the first
    reason (docs/automation.md, docs/command-line.md); the changes it took stand."""
    sender_config = tmp_path / "sender-config"
    (sender_config / "rack" / "presets").mkdir(parents=True)
    (sender_config / "rack" / "presets" / "Only Here.json").write_text('{"name": "Only Here", "cutoff": 900}\n')
    script = tmp_path / "refused.txt"
    script.write_text('0 /rack/cutoff 1500\n0.1 /rack/preset "Only Here"\n0.2 /rack/mix 35\n')
    env = jack.env(XDG_CONFIG_HOME=str(sender_config))
    out = subprocess.run([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{rack.osc_port}"],
                         capture_output=True, text=True, env=env, timeout=30)
    assert out.returncode == 69, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert re.fullmatch(rf"rack: the rack at 127\.0\.0\.1:{rack.osc_port} refused 1 of 3 events "
                        r"\(first: /rack/preset: .*Only Here.*\)", lines[0]), lines[0]
    osc = osc_factory(rack.osc_port)
    assert livelib.wait_until(lambda: livelib.close_to(osc.get("mix"), 35), 3), "the events it took stand"


def test_rack_send_shows_progress_on_a_terminal_and_ends_with_one_line(rack, rack_binary, tmp_path):
    """docs/command-line.md: "progress on a terminal; ends with one line on stderr, on a terminal
    or not" (through a pipe: `test_a_sparse_file_is_sent_ahead_and_clean`)."""
    import os
    import pty
    script = tmp_path / "sparse.txt"
    _dense_file(script, 200, 1.0)
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{rack.osc_port}"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=follower)
        os.close(follower)
        follower = None
        said = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:   # EIO: the terminal's other end closed (rack send exited)
                break
            if not chunk:
                break
            said += chunk
        assert proc.wait(timeout=30) == 0, said
    finally:
        os.close(leader)
        if follower is not None:
            os.close(follower)
    text = said.decode().replace("\r\n", "\n")
    bars = re.findall(r"\rsending \S+ \[([# ]{30})\] ([0-9]+)%", text)
    assert bars and bars[-1] == ("#" * 30, "100"), text
    assert len(bars) > 1 and int(bars[0][1]) < 100, f"the bar moves: {bars[:3]}"
    closing = text[text.rindex("100%") + len("100%"):]
    assert re.fullmatch(rf"\nrack: sent 200 events to 127\.0\.0\.1:{rack.osc_port} in [0-9]+\.[0-9] s\n", closing), \
        repr(closing)


# --- the pacing bounds of the README's "Automation files", each against a stand-in rack --------

def _readme_figure(pattern: str) -> int:
    import re
    m = re.search(pattern, livelib.documentation())
    assert m, f"the README no longer says {pattern!r}"
    return int(m.group(1).replace(",", ""))


IN_FLIGHT = _readme_figure(r"never has more than ([\d,]+) events in flight")
SINCE_SYNC = _readme_figure(r"nor more than ([\d,]+)\s+sent since the last `/sync` the rack answered")
DATAGRAM_BYTES = _readme_figure(r"several to a\s+datagram \(nested bundles, ≤ ([\d,]+) bytes\)")


class StandInRack:
    """A UDP socket that plays a rack for `rack send`: answers `/ping` with `/pong`, `/sync`
    with `/synced` (the first `answer_syncs` of them; all when None) and counts the events
    (messages other than those two) in every datagram, nested bundles opened."""

    def __init__(self, answer_syncs: int | None = None):
        import socket
        import threading
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.answer_syncs = answer_syncs
        self.syncs = 0
        self.events = 0
        self.largest = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @staticmethod
    def addresses(packet: bytes) -> list[str]:
        if packet.startswith(b"#bundle\0"):
            out, at = [], 16
            while at + 4 <= len(packet):
                size = int.from_bytes(packet[at:at + 4], "big")
                out += StandInRack.addresses(packet[at + 4:at + 4 + size])
                at += 4 + size
            return out
        return [packet.split(b"\0", 1)[0].decode()]

    def _serve(self) -> None:
        while self.running:
            try:
                packet, sender = self.sock.recvfrom(65536)
            except OSError:
                continue
            self.largest = max(self.largest, len(packet))
            for address in self.addresses(packet):
                if address == "/ping":
                    self.sock.sendto(b"/pong\0\0\0,\0\0\0", sender)
                elif address == "/sync":
                    self.syncs += 1
                    if self.answer_syncs is None or self.syncs <= self.answer_syncs:
                        self.sock.sendto(b"/synced\0,\0\0\0", sender)
                else:
                    self.events += 1

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=2)
        self.sock.close()


def _send_against(stand_in: StandInRack, rack_binary, tmp_path, count: int) -> subprocess.Popen:
    script = tmp_path / "ahead.txt"
    _dense_file(script, count, 0.2)   # every event due within 0.2 s, applied 10 s later
    return subprocess.Popen([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{stand_in.port}",
                             "--lead", "10"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_rack_send_keeps_at_most_the_readme_count_in_flight(rack_binary, tmp_path):
    """Every event due at once, applied 10 s later, every /sync answered: `rack send` sends the
    README's events in flight and then waits (none of them is 50 ms past its time for 10 s);
    every datagram within the README's bytes."""
    stand_in = StandInRack()
    sender = _send_against(stand_in, rack_binary, tmp_path, 3 * IN_FLIGHT)
    try:
        assert livelib.wait_until(lambda: stand_in.events >= IN_FLIGHT, timeout=5), stand_in.events
        # A window for a defect to show (more sent than the bound); the next event may go in 10 s.
        livelib.wait_until(lambda: stand_in.events > IN_FLIGHT, timeout=1.0)
        print(f"rack send: {stand_in.events} events in flight, {stand_in.syncs} syncs, largest datagram {stand_in.largest} bytes")
        assert stand_in.events == IN_FLIGHT, f"{stand_in.events} events in flight (README: {IN_FLIGHT})"
        assert 0 < stand_in.largest <= DATAGRAM_BYTES, stand_in.largest
    finally:
        sender.kill()
        sender.wait(timeout=10)
        stand_in.close()


def test_rack_send_waits_for_a_synced_after_the_readme_count(rack_binary, tmp_path):
    """No /sync is answered (a render thread that does not take what it is sent): `rack send`
    sends the README's count of events and then waits."""
    stand_in = StandInRack(answer_syncs=0)
    sender = _send_against(stand_in, rack_binary, tmp_path, IN_FLIGHT)
    try:
        assert livelib.wait_until(lambda: stand_in.events >= SINCE_SYNC, timeout=5), stand_in.events
        livelib.wait_until(lambda: stand_in.events > SINCE_SYNC, timeout=1.0)   # a window for a defect to show
        print(f"rack send: {stand_in.events} events sent with no /synced, {stand_in.syncs} syncs")
        assert stand_in.events == SINCE_SYNC, f"{stand_in.events} events sent unacknowledged (README: {SINCE_SYNC})"
    finally:
        sender.kill()
        sender.wait(timeout=10)
        stand_in.close()
