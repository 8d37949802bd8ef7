"""Feedback: subscribers get every applied change once, from any source."""
from __future__ import annotations

from livelib import close_to


def _only(msgs, address):
    return [m for m in msgs if m.address == address]


def test_two_subscribers_get_a_third_clients_change_once(rack, osc_factory):
    a = osc_factory(rack.osc_port)
    b = osc_factory(rack.osc_port)
    controller = osc_factory(rack.osc_port)
    other = osc_factory(rack.osc_port)
    a.send("/rack/subscribe")                       # default: the sender's port
    controller.send("/rack/subscribe", b.port)      # explicit port
    other.send("/rack/cutoff", 1000.0)
    assert close_to(other.get("cutoff"), 1000)
    a.collect(0.2), b.collect(0.01), controller.drain(0)

    err = other.expect_error("/rack/cutoff", 5.0)    # out of range: clamped to 12
    assert err is not None and "clamped to" in err.args[1], err
    got_a, got_b = a.collect(0.4), b.collect(0.05)
    for who, got in (("a", got_a), ("b", got_b)):
        cut = _only(got, "/rack/cutoff")
        assert len(cut) == 1, f"subscriber {who} got {len(cut)} cutoff messages: {got}"
        assert cut[0].tags == "f" and close_to(cut[0].args[0], 12), cut
    assert _only(controller.collect(0.05), "/rack/cutoff") == [], "the controller did not subscribe itself"

    other.send("/rack/room", "plate")
    other.send("/rack/preset", "Warm")
    got_a = a.collect(0.4)
    assert [m.args for m in _only(got_a, "/rack/room")][:1] == [["plate"]], got_a
    assert ["Warm"] in [m.args for m in _only(got_a, "/rack/preset")], got_a
    cut = _only(got_a, "/rack/cutoff")
    assert cut and close_to(cut[-1].args[0], 384), f"preset recall changes must be fed back too: {got_a}"

    a.send("/rack/unsubscribe")
    controller.send("/rack/unsubscribe", b.port)
    assert a.ping() and controller.ping()
    a.drain(0.1), b.drain(0.05)
    other.send("/rack/mix", 77.0)
    assert close_to(other.get("mix"), 77)
    assert _only(a.collect(0.3), "/rack/mix") == [], "a still subscribed"
    assert _only(b.collect(0.05), "/rack/mix") == [], "b still subscribed"


def test_subscriber_sees_its_own_changes_and_ramps_report_targets(rack, osc_factory):
    s = osc_factory(rack.osc_port)
    s.send("/rack/subscribe")
    s.send("/rack/gain", -12.0, 3.0)
    got = _only(s.collect(0.3), "/rack/gain")
    assert len(got) == 1 and close_to(got[0].args[0], -12), got
    s.send("/rack/unsubscribe")
