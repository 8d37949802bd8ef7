"""No loop runs for ever, no sender starves another: a rack refuses to push to its own socket,
racks subscribed to each other settle after one exchange, and the error and subscriber budgets
keep a share for this machine's user that remote senders cannot take."""
from __future__ import annotations

import select
import socket
import time

from httplib import readme_number
from livelib import Osc, build_message, wait_until


def _params(msgs):
    """The parameter and preset messages among `msgs` (not meters, errors or pongs)."""
    return [m for m in msgs if m.address.startswith("/rack/") and m.address not in ("/rack/meter", "/rack/error")]


def test_a_rack_refuses_to_subscribe_its_own_port(rack_factory, osc_factory, tmp_path):
    record = tmp_path / "self.rackrec"
    rack = rack_factory("--record", str(record))
    user = osc_factory(rack.osc_port)
    for address in ("/rack/subscribe", "/rack/meter"):
        err = user.expect_error(address, rack.osc_port)
        assert err is not None and err.args[0] == address and "own OSC port" in err.args[1], err
    watcher = osc_factory(rack.osc_port)
    watcher.send("/rack/subscribe")
    assert watcher.ping()
    user.send("/rack/cutoff", 800.0)
    user.send("/rack/preset", "Warm")
    got = watcher.collect(1.0)
    assert len([m for m in got if m.address == "/rack/preset"]) == 1, got
    assert _params(watcher.collect(1.0)) == [], "still changing a second after the recall"
    # Another client's mistakes are all answered: no loop spends the error budget.
    other = osc_factory(rack.osc_port)
    for i in range(20):
        other.send("/rack/nonsense", i)
    errors = [m for m in other.collect(1.0) if m.address == "/rack/error"]
    assert len(errors) == 20, errors


def test_two_racks_subscribed_to_each_other_settle(rack_factory, osc_factory, tmp_path):
    a = rack_factory("--record", str(tmp_path / "a.rackrec"))
    b = rack_factory("--record", str(tmp_path / "b.rackrec"))
    user_a, user_b = osc_factory(a.osc_port), osc_factory(b.osc_port)
    user_a.send("/rack/subscribe", b.osc_port)      # a tells b, b tells a: linked
    user_b.send("/rack/subscribe", a.osc_port)
    watcher = osc_factory(a.osc_port)
    watcher.send("/rack/subscribe")
    assert watcher.ping() and user_a.ping() and user_b.ping()
    user_a.send("/rack/cutoff", 800.0)
    assert wait_until(lambda: user_b.get("cutoff") == 800.0, timeout=2.0)
    got = watcher.collect(1.0)
    assert [m.args for m in got if m.address == "/rack/cutoff"] == [[800.0]], got
    user_b.send("/rack/mix", 0.35)
    user_b.send("/rack/preset", "Warm")
    got = watcher.collect(1.5)
    assert len([m for m in got if m.address == "/rack/preset"]) == 1, got
    assert _params(watcher.collect(1.0)) == [], "still bouncing a second after the recall"
    assert a.proc.poll() is None and b.proc.poll() is None


class FromOsc(Osc):
    """An OSC client whose datagrams come from `source` (127.0.0.2 and the rest of 127/8 are
    remote to rack: they play other hosts)."""

    def __init__(self, port: int, source: str):
        self.target = ("127.0.0.1", port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind((source, 0))
        self.port = self.sock.getsockname()[1]
        self.backlog, self.sources = [], set()


def _remotes(rack, count: int) -> list[FromOsc]:
    return [FromOsc(rack.osc_port, f"127.0.0.{n}") for n in range(2, 2 + count)]


def test_remote_senders_leave_the_local_user_its_errors(rack, osc_factory):
    remotes = _remotes(rack, 10)
    user = osc_factory(rack.osc_port)
    try:
        for r in remotes:
            for i in range(100):
                r.send("/rack/nonsense", i)
        for i in range(20):
            user.send("/rack/nonsense", i)
        answered = [len([m for m in r.collect(0.3) if m.address == "/rack/error"]) for r in remotes]
        mine = [m for m in user.collect(0.5) if m.address == "/rack/error"]
        print(f"\nerrors to 10 remote addresses sending 100 each: {answered}; to the local user: {len(mine)} of 20")
        assert len(mine) == 20, mine
        assert max(answered) <= 20 and sum(answered) <= 150, answered
    finally:
        for r in remotes:
            r.close()


def test_remote_subscribers_leave_the_local_user_a_place(rack, osc_factory):
    remotes = _remotes(rack, 16)
    try:
        for r in remotes:
            for port in range(20001, 20005):
                r.send("/rack/subscribe", port)
        assert all(r.ping() for r in remotes)
        user = osc_factory(rack.osc_port)
        err = user.expect_error("/rack/subscribe", timeout=0.5)
        assert err is None, err
        user.send("/rack/cutoff", 900.0)
        assert [m.args for m in user.collect(0.5) if m.address == "/rack/cutoff"] == [[900.0]]
    finally:
        for r in remotes:
            r.close()


def test_pushes_to_a_remote_subscriber_spend_its_reply_budget(rack, osc_factory):
    """Two change and two meter subscriptions of 127.0.0.2, and 20 recalls a second made by the
    local user for 2 s: what reaches 127.0.0.2 stays within its reply budget (the README's bytes
    per byte it sent, and its allowance a second, from a full second's credit)."""
    per_byte = readme_number(r"a remote source earns (\d+) reply bytes per byte")
    allowance = readme_number(r"reply bytes per byte it sends, plus (\d+) KiB a second") * 1024
    far = [FromOsc(rack.osc_port, "127.0.0.2") for _ in range(4)]
    user = osc_factory(rack.osc_port)
    try:
        sent = 0
        started = time.monotonic()
        for i, f in enumerate(far):
            msg = "/rack/subscribe" if i < 2 else "/rack/meter"
            f.send(msg)
            sent += len(build_message(msg).dgram)
        assert user.ping()
        received = 0
        deadline = time.monotonic() + 2.0
        n = 0
        while time.monotonic() < deadline:
            user.send("/rack/preset", "Warm" if n % 2 == 0 else "Bright")
            n += 1
            time.sleep(0.05)
            for f in far:
                received += _bytes(f)
        time.sleep(0.2)
        for f in far:
            received += _bytes(f)
        bound = per_byte * sent + allowance * (1 + time.monotonic() - started)
        print(f"\n{n} recalls in 2 s: {received} bytes pushed to 127.0.0.2 (bound {bound:.0f})")
        assert 0 < received <= bound, (received, bound)
    finally:
        for f in far:
            f.close()


def _bytes(client: Osc) -> int:
    """Payload bytes waiting on `client`'s socket, read without waiting."""
    total = 0
    while True:
        r, _, _ = select.select([client.sock], [], [], 0)
        if not r:
            return total
        data, _ = client.sock.recvfrom(65536)
        total += len(data)
