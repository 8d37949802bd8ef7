"""rack on a remote DSP host through netjack2, with two "hosts" in network namespaces on this
machine (netjacklib.TwoHosts): a master (`jackd -d dummy` + `jack_load netmanager`) and a dsp
host (`jackd -d net`) joined by a veth pair. rack runs on the dsp host with --connect, OSC and
HTTP bound to the dsp host's veth address and --allow naming the master. From the master a
client (netloop) plays noise bursts into the dsp host's capture port and records its playback
ports in the same process callback: the filter and the reverb are heard there, and the latency
netjack2 adds is measured to the frame. Then faults: the master's jackd stopped and restarted,
the link down for 2 s; rack keeps answering and its state is kept, and sound flows again.

Needs root (ip netns); skipped with one line otherwise. Every process is stopped by its pid,
the namespaces are deleted, pass or fail. Two JACK servers at most, at any time.
"""
from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import livelib
import netjacklib
from livelib import RackProcess, wait_until
from netjacklib import DSP_ADDRESS, DSP_LINK, MASTER_ADDRESS, STRANGER_ADDRESS

RATE, PERIOD = 48000, 256
BURST = RATE // 4          # netloop: 0.25 s of noise at the start of every second


@pytest.fixture(scope="module")
def netloop(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("netloop") / "netloop"
    subprocess.run(["cc", "-O2", "-o", str(out), str(Path(__file__).parent / "netloop.c"), "-ljack"],
                   check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    why = netjacklib.why_not()
    if why:
        pytest.skip(why)
    two = netjacklib.TwoHosts(tmp_path_factory.mktemp("netjack"), PERIOD, RATE)
    try:
        two.start_network()
        two.start_master()
        two.start_dsp()
        two.wait_joined()
        yield two
    finally:
        two.stop()


@pytest.fixture(scope="module")
def remote_rack(hosts, rack_binary, tmp_path_factory):
    """rack on the dsp host: connected to its physical ports, OSC and HTTP on its veth address,
    obeying the master only. Not advertised (the machine's own Avahi stays out of it)."""
    xdg = tmp_path_factory.mktemp("xdg")
    env = livelib.jack_env(hosts.dsp_server, XDG_CONFIG_HOME=str(xdg),
                           DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={xdg / 'no-bus'}")
    args = ["--net=" + str(netjacklib.NETNS_DIR / hosts.dsp_ns), str(rack_binary), "run",
            "--name", "fx", "--connect", "--osc-host", DSP_ADDRESS, "--osc-port", "0",
            "--http-host", DSP_ADDRESS, "--http-port", "0", "--allow", MASTER_ADDRESS, "--no-advertise"]
    rack = RackProcess(args, env, Path(shutil.which("nsenter") or "nsenter"), subcommand=None)
    try:
        rack.wait_ready(15)
        yield rack
    finally:
        code = rack.stop()
        assert code == 0, f"rack exited with {code} on SIGTERM\n{rack.describe()}"


@pytest.fixture
def master_osc(hosts, remote_rack):
    osc = hosts.osc_from_master(remote_rack.osc_port)
    yield osc
    osc.close()


def _set(osc, param: str, value: float) -> None:
    osc.send(f"/rack/{param}", value)
    assert livelib.close_to(osc.get(param), value), f"{param} did not become {value} over the veth pair"


def _bursts(signal: np.ndarray, lag: int, start: int, stop: int) -> np.ndarray:
    """The frames from `start` to `stop` (relative to each burst's start) of every whole burst
    in the recording, `lag` frames late."""
    pieces = []
    for first in range(lag, len(signal) - RATE + 1, RATE):
        pieces.append(signal[first + start:first + stop])
    return np.concatenate(pieces)


def _db(x: float) -> float:
    return 10 * np.log10(max(x, 1e-30))


def _reported_round_trip(hosts) -> int:
    """What JACK on the dsp host reports: capture latency + playback latency of its ports."""
    out = subprocess.run(["jack_lsp", "-l"], capture_output=True, text=True, timeout=10,
                         env=livelib.jack_env(hosts.dsp_server)).stdout
    latency: dict[tuple[str, str], int] = {}
    port = ""
    for line in out.splitlines():
        if not line.startswith((" ", "\t")):
            port = line.strip()
        elif "latency = [" in line:
            kind = line.split("port ")[1].split(" latency")[0]
            latency[(port, kind)] = int(line.split("[")[1].split()[0])
    return latency[("system:capture_1", "capture")] + latency[("system:playback_1", "playback")]


def _jack_connect(server: str, verb: str, source: str, dest: str) -> None:
    out = subprocess.run([f"jack_{verb}", source, dest], capture_output=True, text=True, timeout=10,
                         env=livelib.jack_env(server))
    assert out.returncode == 0, f"jack_{verb} {source} {dest}: {out.stderr.strip()}"


def test_audio_crosses_hosts_filtered_and_reverberated(hosts, remote_rack, master_osc, netloop, tmp_path):
    # The network alone first: on the dsp host, its capture wired straight to its playback.
    out_1 = f"{remote_rack.client_name}:out_1"
    _jack_connect(hosts.dsp_server, "disconnect", out_1, "system:playback_1")
    _jack_connect(hosts.dsp_server, "connect", "system:capture_1", "system:playback_1")
    try:
        played, wire = netjacklib.round_trip(netloop, hosts.master_server, 2.0, tmp_path / "wire.raw")
    finally:
        _jack_connect(hosts.dsp_server, "disconnect", "system:capture_1", "system:playback_1")
        _jack_connect(hosts.dsp_server, "connect", out_1, "system:playback_1")
    network_lag, identity = netjacklib.delay_frames(played, wire[:, 0])
    reported = _reported_round_trip(hosts)
    print(f"netjack2 round trip master -> dsp host -> master: {network_lag} frames "
          f"({1000 * network_lag / RATE:.1f} ms, {network_lag / PERIOD:g} periods of {PERIOD}); "
          f"the dsp host's ports report {reported}")
    assert identity > 0.9999, f"the network changed the samples (correlation {identity:.6f})"
    assert network_lag == reported, f"measured {network_lag} frames, the ports report {reported}"

    # Then through rack, dry (the demo loop off: only the master's signal goes through).
    master_osc.send("/rack/player/stop")
    _set(master_osc, "mix", 0.0)
    _set(master_osc, "cutoff", 20000.0)
    played, dry = netjacklib.round_trip(netloop, hosts.master_server, 3.0, tmp_path / "dry.raw")
    lag, _ = netjacklib.delay_frames(played, dry[:, 0])
    print(f"through rack: {lag} frames ({1000 * lag / RATE:.1f} ms)")
    # jackd2 runs clients asynchronously by default: a client's output reaches the driver one
    # period after its input came from it (a straight wire does not); rack adds nothing.
    assert lag == network_lag + PERIOD, f"through rack {lag} frames, the network alone {network_lag}"

    _set(master_osc, "cutoff", 300.0)
    time.sleep(0.1)   # the cutoff's ramp; the recording's analysis skips a burst's first 50 ms anyway
    _, dark = netjacklib.round_trip(netloop, hosts.master_server, 3.0, tmp_path / "dark.raw")
    window = (RATE // 20, BURST)
    bright_centroid = livelib.spectral_centroid(_bursts(dry[:, 0], lag, *window), RATE)
    dark_centroid = livelib.spectral_centroid(_bursts(dark[:, 0], lag, *window), RATE)
    print(f"spectral centroid during the bursts: {bright_centroid:.0f} Hz at 20 kHz, {dark_centroid:.0f} Hz at 300 Hz")
    assert dark_centroid < 0.3 * bright_centroid

    _set(master_osc, "cutoff", 20000.0)
    _set(master_osc, "mix", 100.0)
    time.sleep(0.1)
    _, wet = netjacklib.round_trip(netloop, hosts.master_server, 3.0, tmp_path / "wet.raw")
    tail = (BURST + RATE // 50, BURST + RATE * 3 // 10)     # 20…300 ms after a burst ends
    for name, take in (("dry", dry), ("wet", wet)):
        burst_power = (_bursts(take, lag, *window) ** 2).mean()
        tail_power = (_bursts(take, lag, *tail) ** 2).mean()
        print(f"{name}: tail 20-300 ms after a burst {_db(tail_power) - _db(burst_power):.1f} dB re the burst")
        if name == "dry":
            assert _db(tail_power) - _db(burst_power) < -80, "a tail without the reverb"
        else:
            assert _db(tail_power) - _db(burst_power) > -30, "no reverb tail heard at the master"
    assert np.isfinite(wet).all()


def test_osc_from_the_master_is_obeyed_and_a_stranger_is_ignored(hosts, remote_rack, master_osc):
    assert master_osc.ping()
    _set(master_osc, "resonance", 3.0)
    stranger = hosts.osc_from_master(remote_rack.osc_port, source=STRANGER_ADDRESS)
    try:
        stranger.send("/rack/resonance", -7.0)
        assert stranger.request("/ping", reply="/pong", timeout=0.5) is None, "a sender outside --allow got a reply"
        assert livelib.close_to(master_osc.get("resonance"), 3.0), "a sender outside --allow changed the rack"
    finally:
        stranger.close()
    assert f"rack: OSC on osc.udp://{DSP_ADDRESS}:{remote_rack.osc_port}/" in remote_rack.stdout


def _audio_flows(hosts, netloop, tmp_path) -> bool:
    try:
        played, back = netjacklib.round_trip(netloop, hosts.master_server, 1.2, tmp_path / "flow.raw")
    except RuntimeError:
        return False
    return (back[:, 0] ** 2).mean() > 1e-4 * (played ** 2).mean()


def test_the_master_restarting_leaves_rack_running_with_its_state(hosts, remote_rack, master_osc, netloop, tmp_path):
    _set(master_osc, "mix", 0.0)
    _set(master_osc, "cutoff", 4321.0)
    hosts.stop_master()
    assert master_osc.ping(), "rack stopped answering OSC with the master's jackd gone"
    assert remote_rack.proc.poll() is None
    t0 = time.monotonic()
    hosts.start_master()
    hosts.wait_joined(30)
    assert wait_until(lambda: _audio_flows(hosts, netloop, tmp_path), 30, step=0.2), \
        "no sound back at the master after its restart\n" + hosts.log(hosts.dsp_server)
    print(f"sound back at the master {time.monotonic() - t0:.1f} s after its jackd restarted")
    assert livelib.close_to(master_osc.get("cutoff"), 4321.0)
    assert remote_rack.proc.poll() is None


def test_the_link_down_for_two_seconds(hosts, remote_rack, master_osc, netloop, tmp_path):
    _set(master_osc, "mix", 0.0)
    _set(master_osc, "cutoff", 1234.0)
    assert wait_until(lambda: _audio_flows(hosts, netloop, tmp_path), 10, step=0.2)
    hosts.link_down(DSP_LINK)   # the dsp host's cable pulled
    try:
        time.sleep(2.0)   # the fault itself: two seconds without a link
        assert master_osc.request("/ping", reply="/pong", timeout=0.3) is None, "the link was not down"
    finally:
        hosts.link_up(DSP_LINK)
    t0 = time.monotonic()
    assert wait_until(master_osc.ping, 10), "rack does not answer OSC after the link came back"
    assert wait_until(lambda: _audio_flows(hosts, netloop, tmp_path), 30, step=0.2), \
        "no sound back at the master after the link came back\n" + hosts.log(hosts.dsp_server)
    print(f"sound back at the master {time.monotonic() - t0:.1f} s after the link came back")
    assert livelib.close_to(master_osc.get("cutoff"), 1234.0)
    assert remote_rack.proc.poll() is None
