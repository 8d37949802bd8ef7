"""Eight racks on one JACK server, started without --name, --osc-port or --http-port: each gets a
client name, an OSC port and an HTTP port of its own (the first the defaults, 8000 and 8001, the
others free ones by fallback, printed) and a DNS-SD name of its own; an explicit OSC port that is
taken is refused with a hint. On the master host of netjacklib.TwoHosts (a namespace of its own,
so that the default ports are free there whatever runs on this machine), with a private
avahi-daemon there. The figures (CPU, DSP time, memory, xruns) are scripts/bench's (bench_eight.py).

Needs root (ip netns); skipped with one line otherwise. One JACK server.
"""
from __future__ import annotations

import pytest

import livelib
import netjacklib
from livelib import wait_until
from netjacklib import MASTER_ADDRESS, MASTER_LINK

OSC_DEFAULT, HTTP_DEFAULT = 8000, 8001
RACKS = 8


@pytest.fixture
def host(tmp_path):
    why = netjacklib.why_not()
    if why:
        pytest.skip(why)
    missing = netjacklib.avahi_missing()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (scripts/install-deps)")
    (tmp_path / "host").mkdir()
    hosts = netjacklib.TwoHosts(tmp_path / "host")
    avahi = netjacklib.NamespaceAvahi(tmp_path / "avahi", hosts.master_ns, MASTER_LINK, "rackstudio")
    try:
        hosts.start_network()
        hosts.start_master(netmanager=False)
        avahi.start()
        yield hosts, avahi
    finally:
        avahi.stop()
        hosts.stop()


def _rack(hosts, avahi, rack_binary, xdg, *extra):
    env = livelib.jack_env(hosts.master_server, XDG_CONFIG_HOME=str(xdg),
                           DBUS_SYSTEM_BUS_ADDRESS=avahi.env["DBUS_SYSTEM_BUS_ADDRESS"])
    return livelib.RackProcess(
        hosts.command_in(hosts.master_ns, str(rack_binary), "run", "--osc-host", MASTER_ADDRESS,
                         "--http-host", MASTER_ADDRESS, "--allow", MASTER_ADDRESS, *extra)[1:],
        env, binary=netjacklib.nsenter(), subcommand=None)


def test_eight_racks_without_flags_get_names_ports_and_dns_sd_names_of_their_own(host, rack_binary, tmp_path):
    hosts, avahi = host
    racks, clients = [], []
    try:
        for _ in range(RACKS):
            racks.append(_rack(hosts, avahi, rack_binary, tmp_path).wait_ready(20))
        names = [r.client_name for r in racks]
        osc_ports = [r.osc_port for r in racks]
        http_ports = [r.http_port for r in racks]
        print(f"client names {names}\nOSC ports {osc_ports}\nHTTP ports {http_ports}")
        assert names == ["rack"] + [f"rack-{n:02d}" for n in range(1, RACKS)], "JACK's names: rack, rack-01 … rack-07"
        assert len(set(osc_ports)) == RACKS and len(set(http_ports)) == RACKS
        assert (osc_ports[0], http_ports[0]) == (OSC_DEFAULT, HTTP_DEFAULT), "the first rack has the defaults"
        for rack in racks:
            osc = netjacklib.NamespaceOsc(hosts.master_ns, MASTER_ADDRESS, MASTER_ADDRESS, rack.osc_port)
            clients.append(osc)
            assert osc.ping(), f"{rack.client_name} does not answer on {rack.osc_port}"
            assert rack.stderr == [], rack.describe()

        def advertised():
            osc_seen, http_seen = avahi.browse("_osc._udp"), avahi.browse("_oscjson._tcp")
            return all(osc_seen.get(r.client_name, (None, None))[1] == r.osc_port
                       and http_seen.get(r.client_name, (None, None))[1] == r.http_port for r in racks)
        assert wait_until(advertised, 20, step=0.3), (avahi.browse("_osc._udp"), avahi.browse("_oscjson._tcp"))

        taken = _rack(hosts, avahi, rack_binary, tmp_path, "--osc-port", str(OSC_DEFAULT))
        assert taken.wait_exit(15) == 69, taken.describe()
        said = [l for l in taken.stderr if l.strip()]
        assert len(said) == 1 and f":{OSC_DEFAULT}" in said[0] and "--osc-port 0" in said[0], said
    finally:
        for osc in clients:
            osc.close()
        codes = [r.stop() for r in racks]
    assert codes == [0] * RACKS, codes
