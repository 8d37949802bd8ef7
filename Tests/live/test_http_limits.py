"""The HTTP side's limits at the README's figures: each test reads its number from the README
(the exposure table and the WebSocket paragraph), not from the code, and measures rack against
it: connections at once, the idle timeout, the WebSocket ping period, the push rate, the page's
Content-Security-Policy, and the default port 8001 with its fallback (in a private network
namespace, so no other program's port 8001 is involved)."""
from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from httplib import README, client, decode, get, osc as osc_bytes, raw_request, readme_number, readme_row
from livelib import RackProcess, wait_until
from test_hostile_http import FIRST_REQUEST_SECONDS, frame, open_websocket, read_frame

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
    """A WebSocket that says nothing gets a ping frame after the README's period (-1 s, +3 s
    for a loaded machine); a client that answers it with its pong and otherwise says nothing is
    still served past the idle timeout plus 3 s (idling out is for HTTP connections). The client
    answers half a second after the ping, not at once: swift-websocket's ping loop sends a ping
    and only then looks again, and a pong that reaches it before that look (a loaded machine)
    clears the wait, so it pings again at once; the second ping is answered like the first and
    harms no client, but this test counts frames."""
    s = open_websocket(rack.http_port)
    try:
        s.settimeout(PING_SECONDS + 5)
        t0 = time.monotonic()
        opcode, payload = read_frame(s)
        first = time.monotonic() - t0
        assert opcode == 0x9, f"a frame with opcode {opcode:#x} before the ping"
        print(f"WebSocket ping after {first:.2f} s (README: {PING_SECONDS} s)")
        assert PING_SECONDS - 1 < first < PING_SECONDS + 3, first
        time.sleep(0.5)   # see above: the ping loop has taken up its wait by then
        s.sendall(frame(0xA, payload))
        quiet = IDLE_SECONDS + 3 - (time.monotonic() - t0)
        s.settimeout(quiet)
        try:
            opcode, _ = read_frame(s)
            pytest.fail(f"a frame with opcode {opcode:#x} {time.monotonic() - t0:.1f} s after the upgrade")
        except socket.timeout:
            pass
        s.settimeout(3)
        s.sendall(frame(0x2, osc_bytes("/ping")))
        opcode, payload = read_frame(s)
        assert opcode == 0x2 and decode(payload)[0].address == "/pong", (opcode, payload)
        print(f"WebSocket still served {time.monotonic() - t0:.1f} s after the upgrade (idle timeout: {IDLE_SECONDS} s)")
    finally:
        s.close()


def test_a_first_request_dripped_a_byte_at_a_time_is_closed_at_the_readme_deadline(rack):
    """The README: the first request head must parse within its figure, "however slowly it
    drips": a head that gains a byte every 0.4 s (never finishing) is closed at that deadline
    (-1 s, +3 s), although bytes keep arriving (so no idle timer could be what closes it)."""
    s = socket.create_connection(("127.0.0.1", rack.http_port), timeout=2)
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ")
        t0, closed = time.monotonic(), False
        while not closed and time.monotonic() - t0 < FIRST_REQUEST_SECONDS + 5:
            try:
                s.sendall(b"a")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            closed = closed_within(s, 0.4)
        waited = time.monotonic() - t0
    finally:
        s.close()
    assert closed, f"still open after {waited:.1f} s of dripping"
    print(f"dripping first request closed after {waited:.2f} s (README: {FIRST_REQUEST_SECONDS} s)")
    assert FIRST_REQUEST_SECONDS - 1 < waited < FIRST_REQUEST_SECONDS + 3, waited


def test_meters_and_status_are_pushed_at_the_readme_rate(rack):
    """LISTEN to /rack/meter and /rack/status over the WebSocket: the pushes of each over 3 s,
    counted between the first and the last (so the window's edges do not count), are at most the
    README's rate and no more than 5 % below it: rack pushes on a fixed grid of 1/15 s, so a
    late wake of its loop does not lengthen the period (timed from the last push, the rate was
    14.1 a second quiet and 13.3 under load)."""
    ws_sync = client("websockets.sync.client")
    addresses = ("/rack/meter", "/rack/status")
    with ws_sync.connect(f"ws://127.0.0.1:{rack.http_port}/", open_timeout=3) as ws:
        for address in addresses:
            ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": address}))
        first = set()
        while first != set(addresses):   # each LISTEN's answer: the count starts after both
            first |= {m.address for m in decode(ws.recv(timeout=2))}
        arrivals: dict[str, list[float]] = {address: [] for address in addresses}
        t0 = time.monotonic()
        while time.monotonic() - t0 < 3.0:
            try:
                frame = ws.recv(timeout=0.5)
            except TimeoutError:
                continue
            if isinstance(frame, bytes):
                now = time.monotonic()
                for m in decode(frame):
                    arrivals.setdefault(m.address, []).append(now)
    for address in addresses:
        times = arrivals[address]
        assert len(times) >= 2, (address, times)
        rate = (len(times) - 1) / (times[-1] - times[0])   # pushes per second between the first and last
        print(f"{address} pushes: {rate:.1f} a second over {times[-1] - times[0]:.2f} s (README: {PUSHES_PER_SECOND})")
        assert 0.95 * PUSHES_PER_SECOND <= rate <= 1.02 * PUSHES_PER_SECOND, (address, rate)


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
