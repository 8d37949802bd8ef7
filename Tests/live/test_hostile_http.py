"""Hostile HTTP clients that used to fail quietly: malformed first requests that were never
answered nor closed (256 of them locked every client out), a deadline that an empty line
cancelled, and lenient parsing (two Host lines, absolute-form targets, HTTP/1.0, a 413 that held
the socket)."""
from __future__ import annotations

import socket
import time

import pytest

from httplib import body, get
from livelib import wait_until

ws_sync = pytest.importorskip("websockets.sync.client")

# HTTPLimits.firstRequestSeconds
FIRST_REQUEST_SECONDS = 10


def malformed_first_requests(port: int) -> dict[str, bytes]:
    """The bytes of issue 20 #1, each a whole first request."""
    host = f"Host: 127.0.0.1:{port}\r\n".encode()
    return {
        "garbage": b"\x00garbage\r\n\r\n",
        "65 headers": b"GET / HTTP/1.1\r\n" + host + b"".join(b"X-H%d: v\r\n" % i for i in range(65)) + b"\r\n",
        "100 KB target": b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n" + host + b"\r\n",
        "method FOO": b"FOO / HTTP/1.1\r\n" + host + b"\r\n",
        "NUL in path": b"GET /a\x00b HTTP/1.1\r\n" + host + b"\r\n",
        "0xFF in path": b"GET /a\xffb HTTP/1.1\r\n" + host + b"\r\n",
        "Content-Length with Transfer-Encoding":
            b"GET / HTTP/1.1\r\n" + host + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
    }


def answer_and_close(port: int, request: bytes, timeout: float = 3.0,
                     source: str | None = None) -> tuple[int | None, bool]:
    """Sends `request` and reads until rack closes; (status, whether rack closed within
    `timeout`). The client never closes first."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                 source_address=(source, 0) if source else None)
    data, closed = b"", False
    deadline = time.monotonic() + timeout
    try:
        try:
            s.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass   # answered and closed before the whole request was read
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
    finally:
        s.close()
    status = int(data[9:12]) if data.startswith(b"HTTP/1.") and len(data) >= 12 else None
    return status, closed


def test_every_malformed_first_request_gets_its_4xx_and_a_close(rack):
    port = rack.http_port
    for name, request in malformed_first_requests(port).items():
        status, closed = answer_and_close(port, request)
        assert status is not None and 400 <= status < 500, (name, status)
        assert closed, f"{name}: answered {status} but the connection was left open"
    assert get(port, "/")[0] == 200


def test_the_first_request_deadline_holds_until_a_head_parses(rack):
    """An empty line used to cancel the deadline: a head that never finishes after it held its
    place for good."""
    port = rack.http_port
    s = socket.create_connection(("127.0.0.1", port), timeout=FIRST_REQUEST_SECONDS + 5)
    try:
        s.sendall(b"\r\n\r\nGET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")   # and never the empty line
        t0 = time.monotonic()
        try:
            closed = s.recv(1) == b""
        except ConnectionResetError:
            closed = True
        except socket.timeout:
            closed = False
        waited = time.monotonic() - t0
    finally:
        s.close()
    assert closed, f"still open after {waited:.1f} s"
    assert FIRST_REQUEST_SECONDS - 1 < waited < FIRST_REQUEST_SECONDS + 3, waited


def test_the_page_stays_reachable_while_256_malformed_sockets_are_held(rack):
    """16 remote addresses × 16 sockets, each sending malformed first-request bytes and never
    closing: rack answers and closes each, so HTTP and WebSocket clients still get in."""
    port = rack.http_port
    requests = list(malformed_first_requests(port).values())
    held = []
    try:
        for index in range(256):
            source = f"127.0.0.{2 + index // 16}"
            s = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=(source, 0))
            try:
                s.sendall(requests[index % len(requests)])
            except (BrokenPipeError, ConnectionResetError):
                pass
            held.append(s)
        assert wait_until(lambda: get(port, "/")[0] == 200, timeout=5), "the page is locked out"
        with ws_sync.connect(f"ws://127.0.0.1:{port}/", open_timeout=3):
            pass
        status, response = get(port, "/rack/gain?VALUE")
        assert status == 200 and body(response) == b'{"VALUE":[0]}'
    finally:
        for s in held:
            s.close()
