"""Hostile HTTP clients that used to fail quietly: malformed first requests that were never
answered nor closed (256 of them locked every client out), a deadline that an empty line
cancelled, and lenient parsing (two Host lines, absolute-form targets, HTTP/1.0, a 413 that held
the socket)."""
from __future__ import annotations

import socket
import time

import pytest

from httplib import body, client, decode, get, osc as osc_bytes, readme_number, readme_row
from livelib import wait_until

ws_sync = client("websockets.sync.client")

# The README's figure (HTTPLimits.firstRequestSeconds in the code).
FIRST_REQUEST_SECONDS = readme_number(r"first request head must \*parse\* within (\d+) s", readme_row("connections"))


def malformed_first_requests(port: int) -> dict[str, bytes]:
    """The malformed first requests, each a whole first request."""
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


# --- the request bounds of the README's "HTTP requests" row, each at its edge -----------------

REQUESTS_ROW = readme_row("HTTP requests")
FIELD_KIB = readme_number(r"a header's name or value ≤ (\d+) KiB", REQUESTS_ROW)
LIST_KIB = readme_number(r"all names and values together under (\d+) KiB", REQUESTS_ROW)
FIELD_COUNT = readme_number(r"≤ (\d+) header lines", REQUESTS_ROW)
TARGET_BYTES = readme_number(r"target ≤ ([\d,]+) bytes", REQUESTS_ROW)


def request_status(port: int, extra: bytes = b"", target: bytes = b"/") -> int | None:
    """The status rack answers a GET of `target` with the Host line and `extra` header lines."""
    head = b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port + extra + b"Connection: close\r\n\r\n"
    return answer_and_close(port, head)[0]


def test_a_header_value_is_taken_up_to_the_readme_bound_and_no_further(rack):
    port = rack.http_port
    limit = FIELD_KIB * 1024
    assert request_status(port, b"X-Long: " + b"a" * limit + b"\r\n") == 200
    assert request_status(port, b"X-Long: " + b"a" * (limit + 1) + b"\r\n") == 431
    assert request_status(port, b"X-" + b"n" * (limit - 2) + b": v\r\n") == 200
    assert request_status(port, b"X-" + b"n" * (limit - 1) + b": v\r\n") == 431


def test_all_headers_together_are_taken_under_the_readme_bound(rack):
    """Names and values together, the Host and Connection lines included."""
    port = rack.http_port
    fixed = len(b"Host") + len(b"127.0.0.1:%d" % port) + len(b"Connection") + len(b"close") + 2 * len(b"X-A")
    def two_values(total: int) -> bytes:
        values = total - fixed
        return b"X-A: " + b"a" * (values // 2) + b"\r\nX-B: " + b"b" * (values - values // 2) + b"\r\n"
    assert request_status(port, two_values(LIST_KIB * 1024 - 1)) == 200
    assert request_status(port, two_values(LIST_KIB * 1024)) == 431


def test_header_lines_are_counted_up_to_the_readme_bound(rack):
    """Host and Connection count: the rest fill the bound exactly, then one more."""
    port = rack.http_port
    def lines(n: int) -> bytes:
        return b"".join(b"X-H%d: v\r\n" % i for i in range(n))
    assert request_status(port, lines(FIELD_COUNT - 2)) == 200
    assert request_status(port, lines(FIELD_COUNT - 1)) == 431


def test_a_target_is_answered_up_to_the_readme_bound_then_414(rack):
    port = rack.http_port
    assert request_status(port, target=b"/" + b"a" * (TARGET_BYTES - 1)) == 404, "a long unknown path: 404"
    assert request_status(port, target=b"/" + b"a" * TARGET_BYTES) == 414


# --- HTTP leniency --------------------------------------------------------------

def test_two_host_lines_are_refused(rack):
    port = rack.http_port
    request = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\n\r\n".encode()
    assert answer_and_close(port, request) == (400, True)
    request = f"GET / HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    assert answer_and_close(port, request) == (400, True)


def test_an_absolute_form_target_for_a_foreign_host_is_refused(rack):
    port = rack.http_port
    host = f"Host: 127.0.0.1:{port}\r\n"
    foreign = f"GET http://evil.example/rack/gain?VALUE HTTP/1.1\r\n{host}\r\n".encode()
    assert answer_and_close(port, foreign) == (403, True)
    own = f"GET http://127.0.0.1:{port}/rack/gain?VALUE HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode()
    assert answer_and_close(port, own) == (200, True)


def test_a_request_with_a_body_is_answered_413_and_closed_at_once(rack):
    """The body is announced, never sent, and the client does not ask for a close: rack's 413
    said `Connection: close` but held the socket for the 20 s idle timeout."""
    port = rack.http_port
    for framing in ["Content-Length: 10000000", "Content-Length: 5", "Transfer-Encoding: chunked"]:
        request = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{framing}\r\n\r\n".encode()
        t0 = time.monotonic()
        assert answer_and_close(port, request, timeout=5) == (413, True), framing
        assert time.monotonic() - t0 < 1.0, framing


def test_http_1_0_connections_are_closed_after_the_response(rack):
    port = rack.http_port
    request = f"GET /rack/gain?VALUE HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    t0 = time.monotonic()
    assert answer_and_close(port, request, timeout=5) == (200, True)
    assert time.monotonic() - t0 < 1.0


def test_http_1_1_keeps_the_connection_for_the_next_request(rack):
    """The control of the three above: requests that break no rule share one connection."""
    port = rack.http_port
    with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
        for _ in range(3):
            s.sendall(f"GET /rack/gain?VALUE HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            data = b""
            while not data.endswith(b'{"VALUE":[0]}'):
                chunk = s.recv(65536)
                assert chunk, f"closed after {data!r}"
                data += chunk
            assert data.startswith(b"HTTP/1.1 200")


# --- WebSocket protocol ---------------------------------------------------------

def open_websocket(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    s.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def frame(opcode: int, payload: bytes, masked: bool = True) -> bytes:
    key = b"\x11\x22\x33\x44"
    assert len(payload) < 126
    head = bytes([0x80 | opcode, (0x80 if masked else 0) | len(payload)])
    if not masked:
        return head + payload
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def read_frame(s: socket.socket) -> tuple[int, bytes]:
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            assert chunk, "closed without a close frame"
            data += chunk
        return data
    first, second = exactly(2)
    length = second & 0x7F
    if length == 126:
        length = int.from_bytes(exactly(2), "big")
    elif length == 127:
        length = int.from_bytes(exactly(8), "big")
    return first & 0x0F, exactly(length)


def close_code(s: socket.socket) -> int | None:
    """The status of the first close frame rack sends (other frames skipped)."""
    while True:
        opcode, payload = read_frame(s)
        if opcode == 0x8:
            return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None


def test_an_unmasked_client_frame_closes_with_1002(rack):
    with open_websocket(rack.http_port) as s:
        s.sendall(frame(0x2, osc_bytes("/ping"), masked=False))
        assert close_code(s) == 1002


def test_text_that_is_not_utf8_closes_with_1007(rack):
    with open_websocket(rack.http_port) as s:
        s.sendall(frame(0x1, b'{"COMMAND":"LISTEN","DATA":"/rack/\xff\xfe"}'))
        assert close_code(s) == 1007


def test_masked_frames_are_taken(rack):
    """The control of the two above: a masked LISTEN is answered with the value."""
    with open_websocket(rack.http_port) as s:
        s.sendall(frame(0x1, b'{"COMMAND":"LISTEN","DATA":"/rack/gain"}'))
        opcode, payload = read_frame(s)
        assert opcode == 0x2 and decode(payload)[0].address == "/rack/gain"
