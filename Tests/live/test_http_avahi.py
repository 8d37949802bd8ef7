"""DNS-SD advertising through a real Avahi daemon, browsed by an independent client
(avahi-browse): `_oscjson._tcp` on the HTTP port and `_osc._udp` on the OSC port under the JACK
client name, gone when rack stops, back after a daemon restart, renamed when the name is taken;
nothing for loopback sockets or with --no-advertise; and with no daemon, not a word.

The daemon is private: its own D-Bus system bus (a socket in the test's directory, handed to
rack and the tools through DBUS_SYSTEM_BUS_ADDRESS) and its own network namespace with a veth
pair (Avahi ignores loopback, and the machine's real interfaces stay out of it), with a tmpfs
over /run in that namespace for its pid file. Needs root and network namespaces; skipped with
the reason otherwise. Every process is stopped by its pid."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from livelib import wait_until, which

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="*" eavesdrop="false"/>
  </policy>
</busconfig>
"""

AVAHI_CONFIG = """[server]
host-name=racktest
use-ipv4=yes
use-ipv6=no
allow-interfaces=rkva
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
"""


def _stop(proc: subprocess.Popen | None, timeout: float = 5.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Avahi:
    """A private system bus and an avahi-daemon in a network namespace of its own."""

    def __init__(self, root: Path):
        self.root = root
        self.namespace = f"rack-avahi-{os.getpid()}"
        self.socket = root / "system_bus"
        self.env = {**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={self.socket}"}
        self.bus: subprocess.Popen | None = None
        self.daemon: subprocess.Popen | None = None
        self.namespace_made = False

    def start(self) -> "Avahi":
        (self.root / "bus.conf").write_text(BUS_CONFIG.format(socket=self.socket))
        (self.root / "avahi-daemon.conf").write_text(AVAHI_CONFIG)
        self.bus = subprocess.Popen(["dbus-daemon", f"--config-file={self.root / 'bus.conf'}", "--nofork",
                                     "--print-address=1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.bus.stdout.readline()   # the address: the bus listens
        made = subprocess.run(["ip", "netns", "add", self.namespace], capture_output=True, text=True)
        if made.returncode != 0:
            raise RuntimeError(f"ip netns add: {made.stderr.strip()}")
        self.namespace_made = True
        for command in (["link", "add", "rkva", "type", "veth", "peer", "name", "rkvb"],
                        ["addr", "add", "10.77.0.1/24", "dev", "rkva"],
                        ["link", "set", "rkva", "up", "multicast", "on"],
                        ["link", "set", "rkvb", "up"]):
            out = subprocess.run(["ip", "-n", self.namespace, *command], capture_output=True, text=True)
            if out.returncode != 0:
                raise RuntimeError(f"ip {' '.join(command)}: {out.stderr.strip()}")
        self.start_daemon()
        return self

    def start_daemon(self) -> None:
        # `ip netns exec` gives the daemon a mount namespace of its own: the tmpfs keeps its pid
        # file and socket away from the machine's /run/avahi-daemon.
        script = ("mount -t tmpfs rack-avahi /run && mkdir /run/avahi-daemon && exec avahi-daemon "
                  f"--no-drop-root --no-chroot --no-rlimits -f {self.root / 'avahi-daemon.conf'}")
        self.log = self.root / "avahi-daemon.log"
        with open(self.log, "a") as log:
            self.daemon = subprocess.Popen(["ip", "netns", "exec", self.namespace, "sh", "-c", script],
                                           stdout=log, stderr=subprocess.STDOUT, env=self.env)
        if not wait_until(lambda: "Server startup complete" in self.log.read_text() or self.daemon.poll() is not None, 10):
            raise RuntimeError("avahi-daemon did not start within 10 s:\n" + self.log.read_text()[-2000:])
        if self.daemon.poll() is not None:
            raise RuntimeError("avahi-daemon exited:\n" + self.log.read_text()[-2000:])

    def stop_daemon(self) -> None:
        _stop(self.daemon)
        self.daemon = None

    def stop(self) -> None:
        self.stop_daemon()
        _stop(self.bus)
        if self.namespace_made:
            subprocess.run(["ip", "netns", "del", self.namespace], capture_output=True)

    def browse(self, service_type: str) -> dict[str, int]:
        """The resolved services of `service_type` as avahi-browse sees them: name → port."""
        out = subprocess.run(["avahi-browse", "-rpt", service_type], capture_output=True, text=True,
                             timeout=10, env=self.env)
        found = {}
        for line in out.stdout.splitlines():
            fields = line.split(";")
            if fields[0] == "=" and len(fields) >= 9 and fields[4] == service_type:
                found[_unescape(fields[3])] = int(fields[8])
        return found

    def publish(self, name: str, service_type: str, port: int) -> subprocess.Popen:
        """Another program taking `name` (avahi-publish, until it is stopped)."""
        return subprocess.Popen(["avahi-publish", "-s", name, service_type, str(port)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env)


def _unescape(label: str) -> str:
    """avahi-browse's escaping of a service name ("rack\\032#2" → "rack #2")."""
    return re.sub(r"\\(\d{3}|.)", lambda m: chr(int(m.group(1))) if m.group(1).isdigit() else m.group(1), label)


def _why_not() -> str | None:
    missing = [t for t in ("ip", "dbus-daemon", "avahi-daemon", "avahi-browse", "avahi-publish") if not which(t)]
    if missing:
        return f"{', '.join(missing)} not installed (scripts/install-deps)"
    if os.geteuid() != 0:
        return "needs root (a network namespace for a private avahi-daemon)"
    return None


@pytest.fixture(scope="module")
def avahi(tmp_path_factory):
    why = _why_not()
    if why:
        pytest.skip(why)
    a = Avahi(tmp_path_factory.mktemp("avahi"))
    try:
        a.start()
    except RuntimeError as e:   # root, and every tool there: a daemon that will not start is a failure
        a.stop()
        pytest.fail(f"the private avahi-daemon did not start: {e}", pytrace=False)
    try:
        yield a
    finally:
        a.stop()


def _network_rack(rack_factory, avahi, *args, **kwargs):
    """A rack on every interface (what is worth advertising), its senders limited to this host."""
    return rack_factory("--http-host", "0.0.0.0", "--osc-host", "0.0.0.0", "--allow", "127.0.0.1", *args,
                        env={"DBUS_SYSTEM_BUS_ADDRESS": avahi.env["DBUS_SYSTEM_BUS_ADDRESS"]}, **kwargs)


def _soon(predicate, timeout: float) -> bool:
    """wait_until at a pace fit for a browse (a process each time)."""
    return wait_until(predicate, timeout, step=0.2)


def _advertised(avahi, rack) -> bool:
    return (avahi.browse("_oscjson._tcp").get(rack.client_name) == rack.http_port
            and avahi.browse("_osc._udp").get(rack.client_name) == rack.osc_port)


def test_services_are_advertised_under_the_client_name_and_withdrawn_at_exit(rack_factory, avahi):
    rack = _network_rack(rack_factory, avahi)
    assert _soon(lambda: _advertised(avahi, rack), 10), (avahi.browse("_oscjson._tcp"), avahi.browse("_osc._udp"), rack.describe())
    line = f"rack: advertised as '{rack.client_name}' over DNS-SD (_oscjson._tcp port {rack.http_port}, _osc._udp port {rack.osc_port})"
    assert _soon(lambda: line in rack.stdout, 2), rack.describe()
    assert rack.stderr == [], rack.stderr
    assert rack.stop() == 0
    assert _soon(lambda: rack.client_name not in avahi.browse("_oscjson._tcp")
                      and rack.client_name not in avahi.browse("_osc._udp"), 5)


def test_loopback_and_no_advertise_are_not_advertised(rack_factory, avahi):
    local = rack_factory(env={"DBUS_SYSTEM_BUS_ADDRESS": avahi.env["DBUS_SYSTEM_BUS_ADDRESS"]})   # 127.0.0.1
    quiet = _network_rack(rack_factory, avahi, "--no-advertise")
    control = _network_rack(rack_factory, avahi)
    assert _soon(lambda: _advertised(avahi, control), 10)   # the daemon answers
    # local and quiet started before control, which the daemon already shows: had they asked
    # to be advertised, they would be too. The half second is a window for a defect to show
    # (a late registration), not a wait a pass depends on.
    time.sleep(0.5)
    for service_type in ("_oscjson._tcp", "_osc._udp"):
        seen = avahi.browse(service_type)
        assert local.client_name not in seen and quiet.client_name not in seen, seen
    assert not any("advertised" in line for line in local.stdout + quiet.stdout)


def test_a_taken_name_is_advertised_as_the_next_one(rack_factory, avahi):
    other = avahi.publish("rkavahi", "_oscjson._tcp", 9)
    try:
        assert _soon(lambda: "rkavahi" in avahi.browse("_oscjson._tcp"), 10)
        rack = _network_rack(rack_factory, avahi, name="rkavahi")
        assert _soon(lambda: avahi.browse("_oscjson._tcp").get("rkavahi #2") == rack.http_port, 10), avahi.browse("_oscjson._tcp")
        assert avahi.browse("_oscjson._tcp").get("rkavahi") == 9, "the other program keeps its name"
        assert _soon(lambda: avahi.browse("_osc._udp").get("rkavahi #2") == rack.osc_port, 5)
        assert _soon(lambda: "rack: advertised as 'rkavahi #2' over DNS-SD" in " ".join(rack.stdout), 2), rack.describe()
    finally:
        _stop(other)


def test_the_services_come_back_after_a_daemon_restart(rack_factory, avahi):
    rack = _network_rack(rack_factory, avahi)
    assert _soon(lambda: _advertised(avahi, rack), 10)
    avahi.stop_daemon()
    time.sleep(1.0)   # the fault itself: a second without the daemon (rack says nothing of it)
    assert rack.proc.poll() is None
    t0 = time.monotonic()
    avahi.start_daemon()
    assert _soon(lambda: _advertised(avahi, rack), 15), (avahi.browse("_oscjson._tcp"), rack.describe())
    print(f"advertised again {time.monotonic() - t0:.1f} s after the daemon restarted")
    # the line comes from Avahi's thread once the daemon confirmed; the browse may see it first
    assert _soon(lambda: sum("rack: advertised as" in line for line in rack.stdout) == 2, 2), rack.stdout
    assert rack.stderr == [], rack.stderr


def test_a_daemon_that_appears_later_gets_the_services(rack_factory, avahi):
    """docs/web.md: with no daemon when rack starts, rack says nothing, carries on, and
    advertises if one appears later (on the bus it was given)."""
    avahi.stop_daemon()
    try:
        rack = _network_rack(rack_factory, avahi)
        assert rack.proc.poll() is None and not [l for l in rack.stdout if "rack: advertised as" in l], rack.stdout
    finally:
        t0 = time.monotonic()
        avahi.start_daemon()
    assert _soon(lambda: _advertised(avahi, rack), 15), (avahi.browse("_oscjson._tcp"), rack.describe())
    print(f"advertised {time.monotonic() - t0:.1f} s after the daemon appeared")
    assert _soon(lambda: sum("rack: advertised as" in line for line in rack.stdout) == 1, 2), rack.stdout
    assert rack.stderr == [], rack.stderr


@pytest.mark.parametrize("bus", ["no system bus", "a bus without avahi-daemon"])
def test_without_a_daemon_rack_says_nothing_and_carries_on(rack_factory, osc_factory, tmp_path, bus):
    """Needs neither root nor Avahi: the empty bus is a private dbus-daemon (when there is one)."""
    proc = None
    if bus == "no system bus":
        address = f"unix:path={tmp_path / 'nothing-listens-here'}"
    else:
        if not which("dbus-daemon"):
            pytest.skip("dbus-daemon not installed (scripts/install-deps)")
        (tmp_path / "bus.conf").write_text(BUS_CONFIG.format(socket=tmp_path / "bus"))
        proc = subprocess.Popen(["dbus-daemon", f"--config-file={tmp_path / 'bus.conf'}", "--nofork", "--print-address=1"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        proc.stdout.readline()
        address = f"unix:path={tmp_path / 'bus'}"
    try:
        rack = rack_factory("--http-host", "0.0.0.0", "--osc-host", "0.0.0.0", "--allow", "127.0.0.1",
                            env={"DBUS_SYSTEM_BUS_ADDRESS": address})
        assert osc_factory(rack.osc_port).ping()
        time.sleep(3.0)   # a window for a defect to show: past the first attempts to reach the bus again (2 s)
        assert osc_factory(rack.osc_port).ping()
        assert rack.stderr == [], rack.stderr
        assert rack.stop() == 0
        said = rack.stdout + rack.stderr
        assert not any(re.search(r"avahi|dns-sd|d-bus|dbus|advertis", line, re.I) for line in said), said
    finally:
        _stop(proc)


def test_every_announced_rack_is_listed_beyond_the_resolve_places(rack_factory, avahi):
    """More racks announced at once than the browser resolves at a time (the README's 16): those
    announced while every place was busy wait and are resolved as places free, so /studio
    lists every one of them."""
    import json
    from httplib import body, get, readme_number
    places = readme_number(r"at most (\d+) services resolved at once")
    count = 3 * places
    rack = _network_rack(rack_factory, avahi)
    names = [f"announced-{i:02d}" for i in range(count)]
    publishers = [subprocess.Popen(["avahi-publish", "-s", name, "_oscjson._tcp", str(9000 + i), "rack-page=/ui/"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=avahi.env)
                  for i, name in enumerate(names)]
    try:
        def listed() -> set[str]:
            status, response = get(rack.http_port, "/studio")
            return {r["name"] for r in json.loads(body(response))["racks"]} if status == 200 else set()
        complete = _soon(lambda: set(names) <= listed(), 20)
        print(f"\n{len(set(names) & listed())} of {count} announced racks listed")
        assert complete, f"listed {len(set(names) & listed())} of {count}: {sorted(set(names) - listed())[:5]} …"
    finally:
        for p in publishers:
            _stop(p)
