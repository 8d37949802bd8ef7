"""Joining and leaving JACK: ports, client names, exit codes, signals, start-up options."""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest

import livelib
from livelib import Osc, RackProcess

PORTS = ("in_1", "in_2", "out_1", "out_2", "midi_in", "midi_out")


def test_ports_appear_within_one_second(rack_factory, jack, helpers):
    """Timed by a client that was there before the rack: the server's notice of each port is
    the moment it exists for every other client."""
    name = f"rkports{os.getpid()}"
    wanted = {f"{name}:{p}" for p in PORTS}
    seen: dict[str, float] = {}
    watch = subprocess.Popen([str(helpers["portwatch"])], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env=jack.env())
    try:
        assert watch.stdout.readline().strip() == "ready"

        def read() -> None:
            for line in watch.stdout:
                when, _, port = line.strip().partition(" ")
                seen.setdefault(port, float(when))

        threading.Thread(target=read, daemon=True).start()
        t0 = time.monotonic()
        rack = rack_factory(name=name, wait=False)
        assert livelib.wait_until(lambda: wanted <= seen.keys() or rack.proc.poll() is not None, 3.0), \
            f"ports {sorted(wanted - seen.keys())} not registered within 3 s\n{rack.describe()}"
        assert rack.proc.poll() is None, rack.describe()
    finally:
        watch.stdin.close()
        watch.wait(timeout=10)
    elapsed = max(seen[p] for p in wanted) - t0
    joined = f"{rack.joined_at - t0:.2f} s" if rack.joined_at else "not yet"
    assert elapsed <= 1.0, f"ports registered after {elapsed:.2f} s (promised: within a second); rack said it joined after {joined}"
    rack.wait_ready()
    print(f"start-up: ports after {elapsed * 1000:.0f} ms, the ready lines after "
          f"{(rack.ready_at - rack.started_at) * 1000:.0f} ms from exec")
    assert rack.client_name == name
    assert (rack.rate, rack.period) == (48000, 256)
    props = livelib.jack_ports(jack.name, "-p")
    # jack_lsp -p: "name\n\tproperties: input,..."
    blocks = dict(zip(*[iter([l.strip() for l in props.splitlines() if l.strip()])] * 2))
    for p in ("in_1", "in_2"):
        assert "input" in blocks[f"{name}:{p}"], blocks
    for p in ("out_1", "out_2"):
        assert "output" in blocks[f"{name}:{p}"], blocks


def test_taken_name_is_renamed_and_printed(rack_factory, jack, osc_factory):
    first = rack_factory(name="dup")
    second = rack_factory(name="dup")
    assert first.client_name == "dup"
    assert second.client_name and second.client_name != "dup", second.stdout
    ports = set(jack.ports())
    for client in (first.client_name, second.client_name):
        for p in PORTS:
            assert f"{client}:{p}" in ports, (client, sorted(ports))
    assert first.osc_port != second.osc_port
    assert osc_factory(first.osc_port).ping() and osc_factory(second.osc_port).ping()


def test_no_server_exits_69_with_one_line(rack_binary, tmp_path):
    server = f"rack-absent-{os.getpid()}"
    env = dict(os.environ, JACK_DEFAULT_SERVER=server, XDG_CONFIG_HOME=str(tmp_path))
    # deliberately no JACK_NO_START_SERVER: rack itself must never start a server
    env.pop("JACK_NO_START_SERVER", None)
    rack = RackProcess(["--osc-port", "0"], env, rack_binary)
    try:
        code = rack.wait_exit(15)
        assert code is not None, "rack kept running without a JACK server\n" + rack.describe()
        lines = [l for l in rack.stderr if l.strip()]
        assert code == 69, rack.describe()
        assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {lines}"
        # The example commands start the server rack looked for: JACK_DEFAULT_SERVER's.
        for hint in (f"`jackd -n {server} -d alsa`", f"`jackd -n {server} --no-realtime -d dummy -r 48000 -p 256 &`",
                     "pw-jack rack run"):
            assert hint in lines[0], f"the hint lacks {hint!r}: {lines[0]}"
        assert not livelib.jack_running(server), f"rack started a JACK server named {server}"
    finally:
        rack.stop()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_stops_cleanly(rack_factory, jack, sig):
    rack = rack_factory()
    name = rack.client_name
    assert f"{name}:out_1" in jack.ports()
    code = rack.stop(sig, timeout=5)
    assert code == 0, f"exit {code} after {sig.name}\n" + rack.describe()
    assert not any(p.startswith(name + ":") for p in jack.ports())


def test_fixed_osc_port(rack_factory, osc_factory):
    port = livelib.free_udp_port()
    rack = rack_factory("--osc-port", str(port))
    assert rack.osc_port == port and rack.osc_host == "127.0.0.1", rack.stdout
    assert osc_factory(port).ping()


def test_start_with_preset(rack_factory, osc_factory):
    rack = rack_factory("--preset", "Warm")
    osc = osc_factory(rack.osc_port)
    assert livelib.close_to(osc.get("cutoff"), 384)
    assert livelib.close_to(osc.get("resonance"), -3)


def test_missing_file_exits_66(rack_factory, tmp_path):
    rack = rack_factory("--file", str(tmp_path / "missing.wav"), wait=False)
    code = rack.wait_exit(10)
    assert code == 66, rack.describe()
    lines = [l for l in rack.stderr if l.strip()]
    assert len(lines) == 1 and "missing.wav" in lines[0], lines


def test_connect_wires_physical_ports(rack_factory, jack):
    rack = rack_factory("--connect")
    name = rack.client_name

    def wired() -> bool:
        conns = jack.connections()
        return ("system:playback_1" in conns.get(f"{name}:out_1", [])
                and "system:playback_2" in conns.get(f"{name}:out_2", [])
                and "system:capture_1" in conns.get(f"{name}:in_1", [])
                and "system:capture_2" in conns.get(f"{name}:in_2", []))

    assert livelib.wait_until(wired, 2.0, step=0.05), \
        {k: v for k, v in jack.connections().items() if k.startswith(name)}


def test_allow_drops_other_sources(rack_factory, osc_factory):
    blocked = rack_factory("--allow", "10.11.12.13")
    osc = osc_factory(blocked.osc_port)
    assert osc.request("/ping", reply="/pong", timeout=0.5) is None, "loopback not listed: must be ignored"
    assert osc.collect(0.2) == [], "dropped senders get no reply at all"
    allowed = rack_factory("--allow", "10.11.12.13", "--allow", "127.0.0.0/8")
    assert osc_factory(allowed.osc_port).ping()


def test_sigterm_right_after_the_ready_lines(rack_factory):
    """A script may stop rack as soon as it said it is ready: the signal must never be lost
    (a hang) nor kill it uncleanly."""
    results = []
    for _ in range(8):
        rack = rack_factory()
        results.append(rack.stop(signal.SIGTERM, timeout=3, settle=0))
    assert results == [0] * len(results), f"exit codes (None = hung, killed after 3 s): {results}"
