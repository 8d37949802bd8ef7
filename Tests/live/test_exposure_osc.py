"""Safe exposure of OSC to senders other than 127.0.0.1 (127.0.0.2 plays the remote host):
replies bounded by a small multiple of the request, subscriptions as leases that no single
source can fill the tables with, and files only from --media-dir with one generic error."""
from __future__ import annotations

import os
import socket
import time

import pytest

from livelib import Osc, build_bundle, build_message, wait_until

REMOTE = "127.0.0.2"


class RemoteOsc(Osc):
    """An OSC client whose datagrams come from 127.0.0.2."""

    def __init__(self, port: int):
        self.target = ("127.0.0.1", port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((REMOTE, 0))
        self.port = self.sock.getsockname()[1]
        self.backlog, self.sources = [], set()


@pytest.fixture
def remote(rack):
    c = RemoteOsc(rack.osc_port)
    yield c
    c.close()


def dump_bundle() -> bytes:
    """One datagram of 64 KB: a bundle of as many /rack/dump requests as fit."""
    element = build_message("/rack/dump").dgram
    count = (65_507 - 16) // (len(element) + 4)
    return build_bundle(0, *[build_message("/rack/dump")] * count)


def reply_bytes(client: Osc, seconds: float) -> tuple[int, int]:
    """Bytes and datagrams received within `seconds`."""
    total, n = 0, 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        import select
        r, _, _ = select.select([client.sock], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            break
        data, _ = client.sock.recvfrom(65536)
        total += len(data) + 28   # IP and UDP headers, as on the wire
        n += 1
    return total, n


def test_amplification_before_and_after(rack, osc, remote):
    bundle = dump_bundle()
    sent = len(bundle) + 28
    osc.send_raw(bundle)                      # 127.0.0.1: not bounded (can't be forged from outside)
    local_bytes, local_n = reply_bytes(osc, 2.0)
    remote.send_raw(bundle)
    remote_bytes, remote_n = reply_bytes(remote, 1.0)
    print(f"\namplification, one {len(bundle)}-byte bundle of /rack/dump: local {local_n} replies, "
          f"{local_bytes / sent:.1f}x; remote {remote_n} replies, {remote_bytes / sent:.3f}x")
    assert local_bytes / sent > 10, "the unbounded path still answers everything (the figure before)"
    assert remote_n <= 64 and remote_bytes / sent < 0.1


def test_small_requests_are_answered_but_bounded_per_source(remote):
    assert remote.ping()
    parameters = len(remote.request_all("/rack/dump")) - 1      # one reply per parameter, and the preset
    assert len(remote.request_all("/rack/params")) == parameters, "a single request is always answered"
    for _ in range(300):
        remote.send("/rack/params")
    got, _ = reply_bytes(remote, 1.5)
    sent = 300 * (16 + 28)
    assert got <= 2 * sent + 2 * 4096 + 4096, (got, sent)


def test_one_remote_meter_request_is_not_amplified_beyond_its_lease(rack):
    """One 20-byte `/rack/meter i PORT` from 127.0.0.2: meters at their rate for the README's
    remote meter lease, then nothing, within the 20 s the README's figures are for."""
    from httplib import readme_number
    lease = readme_number(r"and `/rack/meter` one of \*\*(\d+) s\*\*")
    hz = readme_number(r"\| `/rack/meter` \| optional `i` port \| (\d+) times a second")
    far = RemoteOsc(rack.osc_port)
    try:
        request = build_message("/rack/meter", far.port).dgram
        assert len(request) == 20
        far.send_raw(request)
        start = time.monotonic()
        datagrams, size, last = 0, 0, None
        far.sock.settimeout(0.2)
        while time.monotonic() - start < 20:
            try:
                data = far.sock.recv(65536)
            except socket.timeout:
                continue
            datagrams, size, last = datagrams + 1, size + len(data), time.monotonic() - start
        print(f"\none remote meter request: {datagrams} datagrams, {size} bytes in 20 s, the last after {last} s")
        assert datagrams > 0, "no meters at all"
        assert datagrams <= lease * hz + 1, f"{datagrams} datagrams: more than {lease} s of meters at {hz} a second"
        assert last < lease + 1, f"meters still came {last:.2f} s after a lease of {lease} s"
    finally:
        far.close()


def test_remote_subscriptions_are_leases(rack_factory, osc_factory):
    rack = rack_factory("--subscription-lease", "1")
    local = osc_factory(rack.osc_port)
    far = RemoteOsc(rack.osc_port)
    try:
        subscribed = time.monotonic()
        far.send("/rack/meter")
        local.send("/rack/meter")
        assert far.wait_for("/rack/meter", 1.0) and local.wait_for("/rack/meter", 1.0)
        last_push = [time.monotonic()]

        def lapsed() -> bool:   # no push for 0.5 s (they come every 66 ms while subscribed)
            if far.recv(0.5) is not None:
                last_push[0] = time.monotonic()
                return False
            return True

        assert wait_until(lapsed, 4.0, step=0.0), "the remote lease of 1 s did not lapse within 4 s"
        lasted = last_push[0] - subscribed
        print(f"\nremote meters for {lasted:.2f} s on a lease of 1 s")
        assert lasted >= 0.9, f"the remote lease lapsed after {lasted:.2f} s, before its 1 s"
        assert not far.collect(0.5), "the remote lease lapsed"
        assert local.collect(0.5), "a local subscription stays"
        far.send("/rack/meter")
        assert far.wait_for("/rack/meter", 1.0), "subscribing again renews it"
    finally:
        far.close()


def test_one_remote_address_cannot_fill_the_tables(remote):
    for port in range(20001, 20005):
        remote.send("/rack/subscribe", port)
    err = remote.expect_error("/rack/subscribe", 20005)
    assert err and err.args == ["/rack/subscribe", "too many subscriptions from this address"]
    err = remote.expect_error("/rack/meter", 20006)
    assert err and err.args[1] == "too many subscriptions from this address"


@pytest.fixture
def media(tmp_path):
    d = tmp_path / "media"
    d.mkdir()
    subprocess_sox = __import__("subprocess")
    subprocess_sox.run(["sox", "-n", "-r", "48000", "-c", "2", str(d / "tone.wav"), "synth", "1", "sine", "440"], check=True)
    subprocess_sox.run(["sox", "-n", "-r", "48000", "-c", "2", str(tmp_path / "outside.wav"), "synth", "1", "sine", "220"], check=True)
    os.symlink(tmp_path / "outside.wav", d / "link.wav")
    (d / "text.wav").write_text("not audio")
    return d


def test_media_dir_and_one_generic_error(rack_factory, media):
    rack = rack_factory("--media-dir", str(media))
    far = RemoteOsc(rack.osc_port)
    try:
        far.send("/rack/player/load", str(media / "tone.wav"))
        assert far.recv(0.8) is None, "a file under --media-dir loads"
        answers = set()
        for path in ["/etc/passwd", str(media.parent / "outside.wav"), str(media / "link.wav"),
                     str(media / ".." / "outside.wav"), str(media / "missing.wav"), str(media / "text.wav"),
                     str(media), "/dev/zero"]:
            err = far.expect_error("/rack/player/load", path, timeout=1.5)
            assert err, path
            answers.add(err.args[1])
        assert answers == {"cannot load this file"}, answers
    finally:
        far.close()
    local = Osc(rack.osc_port)
    try:
        err = local.expect_error("/rack/player/load", str(media / "missing.wav"), timeout=1.5)
        assert err and err.args[1] != "cannot load this file", "127.0.0.1 still gets the real reason"
    finally:
        local.close()


def test_a_host_beyond_loopback_without_allow_is_warned_about(rack_factory, osc_factory, tmp_path):
    """The README: --osc-host and --http-host warn when they expose the rack without --allow
    (one line each on stderr); with --allow they say nothing. No system bus: nothing advertised."""
    env = {"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={tmp_path / 'no-bus'}"}
    said = ["rack: warning: OSC is reachable from 0.0.0.0; anyone who can send to it controls the rack (see --allow)",
            "rack: warning: the web page and OSCQuery are reachable from 0.0.0.0; anyone who can connect controls "
            "the rack (see --allow)"]
    exposed = rack_factory("--osc-host", "0.0.0.0", "--http-host", "0.0.0.0", env=env)
    assert wait_until(lambda: all(line in exposed.stderr for line in said), 2), exposed.describe()
    assert len(exposed.stderr) == 2, exposed.stderr
    guarded = rack_factory("--osc-host", "0.0.0.0", "--http-host", "0.0.0.0", "--allow", "127.0.0.1", env=env)
    assert osc_factory(guarded.osc_port).ping()
    assert guarded.stderr == [], guarded.stderr


def test_a_datagram_of_media_listings_holds_no_one_up(rack_factory, tmp_path):
    """A remote datagram of 200 `/rack/player/media` over a --media-dir of 5,000 files walked the
    tree 200 times (a /ping behind it waited 37.9 s with 30,000 files): now one listing per
    datagram, the rest answered busy, and the /ping sent right behind it answers within the
    README's bound."""
    from httplib import readme_number, readme_row
    row = readme_row("costly work")
    bound = readme_number(r"answers within \*\*([\d,]+) ms\*\*", row) / 1000
    files = readme_number(r"datagram of [\d,]+ listings over ([\d,]+) files", row)
    asked = readme_number(r"datagram of ([\d,]+) listings", row)
    media = tmp_path / "media"
    media.mkdir()
    for i in range(files):
        (media / f"f{i}.txt").touch()
    rack = rack_factory("--media-dir", str(media))
    far, local = RemoteOsc(rack.osc_port), Osc(rack.osc_port)
    try:
        far.send_raw(build_bundle(0, *[build_message("/rack/player/media")] * asked))
        t0 = time.monotonic()
        assert local.ping(timeout=10), "the /ping is answered"
        waited = time.monotonic() - t0
        assert waited < bound, f"/pong after {waited:.2f} s, bound {bound} s"
        listing = far.wait_for("/rack/player/media", timeout=2)
        assert listing is not None and listing.args == [], "the first listing is answered (no audio files)"
        busy = far.wait_for("/rack/error", timeout=2)
        assert busy is not None and busy.args[0] == "/rack/player/media" and busy.args[1].startswith("busy: "), busy
    finally:
        far.close()
        local.close()
