"""Helpers of the HTTP tests: plain HTTP requests on raw sockets (so nothing normalises the
path or the headers on the way), JSON GETs, and OSC bytes for WebSocket frames."""
from __future__ import annotations

import importlib
import json
import re
import socket
from types import ModuleType

import livelib
from livelib import build_message, parse_packet, wait_until  # noqa: F401 (the suite's one wait, re-exported)

README = livelib.documentation()


def client(module: str) -> ModuleType:
    """One of the HTTP tests' independent clients (websockets, python-oscquery, selenium), from
    the venv scripts/install-deps makes (scripts/live-test puts it first on PATH). Missing, it is
    a setup that is not the README's, not a reason to skip: the module's collection fails, saying
    so (Debian's own websockets, outside the venv, lacks the sync client)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{module} is missing ({e}): run scripts/install-deps, which makes .venv "
                          "with the HTTP tests' clients, and scripts/live-test, which uses it") from e


def readme_row(name: str) -> str:
    """The README exposure table's row `| name | ... |` (the HTTP tests read their figures there)."""
    m = re.search(rf"^\| {re.escape(name)} \|(.*)\|\s*$", README, re.MULTILINE)
    assert m, f"no '| {name} |' row in the README"
    return m.group(1)


def readme_number(pattern: str, text: str = README) -> int:
    """The number (digits with thousands commas) captured by `pattern` in `text`."""
    m = re.search(pattern, text)
    assert m, f"the README no longer says {pattern!r}: {text[:200]}"
    return int(m.group(1).replace(",", ""))


def raw_request(port: int, request: bytes, host: str = "127.0.0.1", timeout: float = 3.0,
                source: str | None = None) -> tuple[int | None, bytes]:
    """Sends `request` as it is; returns (status, whole response) or (None, b"") when the
    connection was closed without an answer."""
    s = socket.create_connection((host, port), timeout=timeout,
                                 source_address=(source, 0) if source else None)
    try:
        s.sendall(request)
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data and _complete(data):
                break
    finally:
        s.close()
    if not data.startswith(b"HTTP/1.1 "):
        return None, data
    return int(data[9:12]), data


def _complete(data: bytes) -> bool:
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return True


def get(port: int, target: str, host_header: str | None = None, extra: str = "") -> tuple[int | None, bytes]:
    """GET `target` exactly as given, with `Connection: close`."""
    host_header = host_header or f"127.0.0.1:{port}"
    req = f"GET {target} HTTP/1.1\r\nHost: {host_header}\r\n{extra}Connection: close\r\n\r\n".encode()
    return raw_request(port, req)


def body(response: bytes) -> bytes:
    return response.partition(b"\r\n\r\n")[2]


def get_json(port: int, target: str):
    status, response = get(port, target)
    assert status == 200, (target, status, response[:300])
    return json.loads(body(response))


def osc(address: str, *args) -> bytes:
    return build_message(address, *args).dgram


def decode(frame: bytes):
    return parse_packet(frame)


