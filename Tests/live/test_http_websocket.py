"""The OSCQuery WebSocket, driven by an independent client (websockets): LISTEN/IGNORE with
value pushes for changes from any source, binary OSC applied like UDP OSC with replies on the
socket, and upgrades from a foreign Origin refused."""
from __future__ import annotations

import json
import socket

import pytest

from httplib import client, decode, osc as osc_bytes, readme_number, readme_row, wait_until
from livelib import close_to

ws_sync = client("websockets.sync.client")
exceptions = client("websockets.exceptions")


def connect(rack, **kwargs):
    return ws_sync.connect(f"ws://127.0.0.1:{rack.http_port}/", open_timeout=3, **kwargs)


def messages(ws, timeout: float = 1.0, until=None):
    """OSC messages received within `timeout` (or until one matches `until`)."""
    got = []
    while True:
        try:
            frame = ws.recv(timeout=timeout)
        except TimeoutError:
            return got
        if isinstance(frame, bytes):
            got += decode(frame)
            if until and any(until(m) for m in got):
                return got


def test_listen_pushes_changes_from_udp_and_ignore_stops_them(rack, osc):
    with connect(rack) as ws:
        ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": "/rack/cutoff"}))
        first = messages(ws, 1.0, until=lambda m: m.address == "/rack/cutoff")
        assert first and first[0].args == [20000.0], "a LISTEN is answered with the current value"
        osc.send("/rack/cutoff", 1234.0)
        got = messages(ws, 1.0, until=lambda m: m.address == "/rack/cutoff")
        assert got and close_to(got[-1].args[0], 1234), got
        osc.send("/rack/gain", -3.0)
        assert not [m for m in messages(ws, 0.3) if m.address == "/rack/gain"], "only what it listens to"
        ws.send(json.dumps({"COMMAND": "IGNORE", "DATA": "/rack/cutoff"}))
        # A LISTEN after it is answered once the IGNORE before it was handled (one connection's
        # commands are handled in order): then the change is sent.
        ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": "/rack/mix"}))
        handled = messages(ws, 2.0, until=lambda m: m.address == "/rack/mix")
        assert handled and handled[-1].address == "/rack/mix", f"the LISTEN after the IGNORE unanswered: {handled}"
        osc.send("/rack/cutoff", 500.0)
        assert not [m for m in messages(ws, 0.4) if m.address == "/rack/cutoff"]


def test_preset_recall_pushes_every_parameter(rack, osc):
    with connect(rack) as ws:
        listened = ["/rack/cutoff", "/rack/mix", "/rack/preset"]
        for p in listened:
            ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": p}))
        # Each LISTEN is answered with the current value: all three are in place after the last.
        answered = messages(ws, 2.0, until=lambda m: m.address == listened[-1])
        assert any(m.address == listened[-1] for m in answered), f"LISTEN unanswered: {answered}"
        osc.send("/rack/preset", "Warm")
        got = messages(ws, 1.5)
        seen = {m.address: m.args[0] for m in got}
        assert seen.get("/rack/preset") == "Warm" and close_to(seen.get("/rack/cutoff"), 384), got
        assert close_to(seen.get("/rack/mix"), 40), got


def test_binary_osc_is_applied_like_udp_and_replies_come_back(rack, osc):
    with connect(rack) as ws:
        ws.send(osc_bytes("/rack/gain", -6.5))
        assert wait_until(lambda: close_to(osc.get("gain"), -6.5))
        ws.send(osc_bytes("/rack/get", "gain"))
        got = messages(ws, 1.0, until=lambda m: m.address == "/rack/gain")
        assert [m.args for m in got if m.address == "/rack/gain"] == [[-6.5]], got
        ws.send(osc_bytes("/rack/cutoff", "loud"))
        got = messages(ws, 1.0, until=lambda m: m.address == "/rack/error")
        assert any(m.address == "/rack/error" and m.args[0] == "/rack/cutoff" for m in got), got
        ws.send(b"\x00\x01")
        got = messages(ws, 1.0, until=lambda m: m.address == "/rack/error")
        assert any(m.address == "/rack/error" for m in got), "a malformed frame is an OSC error, not a crash"
    assert osc.ping()


