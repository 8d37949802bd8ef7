"""OSCQuery over HTTP, read by an independent client (python-oscquery) and by plain GETs:
the namespace from the parameter table, HOST_INFO, ?VALUE and the status codes."""
from __future__ import annotations

import socket

from zeroconf import ServiceInfo

from httplib import body, client, get, get_json, wait_until
from livelib import close_to

oscquery_client = client("pythonoscquery.osc_query_client")

# The README's parameter table (the one table in the code is the source; this is what users read).
PARAMETERS = {"cutoff": ("time.hz", 12, 20000, "logarithmic"), "resonance": ("gain.db", -20, 20, "linear"),
              "mix": ("%", 0, 100, "linear"), "gain": ("gain.db", -60, 12, "linear")}
ROOMS = {"smallRoom", "mediumRoom", "largeRoom", "mediumHall", "largeHall", "plate", "mediumChamber",
         "largeChamber", "cathedral", "largeRoom2", "mediumHall2", "mediumHall3", "largeHall2"}


def client_for(rack):
    info = ServiceInfo("_oscjson._tcp.local.", "rack-test._oscjson._tcp.local.",
                       addresses=[socket.inet_aton(rack.http_host)], port=rack.http_port)
    return oscquery_client.OSCQueryClient(info)


def test_ready_line_names_the_url(rack):
    assert rack.http_host == "127.0.0.1" and rack.http_port, rack.stdout
    assert any(f"http://127.0.0.1:{rack.http_port}/ui/" in line for line in rack.stdout), rack.stdout


def test_host_info_through_python_oscquery(rack):
    info = client_for(rack).get_host_info()
    assert info.name == rack.client_name
    assert (info.osc_ip, info.osc_port, info.osc_transport) == ("127.0.0.1", rack.osc_port, "UDP")
    assert info.extensions["LISTEN"] and info.extensions["VALUE"] and info.extensions["RANGE"]
    raw = get_json(rack.http_port, "/?HOST_INFO")
    assert (raw["WS_IP"], raw["WS_PORT"]) == ("127.0.0.1", rack.http_port)


def test_the_whole_namespace_parses_in_python_oscquery(rack):
    root = client_for(rack).query_node("/")
    paths = {n.full_path for n in root}
    for p in ["/rack/cutoff", "/rack/room", "/rack/preset", "/rack/player/load", "/rack/player/play",
              "/rack/get", "/rack/dump", "/rack/meter", "/rack/status", "/rack/version", "/ping"]:
        assert p in paths, (p, sorted(paths))
    cutoff = client_for(rack).query_node("/rack/cutoff")
    assert cutoff.value == [20000]


def test_parameters_come_from_the_table(rack):
    rack_node = get_json(rack.http_port, "/")["CONTENTS"]["rack"]["CONTENTS"]
    for name, (unit, lo, hi, taper) in PARAMETERS.items():
        node = rack_node[name]
        assert node["FULL_PATH"] == f"/rack/{name}"
        assert node["TYPE"] == "f" and node["ACCESS"] == 3 and node["CLIPMODE"] == ["both"]
        assert node["RANGE"] == [{"MIN": lo, "MAX": hi}] and node["UNIT"] == [unit]
        assert node["TAGS"] == [taper] and node["DESCRIPTION"]
        assert len(node["VALUE"]) == 1
    room = rack_node["room"]
    vals = room["RANGE"][0]["VALS"]
    assert room["TYPE"] == "s" and len(vals) == 13 and set(vals) == ROOMS and room["VALUE"] == ["mediumHall"]
    assert set(rack_node["preset"]["RANGE"][0]["VALS"]) >= {"Warm", "Bright", "Prominent"}
    assert set(rack_node["player"]["CONTENTS"]) == {"load", "play", "stop", "loop", "seek", "state", "media"}


def test_value_follows_osc(rack, osc):
    osc.send("/rack/cutoff", 800.0)
    assert close_to(osc.get("cutoff"), 800)
    # The value shown is the one the render thread applied: a period or two after the send.
    assert wait_until(lambda: body(get(rack.http_port, "/rack/cutoff?VALUE")[1]) == b'{"VALUE":[800]}')
    osc.send("/rack/room", "plate")
    assert wait_until(lambda: get_json(rack.http_port, "/rack/room?VALUE") == {"VALUE": ["plate"]})
    assert get_json(rack.http_port, "/rack/version?VALUE")["VALUE"] == [osc.request("/rack/version").args[0]]


def test_status_codes(rack):
    port = rack.http_port
    assert get(port, "/rack/nothing")[0] == 404
    assert get(port, "/rack/cutoff/nothing")[0] == 404
    assert get(port, "/rack/cutoff?NOSUCH")[0] == 400
    assert get(port, "/rack/dump?VALUE")[0] == 204, "a method without a value has no VALUE"
    assert get_json(port, "/rack/cutoff?RANGE") == {"RANGE": [{"MIN": 12, "MAX": 20000}]}
    status, response = get(port, "/ui")
    assert status == 301 and b"Location: /ui/" in response
    post = f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
    from httplib import raw_request
    assert raw_request(port, post)[0] == 405
