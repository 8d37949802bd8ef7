"""The HTTP side as an attacker sees it: paths that try to reach files, foreign Host names,
oversized requests, bodies, and idle connections held open; none of it reaches the file
system, crashes rack or slows OSC down."""
from __future__ import annotations

import socket
import time

from httplib import body, get, raw_request, readme_number, readme_row
from livelib import wait_until
from test_hostile_http import answer_and_close


def test_no_path_reaches_the_file_system(rack, osc):
    port = rack.http_port
    for target in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/ui/../../../etc/passwd",
                   "/ui/%2e%2e/%2e%2e/etc/passwd", "/ui/..%2f..%2fetc%2fpasswd", "//etc/passwd", "/etc/passwd",
                   "/ui/app.js/../../etc/passwd", "/rack/../../etc/passwd"]:
        status, response = get(port, target)
        assert status in (400, 404), (target, status, response[:200])
        assert b"root:" not in response, target
    assert osc.ping()


def test_a_foreign_host_name_is_refused(rack):
    port = rack.http_port
    status, _ = get(port, "/", host_header=f"attacker.example:{port}")   # DNS rebinding
    assert status == 403
    assert get(port, "/", host_header=f"localhost:{port}")[0] == 200


def upgrade_request(port: int, origin: str | None = None, host: str | None = None) -> bytes:
    lines = [f"GET / HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}", "Upgrade: websocket", "Connection: Upgrade",
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
    if origin:
        lines.append(f"Origin: {origin}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_websocket_from_a_foreign_origin_or_host_is_forbidden(rack, osc):
    """403 with the reason, no upgrade, the connection closed (raw_request reads to the end)."""
    port = rack.http_port
    for request, reason in [(upgrade_request(port, origin="http://evil.example"), b"WebSocket from a foreign Origin refused\n"),
                            (upgrade_request(port, origin=f"http://127.0.0.1:{port + 1}"), b"WebSocket from a foreign Origin refused\n"),
                            (upgrade_request(port, host=f"attacker.example:{port}"), b"unknown Host\n")]:
        status, response = raw_request(port, request)
        assert status == 403, (request, response[:300])
        assert body(response) == reason
        head = response.partition(b"\r\n\r\n")[0].lower()
        assert b"sec-websocket-accept" not in head and b"upgrade" not in head, head
    status, response = raw_request(port, upgrade_request(port, origin=f"http://127.0.0.1:{port}"), timeout=1.0)
    assert status == 101, response[:300]   # the page's own origin is upgraded
    status, response = raw_request(port, upgrade_request(port), timeout=1.0)
    assert status == 101, response[:300]   # no Origin: not a browser
    assert osc.ping()


def test_oversized_requests_are_refused_and_rack_carries_on(rack, osc):
    """The README's bounds, each answered with its status (none may go unanswered): a header
    line beyond 8 KB and more than 64 header lines are 431 and closed (they do not parse), a
    target beyond 2 KB is 414."""
    port = rack.http_port
    host = f"Host: 127.0.0.1:{port}\r\n"
    huge_header = f"GET / HTTP/1.1\r\n{host}X-Padding: {'a' * 100_000}\r\n\r\n".encode()
    assert answer_and_close(port, huge_header) == (431, True), "a 100 KB header line"
    many = "".join(f"X-H{i}: v\r\n" for i in range(200))
    assert answer_and_close(port, f"GET / HTTP/1.1\r\n{host}{many}\r\n".encode()) == (431, True), "200 header lines"
    assert answer_and_close(port, f"GET /{'a' * 3000} HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode()) == \
        (414, True), "a 3 KB target"
    body_request = (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 10000000\r\n"
                    f"Connection: close\r\n\r\n").encode() + b"x" * 1000
    assert raw_request(port, body_request)[0] == 413
    assert get(port, "/rack/cutoff?VALUE")[0] == 200
    assert osc.ping()


def test_garbage_gets_a_status_not_a_crash(rack, osc):
    """The README's malformed requests: each gets its 400 at once with a one-line reason, and a
    close (by rack, within 3 s); rack carries on."""
    port = rack.http_port
    for junk in [b"\x00\xff\x13\x37\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                 b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n"]:
        assert answer_and_close(port, junk) == (400, True), junk
        status, response = raw_request(port, junk)
        reason = response.split(b"\r\n\r\n", 1)[-1]
        assert status == 400 and reason.startswith(b"bad request: ") and reason.count(b"\n") == 1 \
            and reason.endswith(b"\n"), (junk, response)
    assert get(port, "/")[0] == 200 and osc.ping()


def test_idle_connections_do_not_block_osc_or_http(rack, osc):
    port = rack.http_port
    idle = []
    try:
        for _ in range(100):
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")   # and never finish the request
            idle.append(s)
        t0 = time.monotonic()
        assert osc.ping(timeout=1.0)
        ping_ms = (time.monotonic() - t0) * 1000
        assert ping_ms < 100, f"OSC ping took {ping_ms:.0f} ms with 100 idle HTTP connections"
        status, response = get(port, "/rack/gain?VALUE")
        assert status == 200, "a new client is still answered"
        assert body(response) == b'{"VALUE":[0]}'
    finally:
        for s in idle:
            s.close()


def closed_now(s: socket.socket) -> bool:
    """True when the peer has closed `s` (EOF or reset); never blocks."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def test_connections_per_remote_address_are_bounded(rack):
    """127.0.0.2 counts as remote: the README's per-address bound (16) at most, the rest closed at once."""
    per_address = readme_number(r"(\d+) per remote address", readme_row("connections"))
    port = rack.http_port
    held, refused = [], 0
    try:
        for _ in range(per_address + 8):
            s = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=("127.0.0.2", 0))
            held.append(s)
        # Closed at once: waited for (2 s at most), then counted: no more than those.
        wait_until(lambda: sum(map(closed_now, held)) >= 8, 2.0)
        refused = sum(map(closed_now, held))
        assert refused == 8, f"{refused} of {per_address + 8} closed (the README: {per_address} per remote address)"
    finally:
        for s in held:
            s.close()
    assert get(port, "/rack/gain?VALUE")[0] == 200


def test_allow_applies_to_http(rack_factory):
    rack = rack_factory("--allow", "10.9.8.7")
    status, response = raw_request(rack.http_port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status is None and response == b"", "a sender outside --allow is dropped without a reply"