def test_subscribe_over_the_websocket_ends_with_it(rack, osc):
    with connect(rack) as ws:
        ws.send(osc_bytes("/rack/subscribe"))
        messages(ws, 0.2)
        osc.send("/rack/mix", 12.0)
        got = messages(ws, 1.0, until=lambda m: m.address == "/rack/mix")
        assert any(m.address == "/rack/mix" for m in got), got
    osc.send("/rack/mix", 13.0)
    assert close_to(osc.get("mix"), 13) and osc.ping()


def test_foreign_origin_is_refused(rack):
    port = rack.http_port
    for origin in ["http://evil.example", f"http://localhost:{port + 1}"]:
        with pytest.raises(exceptions.InvalidStatus) as refused:
            connect(rack, origin=origin)
        response = refused.value.response
        assert response.status_code == 403, (origin, response.status_code)
        assert "Sec-WebSocket-Accept" not in response.headers and "Upgrade" not in response.headers
        assert response.body == b"WebSocket from a foreign Origin refused\n"
    with connect(rack, origin=f"http://127.0.0.1:{port}") as ws:   # the page's own origin
        ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": "/rack/room"}))
        assert messages(ws, 1.0, until=lambda m: m.address == "/rack/room")


# The README's exposure row: "messages ≤ 64 KiB (larger closes that socket)".
MESSAGE_BYTES = readme_number(r"messages ≤ (\d+) KiB \(larger closes that socket", readme_row("WebSocket")) * 1024


def test_a_message_of_the_readme_size_is_taken(rack):
    """An OSC message of exactly the bound is applied like a datagram: its reply (an error,
    the name being too long) comes back on the socket."""
    address = "/rack/preset/delete"
    name = "x" * (MESSAGE_BYTES - 24 - 1)   # 20 bytes of address, 4 of type tag, the name, its NUL
    packet = osc_bytes(address, name)
    assert len(packet) == MESSAGE_BYTES
    with connect(rack, max_size=None) as ws:
        ws.send(packet)
        replies = messages(ws, 3.0, until=lambda m: m.address == "/rack/error")
        assert any(m.address == "/rack/error" and m.args[0] == address for m in replies), replies


def test_oversized_websocket_message_closes_only_that_socket(rack, osc):
    with connect(rack, max_size=None) as ws:
        ws.send(b"\x00" * (MESSAGE_BYTES + 4))   # the next size an OSC packet can have
        with pytest.raises(exceptions.ConnectionClosed):
            for _ in range(20):
                ws.recv(timeout=0.5)
    with connect(rack) as ws:
        ws.send(osc_bytes("/rack/gain", -1.0))
        assert wait_until(lambda: close_to(osc.get("gain"), -1))


def test_a_websocket_and_a_udp_controller_on_the_same_port_stay_apart(rack, osc_factory):
    """A UDP controller on 127.0.0.1:P and a WebSocket whose TCP source port is also P are two
    controllers: each gets its own replies and pushes, and the WebSocket closing ends only its
    own subscription (they used to share an endpoint: the UDP one's pushes went to the socket)."""
    udp = osc_factory(rack.osc_port)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", udp.port))      # TCP and UDP ports are separate: the same number
    tcp.connect(("127.0.0.1", rack.http_port))
    udp.send("/rack/subscribe")
    assert udp.ping()
    with ws_sync.connect(f"ws://127.0.0.1:{rack.http_port}/", sock=tcp, open_timeout=3) as ws:
        assert ws.socket.getsockname()[1] == udp.port
        ws.send(osc_bytes("/rack/get", "gain"))
        got = messages(ws, 1.0, until=lambda m: m.address == "/rack/gain")
        assert [m.address for m in got] == ["/rack/gain"], got
        udp.drain(0.2)
        udp.send("/rack/mix", 21.0)
        assert [m.args for m in udp.collect(0.5) if m.address == "/rack/mix"] == [[21.0]], "the UDP subscriber is told"
        assert [m for m in messages(ws, 0.3) if m.address == "/rack/mix"] == [], "the WebSocket did not subscribe"
        assert udp.get("gain") is not None, "the UDP controller's reply comes over UDP"
    assert udp.ping()
    udp.drain(0.2)
    osc_factory(rack.osc_port).send("/rack/mix", 22.0)
    assert [m.args for m in udp.collect(0.5) if m.address == "/rack/mix"] == [[22.0]], "still subscribed after the WebSocket closed"
