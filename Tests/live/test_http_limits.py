"""The HTTP side's limits at the README's figures: each test reads its number from the README
(the exposure table and the WebSocket paragraph), not from the code, and measures rack against
it: connections at once, the idle timeout, the WebSocket ping period, the push rate, the page's
Content-Security-Policy, and the default port 8001 with its fallback (in a private network
namespace, so no other program's port 8001 is involved)."""
from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest

from httplib import README, get, raw_request, readme_number, readme_row
from livelib import RackProcess, wait_until
from test_hostile_http import open_websocket, read_frame

CONNECTIONS = readme_row("connections")
MAX_CONNECTIONS = readme_number(r"(\d[\d,]*) open at once", CONNECTIONS)
IDLE_SECONDS = readme_number(r"idles out after (\d+) s", CONNECTIONS)
PING_SECONDS = readme_number(r"WebSockets ping every (\d+) s", CONNECTIONS)
PUSHES_PER_SECOND = readme_number(r"`/rack/meter` and `/rack/status` push at most (\d+) times a second", README)


def hold_open(port: int) -> socket.socket:
    """A connection from 127.0.0.1 with half a request head (so it waits for the rest)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return s


def closed_within(s: socket.socket, seconds: float) -> bool:
    """True when the peer closes `s` (EOF or reset) within `seconds`."""
    s.settimeout(seconds)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def test_connections_beyond_the_readme_bound_are_closed_at_once(rack):
    """The README's bound of connections open at once (all from 127.0.0.1, which has no
    per-address bound): that many are held; the next is closed at once; when one goes, a new one
    is served."""
    port = rack.http_port
    held: list[socket.socket] = []
    try:
        for _ in range(MAX_CONNECTIONS):
            held.append(hold_open(port))
        extra = socket.create_connection(("127.0.0.1", port), timeout=2)
        try:
            assert closed_within(extra, 2.0), f"connection {MAX_CONNECTIONS + 1} was not closed at once"
        finally:
            extra.close()
        still_open = sum(not closed_within(s, 0.01) for s in held)
        assert still_open == MAX_CONNECTIONS, f"{MAX_CONNECTIONS - still_open} of the first {MAX_CONNECTIONS} closed"
        held.pop().close()
        assert wait_until(lambda: get(port, "/rack/gain?VALUE")[0] == 200, 3.0), \
            f"with {MAX_CONNECTIONS - 1} held, a new client is not served"
    finally:
        for s in held:
            s.close()


def test_an_idle_connection_is_closed_after_the_readme_seconds(rack):
    """After a complete request on an HTTP/1.1 connection, nothing more: closed after the
    README's idle time (not before it less a second, nor after it plus 3 s)."""
    port = rack.http_port
    with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
        s.sendall(f"GET /rack/gain?VALUE HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        data = b""
        while not data.endswith(b'{"VALUE":[0]}'):
            chunk = s.recv(65536)
            assert chunk, f"closed after {data!r}"
            data += chunk
        t0 = time.monotonic()
        closed = closed_within(s, IDLE_SECONDS + 5)
        waited = time.monotonic() - t0
    assert closed, f"still open {waited:.1f} s after its last request"
    print(f"idle HTTP connection closed after {waited:.2f} s (README: {IDLE_SECONDS} s)")
    assert IDLE_SECONDS - 1 < waited < IDLE_SECONDS + 3, waited


def test_a_websocket_is_pinged_at_the_readme_period(rack):
    """A WebSocket that says nothing gets a ping frame after the README's period (±1 s, +3 s
    for a loaded machine), and the connection stays open past the idle timeout."""
    s = open_websocket(rack.http_port)
    try:
        s.settimeout(PING_SECONDS + 5)
        t0 = time.monotonic()
        opcode, _ = read_frame(s)
        first = time.monotonic() - t0
        assert opcode == 0x9, f"a frame with opcode {opcode:#x} before the ping"
        print(f"WebSocket ping after {first:.2f} s (README: {PING_SECONDS} s)")
        assert PING_SECONDS - 1 < first < PING_SECONDS + 3, first
    finally:
        s.close()


def test_meters_are_pushed_at_the_readme_rate(rack):
    """LISTEN to /rack/meter over the WebSocket: the pushes counted over 3 s are at most the
    README's rate and no more than 10 % below it (rack's loop sends one when 1/15 s has passed
    since the last, so the period is a little longer than 1/15 s, never shorter)."""
    ws_sync = pytest.importorskip("websockets.sync.client")
    import json

    from httplib import decode
    with ws_sync.connect(f"ws://127.0.0.1:{rack.http_port}/", open_timeout=3) as ws:
        ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": "/rack/meter"}))
        ws.recv(timeout=2)   # the first push: the count starts after it
        count, t0 = 0, time.monotonic()
        while time.monotonic() - t0 < 3.0:
            try:
                frame = ws.recv(timeout=0.5)
            except TimeoutError:
                continue
            if isinstance(frame, bytes):
                count += sum(m.address == "/rack/meter" for m in decode(frame))
        rate = count / (time.monotonic() - t0)
    print(f"/rack/meter pushes: {rate:.1f} a second (README: {PUSHES_PER_SECOND})")
    assert 0.9 * PUSHES_PER_SECOND <= rate <= 1.02 * PUSHES_PER_SECOND, rate


def test_the_page_forbids_everything_from_elsewhere(rack):
    """The README: the page loads nothing from anywhere else, and its Content-Security-Policy
    says so: every fetch directive is 'self' or 'none' (no host, scheme or wildcard source)."""
    status, response = raw_request(rack.http_port,
                                   f"GET /ui/ HTTP/1.1\r\nHost: 127.0.0.1:{rack.http_port}\r\nConnection: close\r\n\r\n".encode())
    assert status == 200, status
    head = response.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    policy = [l.split(":", 1)[1].strip() for l in head.split("\r\n") if l.lower().startswith("content-security-policy:")]
    assert len(policy) == 1, head
    directives = {d.split()[0]: d.split()[1:] for d in (x.strip() for x in policy[0].split(";")) if d}
    assert directives.get("default-src") in (["'self'"], ["'none'"]), policy[0]
    # data: is inline content (the page's own); ws:// to rack's own address and port is the
    # page's own origin over the WebSocket scheme: neither is a place elsewhere.
    own = ("'self'", "'none'", "'unsafe-inline'", "data:", f"ws://127.0.0.1:{rack.http_port}")
    for name, sources in directives.items():
        if name.endswith("-src"):
            assert all(src in own for src in sources), (name, sources)


# --------------------------------------------------------------------------------------------
# The default ports, in a network namespace of the test's own


def netns_rack(jack, xdg, rack_binary, *args, netns_of: int | None = None) -> RackProcess:
    """`rack run` in a new network namespace with its loopback up, or in the one of process
    `netns_of`; no --http-port unless `args` give one."""
    env = jack.env(XDG_CONFIG_HOME=str(xdg))
    run = [str(rack_binary), "run", "--no-advertise", *args]
    if netns_of is None:
        command = ["-n", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *run]
        return RackProcess(command, env, Path("unshare"), subcommand=None)
    return RackProcess(["-t", str(netns_of), "-n", "--", *run], env, Path("nsenter"), subcommand=None)


def netns_get(pid: int, port: int, path: str) -> str:
    out = subprocess.run(["nsenter", "-t", str(pid), "-n", "--", "curl", "-s", "--max-time", "3",
                          f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, timeout=10)
    return out.stdout


def test_default_ports_8001_and_8000_and_the_fallback_when_taken(jack, xdg, rack_binary):
    """With no port asked for, rack serves HTTP on 8001 and OSC on 8000; a second rack in the
    same network finds both taken and falls back to free ports, printed; a taken port asked for
    by number exits 69 with the hint."""
    if subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode != 0:
        pytest.fail("cannot make a network namespace (unshare -n): the test needs root or CAP_SYS_ADMIN")
    first = netns_rack(jack, xdg, rack_binary, "--name", "ports1").wait_ready()
    second = None
    try:
        assert (first.http_port, first.osc_port) == (8001, 8000), first.stdout
        assert '"OSC_PORT":8000' in netns_get(first.pid, 8001, "/?HOST_INFO").replace(" ", "")
        second = netns_rack(jack, xdg, rack_binary, "--name", "ports2", netns_of=first.pid).wait_ready()
        assert second.http_port not in (None, 8001) and second.osc_port not in (None, 8000), second.stdout
        assert '"VALUE":[20000]' in netns_get(first.pid, second.http_port, "/rack/cutoff?VALUE").replace(" ", "")
        for flag, port, other in (("--http-port", 8001, "--osc-port"), ("--osc-port", 8000, "--http-port")):
            taken = subprocess.run(["nsenter", "-t", str(first.pid), "-n", "--", str(rack_binary), "run", "--name", "ports3",
                                    flag, str(port), other, "0", "--no-advertise"],
                                   capture_output=True, text=True, timeout=20, env=jack.env(XDG_CONFIG_HOME=str(xdg)))
            assert taken.returncode == 69, (flag, taken.returncode, taken.stderr)
            assert f"{flag} 0" in taken.stderr, (flag, taken.stderr)
    finally:
        if second is not None:
            assert second.stop() == 0, second.describe()
        assert first.stop() == 0, first.describe()
