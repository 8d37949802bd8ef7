"""HTTP connections are shared per address with a reserve for the user's own: 16 other
addresses × 16 WebSockets that answer pings and say nothing used to hold all of the connections
and lock the local page and WebSocket out (a GET /ui/ reset, still 26 s later)."""
from __future__ import annotations

import contextlib
import socket

from httplib import client, decode, get, osc as osc_bytes, readme_number, readme_row

ws_sync = client("websockets.sync.client")

CONNECTIONS = readme_row("connections")
MAX_CONNECTIONS = readme_number(r"(\d[\d,]*) open at once", CONNECTIONS)
PER_ADDRESS = readme_number(r"(\d+) per remote address", CONNECTIONS)
REMOTE_TOGETHER = readme_number(r"remote addresses together at most (\d+)", CONNECTIONS)
RESERVE = readme_number(r"so (\d+) are kept for 127\.0\.0\.1", CONNECTIONS)


def open_from(stack: contextlib.ExitStack, port: int, source: str) -> bool:
    """Opens a WebSocket to the rack from `source` (an address of 127/8), held until `stack`
    closes; False when the rack refuses it."""
    s = socket.create_connection(("127.0.0.1", port), timeout=3, source_address=(source, 0))
    try:
        stack.enter_context(ws_sync.connect(f"ws://127.0.0.1:{port}/", sock=s, open_timeout=3))
        return True
    except Exception:
        s.close()
        return False


def test_other_addresses_filling_their_share_leave_the_page_to_the_local_user(rack):
    """16 addresses other than 127.0.0.1, 16 WebSockets each (one more each, refused): as many
    as the README's remote share are open, no more; then a local GET /ui/ is answered 200 and a
    local WebSocket answers /ping with /pong."""
    assert REMOTE_TOGETHER + RESERVE == MAX_CONNECTIONS
    port = rack.http_port
    with contextlib.ExitStack() as stack:
        held = sum(open_from(stack, port, f"127.0.0.{2 + index // (PER_ADDRESS + 1)}")
                   for index in range(16 * (PER_ADDRESS + 1)))
        status, _ = get(port, "/ui/")
        assert status == 200, f"local GET /ui/ with {held} remote WebSockets open: {status}"
        with ws_sync.connect(f"ws://127.0.0.1:{port}/", open_timeout=3) as ws:
            ws.send(osc_bytes("/ping"))
            assert decode(ws.recv(timeout=3))[0].address == "/pong"
        assert held == REMOTE_TOGETHER, f"{held} remote WebSockets open"
