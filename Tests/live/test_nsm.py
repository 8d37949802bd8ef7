"""rack under a Non Session Manager: a fake NSM server (plain UDP + python-osc) announces,
opens a session, asks for saves; the rack's state comes back on the next open."""
from __future__ import annotations

import json
import os
import socket
import time

import livelib
from livelib import Osc, build_message, parse_packet


class FakeNSM:
    def __init__(self, bind: str = "127.0.0.1", url_host: str = "127.0.0.1"):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((bind, 0))
        self.url_host = url_host
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.client = None
        self.seen: list = []

    @property
    def url(self) -> str:
        return f"osc.udp://{self.url_host}:{self.port}/"

    def wait_for(self, address: str, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                data, addr = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            for m in parse_packet(data):
                self.seen.append(m)
                if m.address == "/nsm/server/announce":
                    self.client = addr
                if m.address == address:
                    return m
        return None

    def send(self, address: str, *args):
        self.sock.sendto(build_message(address, *args).dgram, self.client)

    def close(self):
        self.sock.close()


def open_session(rack_factory, nsm: FakeNSM, session: str):
    rack = rack_factory(env={"NSM_URL": nsm.url}, wait=False)
    announce = nsm.wait_for("/nsm/server/announce")
    assert announce is not None, rack.describe()
    assert announce.args[0] == "rack" and ":dirty:" in announce.args[1]
    nsm.send("/reply", "/nsm/server/announce", "hello", "fake-nsm", ":server-control:")
    nsm.send("/nsm/client/open", session, "rack test", "rack.nTEST")
    reply = nsm.wait_for("/reply")
    assert reply is not None and reply.args[0] == "/nsm/client/open", nsm.seen
    rack.wait_ready()
    return rack


def test_nsm_open_save_and_reopen(rack_factory, jack, tmp_path):
    session = str(tmp_path / "session" / "rack.nTEST")
    nsm = FakeNSM()
    try:
        rack = open_session(rack_factory, nsm, session)
        assert rack.client_name == "rack.nTEST", "the session names the JACK client"
        osc = Osc(rack.osc_port)
        osc.send("/rack/cutoff", 777.0)
        osc.send("/rack/room", "cathedral")
        assert osc.get("cutoff") == 777.0
        assert nsm.wait_for("/nsm/client/is_dirty", 3) is not None
        nsm.send("/nsm/client/save")
        saved = nsm.wait_for("/reply", 3)
        assert saved is not None and saved.args[0] == "/nsm/client/save"
        assert nsm.wait_for("/nsm/client/is_clean", 3) is not None
        state = json.loads(open(session + "/state.json").read())
        assert state["cutoff"] == 777 and state["room"] == "cathedral" and "playerFile" in state
        osc.close()
        assert rack.stop() == 0
    finally:
        nsm.close()

    nsm = FakeNSM()
    try:
        rack = open_session(rack_factory, nsm, session)
        osc = Osc(rack.osc_port)
        assert osc.get("cutoff") == 777.0
        assert osc.get("room") == "cathedral"
        osc.close()
    finally:
        nsm.close()


def _announce_and_open(nsm: FakeNSM, rack, session: str) -> None:
    announce = nsm.wait_for("/nsm/server/announce")
    assert announce is not None, rack.describe()
    nsm.send("/reply", "/nsm/server/announce", "hello", "fake-nsm", ":server-control:")
    nsm.send("/nsm/client/open", session, "rack test", session.rsplit("/", 1)[-1])
    reply = nsm.wait_for("/reply")
    assert reply is not None and reply.args[0] == "/nsm/client/open", (nsm.seen, rack.describe())
    rack.wait_ready()


def test_bare_rack_under_a_session_manager_runs_the_rack(jack, xdg, tmp_path):
    """`/nsm/server/add rack` starts the executable with no arguments: with NSM_URL set that
    is `rack run` (without it, the usage, as a test in test_tools checks)."""
    session = str(tmp_path / "session" / "rack.nBARE")
    nsm = FakeNSM()
    rack = livelib.RackProcess([], jack.env(XDG_CONFIG_HOME=str(xdg), NSM_URL=nsm.url), subcommand=None)
    try:
        _announce_and_open(nsm, rack, session)
        assert rack.client_name == "rack.nBARE"
        osc = Osc(rack.osc_port)
        assert osc.ping()
        osc.close()
        assert rack.stop() == 0
    finally:
        rack.stop()
        nsm.close()


def test_a_server_that_answers_from_another_loopback_address_is_recognised(rack_factory, tmp_path):
    """nsmd puts the machine's host name in NSM_URL; a stock /etc/hosts maps it to 127.0.1.1,
    while nsmd answers from 127.0.0.1. Here NSM_URL names 127.0.1.1 and the fake server, bound
    to every address, answers from 127.0.0.1: rack must take the open (it waited 10 s and
    exited 69 before)."""
    session = str(tmp_path / "session" / "rack.nLOOP")
    nsm = FakeNSM(bind="0.0.0.0", url_host="127.0.1.1")
    try:
        rack = rack_factory(env={"NSM_URL": nsm.url}, wait=False)
        t0 = time.monotonic()
        _announce_and_open(nsm, rack, session)
        assert time.monotonic() - t0 < 5, "the open was taken at once"
        assert rack.client_name == "rack.nLOOP"
        osc = Osc(rack.osc_port)
        osc.send("/rack/cutoff", 555.0)
        assert osc.get("cutoff") == 555.0
        assert nsm.wait_for("/nsm/client/is_dirty", 3) is not None, "rack answers the address the server spoke from"
        nsm.send("/nsm/client/save")
        saved = nsm.wait_for("/reply", 3)
        assert saved is not None and saved.args[0] == "/nsm/client/save", nsm.seen
        osc.close()
    finally:
        nsm.close()


def _refused_open(rack_factory, session: str, client_id: str):
    """Opens `session` as `client_id` under a fake server: the `/error` rack answers the open
    with (None if it answered none), its exit status and its stderr."""
    nsm = FakeNSM()
    try:
        rack = rack_factory(env={"NSM_URL": nsm.url}, wait=False)
        assert nsm.wait_for("/nsm/server/announce") is not None, rack.describe()
        nsm.send("/nsm/client/open", session, "rack test", client_id)
        error = nsm.wait_for("/error", 10)
        return error, rack.wait_exit(10), rack.stderr
    finally:
        nsm.close()


def test_an_open_rack_cannot_take_is_answered_with_an_error(rack_factory, jack, tmp_path):
    """The client id is the JACK client name, held to --name's rule (a 121-character id exited
    69 "no JACK server is running" with no answer; an empty id or one with ':' joined as is);
    the session path must be absolute (a relative one made saves land in the working directory;
    an empty one was taken). Each is answered `/error /nsm/client/open -1 REASON`, exit 65."""
    absolute = str(tmp_path / "session" / "rack.nBAD")
    cases = [(absolute, "x" * 121, "bytes"), (absolute, "", "bytes"), (absolute, "evil:name", "':'"),
             ("session/rack.nREL", "rack.nREL", "not absolute"), ("", "rack.nEMPTY", "not absolute")]
    for session, client_id, why in cases:
        error, status, stderr = _refused_open(rack_factory, session, client_id)
        assert error is not None and error.args[:2] == ["/nsm/client/open", -1] and why in error.args[2], (session, client_id, error, stderr)
        assert status == 65, (session, client_id, status, stderr)
        assert len(stderr) == 1 and why in stderr[0], stderr


def test_a_state_file_that_is_no_file_is_answered_with_an_error(rack_factory, jack, tmp_path):
    """state.json as a FIFO: exit 66 as before, and now the server is told why."""
    session = tmp_path / "session" / "rack.nFIFO"
    session.mkdir(parents=True)
    os.mkfifo(session / "state.json")
    error, status, stderr = _refused_open(rack_factory, str(session), "rack.nFIFO")
    assert error is not None and error.args[:2] == ["/nsm/client/open", -1] and "not a regular file" in error.args[2], (error, stderr)
    assert status == 66, stderr


def test_a_failure_after_the_open_is_answered_with_an_error(rack_factory, jack, tmp_path):
    """A failure between the open and the ready lines (here --record into a missing directory,
    73) reaches the server as `/error`, not silence."""
    session = str(tmp_path / "session" / "rack.nREC")
    nsm = FakeNSM()
    try:
        rack = rack_factory("--record", str(tmp_path / "missing" / "r.txt"), env={"NSM_URL": nsm.url}, wait=False)
        assert nsm.wait_for("/nsm/server/announce") is not None, rack.describe()
        nsm.send("/nsm/client/open", session, "rack test", "rack.nREC")
        error = nsm.wait_for("/error", 10)
        assert error is not None and error.args[:2] == ["/nsm/client/open", -1], (nsm.seen, rack.describe())
        assert rack.wait_exit(10) == 73, rack.describe()
    finally:
        nsm.close()
