"""Two "hosts" on this one machine for the netjack2 tests: two network namespaces (a master and
a dsp host) joined by a veth pair with addresses in a private range, each with a 224.0.0.0/4
route (netjack2 finds its master by multicast). The master runs `jackd -d dummy` with jackd2's
`netmanager` loaded; the dsp host runs `jackd -d net`. Every JACK server has its own name (the
namespaces share /dev/shm, where JACK's sockets live). All traffic stays on the veth pair.

Processes are started with nsenter (which execs, so the pid is the process itself) and stopped
by their pid with SIGTERM; the namespaces are deleted at the end, pass or fail.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import numpy as np

import livelib
from livelib import Osc, RackProcess, wait_until, which

CLONE_NEWNET = 0x40000000
NETNS_DIR = Path("/var/run/netns")

# The veth pair's addresses (inside the namespaces this file creates, nowhere else).
SUBNET = "10.79.23"
MASTER_ADDRESS = f"{SUBNET}.1"
DSP_ADDRESS = f"{SUBNET}.2"
STRANGER_ADDRESS = f"{SUBNET}.3"      # a second address on the master, outside --allow
MASTER_LINK, DSP_LINK = "rknjm", "rknjd"
DSP_CLIENT = "dsp"                    # the dsp host's name on the master (jackd -d net -n)


def why_not() -> str | None:
    """Why the namespace tests cannot run here (one line), or None."""
    missing = [t for t in ("ip", "nsenter", "jackd", "jack_load", "jack_lsp", "jack_wait", "jack_connect")
               if not which(t)]
    if missing:
        return f"{', '.join(missing)} not installed (scripts/install-deps)"
    if os.geteuid() != 0:
        return "ip netns is not allowed here (needs root)"
    probe = f"rack-njprobe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns is not allowed here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def nsenter() -> Path:
    return Path(shutil.which("nsenter") or "nsenter")


def _ip(*args: str) -> None:
    out = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)
    if out.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {out.stderr.strip()}")


def socket_in(namespace: str, kind: int = socket.SOCK_DGRAM) -> socket.socket:
    """A socket made inside `namespace` (by a thread that enters it; the caller's thread stays)."""
    made: list = []

    def enter_and_make():
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(NETNS_DIR / namespace, os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns into {namespace}")
            finally:
                os.close(fd)
            made.append(socket.socket(socket.AF_INET, kind))
        except Exception as e:   # handed to the caller
            made.append(e)

    thread = threading.Thread(target=enter_and_make)
    thread.start()
    thread.join()
    if isinstance(made[0], Exception):
        raise made[0]
    return made[0]


class NamespaceOsc(Osc):
    """livelib.Osc on a socket in `namespace`, bound to `source`, sending to host:port."""

    def __init__(self, namespace: str, source: str, host: str, port: int):
        super().__init__(port, host)
        self.sock.close()
        self.sock = socket_in(namespace)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind((source, 0))
        self.port = self.sock.getsockname()[1]


def _stop(proc: subprocess.Popen | None, timeout: float = 30.0) -> bool:
    """SIGTERM by pid, SIGKILL only if it will not go; True when it had to be killed."""
    if proc is None or proc.poll() is not None:
        return False
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
        return False
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        return True


def _stop_jackd(proc: subprocess.Popen | None, name: str) -> None:
    """Stops a jackd; if it had to be killed, its JACK server slot (8 on a machine) stays taken
    until a server of the same name starts and stops again, which this then does."""
    if _stop(proc):
        reclaim = subprocess.Popen(["jackd", "--no-realtime", "-n", name, "-d", "dummy"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_until(lambda: reclaim.poll() is not None or livelib.jack_running(name), 10, step=0.1)
        _stop(reclaim)


class TwoHosts:
    """The master and dsp namespaces, the veth pair between them, and their JACK servers."""

    def __init__(self, root: Path, period: int = 256, rate: int = 48000):
        tag = os.getpid()
        self.root = root
        self.period, self.rate = period, rate
        self.master_ns, self.dsp_ns = f"rack-netjack-m-{tag}", f"rack-netjack-d-{tag}"
        self.master_server, self.dsp_server = f"rack-netjack-master-{tag}", f"rack-netjack-dsp-{tag}"
        self.master: subprocess.Popen | None = None
        self.dsp: subprocess.Popen | None = None
        self.made: list[str] = []

    # -- network

    def start_network(self) -> "TwoHosts":
        for ns in (self.master_ns, self.dsp_ns):
            _ip("netns", "add", ns)
            self.made.append(ns)
        _ip("-n", self.master_ns, "link", "add", MASTER_LINK, "type", "veth", "peer", "name", DSP_LINK,
            "netns", self.dsp_ns)
        _ip("-n", self.master_ns, "addr", "add", f"{MASTER_ADDRESS}/24", "dev", MASTER_LINK)
        _ip("-n", self.master_ns, "addr", "add", f"{STRANGER_ADDRESS}/24", "dev", MASTER_LINK)
        _ip("-n", self.dsp_ns, "addr", "add", f"{DSP_ADDRESS}/24", "dev", DSP_LINK)
        for ns in (self.master_ns, self.dsp_ns):
            _ip("-n", ns, "link", "set", "lo", "up")
        self.link_up(MASTER_LINK)
        self.link_up(DSP_LINK)
        return self

    def _ns_of(self, link: str) -> str:
        return self.master_ns if link == MASTER_LINK else self.dsp_ns

    def link_up(self, link: str) -> None:
        """Up, with multicast on and the multicast route (a link taken down loses its routes)."""
        ns = self._ns_of(link)
        _ip("-n", ns, "link", "set", link, "up", "multicast", "on")
        _ip("-n", ns, "route", "replace", "224.0.0.0/4", "dev", link)

    def link_down(self, link: str) -> None:
        _ip("-n", self._ns_of(link), "link", "set", link, "down")

    # -- JACK

    def _jackd(self, ns: str, name: str, *driver: str) -> subprocess.Popen:
        log = open(self.root / f"{name}.log", "ab")
        return subprocess.Popen(["nsenter", f"--net={NETNS_DIR / ns}", "jackd", "--no-realtime", "-n", name,
                                 *driver], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)

    def start_master(self, timeout: float = 15.0, netmanager: bool = True) -> None:
        """The master's jackd (dummy backend) with netmanager loaded; returns once it answers."""
        self.master = self._jackd(self.master_ns, self.master_server, "-d", "dummy", "-r", str(self.rate),
                                  "-p", str(self.period))
        if not wait_until(lambda: self.master.poll() is not None or livelib.jack_running(self.master_server),
                          timeout, step=0.05) or self.master.poll() is not None:
            raise RuntimeError("the master's jackd did not start:\n" + self.log(self.master_server))
        if not netmanager:
            return
        out = subprocess.run(["jack_load", "-s", self.master_server, "netmanager"], capture_output=True,
                             text=True, timeout=15, env=livelib.jack_env(self.master_server))
        if out.returncode != 0:
            raise RuntimeError(f"jack_load netmanager: {out.stdout.strip()} {out.stderr.strip()}")

    def stop_master(self) -> None:
        """netmanager unloaded, then SIGTERM: a jackd2 master with netmanager loaded takes 6-12 s
        to exit on SIGTERM alone (its client's deactivation times out), 0.2 s this way. The unload
        only shortens that: a `jack_unload` that hangs (seen once in a clean-clone run, 30 s with
        no answer) is given up after 10 s (`run` kills it) and the SIGTERM path stops the master."""
        if self.master is not None and self.master.poll() is None:
            try:
                subprocess.run(["jack_unload", "netmanager"], capture_output=True, timeout=10,
                               env=livelib.jack_env(self.master_server))
            except subprocess.TimeoutExpired:
                pass
        _stop_jackd(self.master, self.master_server)
        self.master = None

    def start_dsp(self, latency_cycles: int | None = None) -> None:
        """The dsp host's `jackd -d net` (it waits for a master, found by multicast)."""
        extra = [] if latency_cycles is None else ["-l", str(latency_cycles)]
        self.dsp = self._jackd(self.dsp_ns, self.dsp_server, "-d", "net", "-n", DSP_CLIENT, *extra)

    def slaves(self) -> list[str]:
        """The master's netjack2 clients: the dsp host as `dsp`, or `dsp-01`... while the master
        still holds an earlier connection of it (after a link drop, until that times out)."""
        return [p.split(":")[0] for p in livelib.jack_port_list(self.master_server) if p.endswith(":to_slave_1")]

    def joined(self) -> bool:
        """The dsp host runs and the master shows its ports, once."""
        return (self.dsp is not None and self.dsp.poll() is None and livelib.jack_running(self.dsp_server)
                and len(self.slaves()) == 1)

    def wait_joined(self, timeout: float = 20.0) -> None:
        if not wait_until(lambda: self.joined() or self.dsp is None or self.dsp.poll() is not None, timeout,
                          step=0.1) or not self.joined():
            raise RuntimeError("the dsp host did not join the master:\n" + self.log(self.master_server)
                               + "\n" + self.log(self.dsp_server))

    def jack_version(self) -> str:
        path = self.root / f"{self.dsp_server}.log"
        text = path.read_text(errors="replace")[:200] if path.exists() else ""
        return text.split("jackdmp ")[1].split()[0] if "jackdmp " in text else "?"

    def log(self, server: str) -> str:
        path = self.root / f"{server}.log"
        return path.read_text(errors="replace")[-1500:] if path.exists() else ""

    def stop(self) -> None:
        _stop_jackd(self.dsp, self.dsp_server)
        self.stop_master()
        self.dsp = None
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.made = []

    # -- processes and clients in the namespaces

    def command_in(self, ns: str, *command: str) -> list[str]:
        return ["nsenter", f"--net={NETNS_DIR / ns}", *command]

    def rack_on_dsp(self, rack_binary: Path, env: dict, *args: str) -> RackProcess:
        """`rack run ARGS` on the dsp host (its pid is rack's: nsenter execs)."""
        return RackProcess(self.command_in(self.dsp_ns, str(rack_binary), "run", *args)[1:], env,
                           binary=nsenter(), subcommand=None)

    def osc_from_master(self, port: int, source: str = MASTER_ADDRESS) -> NamespaceOsc:
        return NamespaceOsc(self.master_ns, source, DSP_ADDRESS, port)


def build_netloop(outdir: Path) -> Path:
    out = outdir / "netloop"
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", str(out), str(Path(__file__).parent / "netloop.c"),
                    "-ljack"], check=True, timeout=120)
    return out


def start_remote_rack(hosts: TwoHosts, rack_binary: Path, xdg: Path) -> RackProcess:
    """rack on the dsp host: connected to its physical ports, OSC and HTTP on its veth address,
    obeying the master only. Not advertised (the machine's own Avahi stays out of it)."""
    env = livelib.jack_env(hosts.dsp_server, XDG_CONFIG_HOME=str(xdg),
                           DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={xdg / 'no-bus'}")
    rack = hosts.rack_on_dsp(rack_binary, env, "--name", "fx", "--connect", "--osc-host", DSP_ADDRESS,
                             "--osc-port", "0", "--http-host", DSP_ADDRESS, "--http-port", "0",
                             "--allow", MASTER_ADDRESS, "--no-advertise")
    try:
        return rack.wait_ready(15)
    except RuntimeError:
        rack.stop()
        raise


# --------------------------------------------------------------------------------------------
# The round trip through the master's netloop


def round_trip(netloop: Path, server: str, seconds: float, path: Path,
               slave: str = DSP_CLIENT) -> tuple[np.ndarray, np.ndarray]:
    """Plays netloop's noise bursts into the dsp host's first capture port (from the master)
    and records what comes back on its two playback ports; (played, recorded[frames x 2])."""
    out = subprocess.run([str(netloop), str(path), str(seconds), f"{slave}:to_slave_1",
                          f"{slave}:from_slave_1", f"{slave}:from_slave_2"],
                         capture_output=True, text=True, timeout=seconds + 15, env=livelib.jack_env(server))
    if out.returncode != 0:
        raise RuntimeError(f"netloop failed ({out.returncode}): {out.stderr.strip()}")
    data = np.fromfile(path, dtype=np.float32).reshape(-1, 3).astype(np.float64)
    return data[:, 0], data[:, 1:]


def delay_frames(played: np.ndarray, recorded: np.ndarray) -> tuple[int, float]:
    """The lag (frames) at which the recording best matches what was played, and the normalised
    correlation there (1: the same signal, delayed)."""
    n = len(played)
    size = 1 << (2 * n - 1).bit_length()
    corr = np.fft.irfft(np.fft.rfft(recorded, size) * np.conj(np.fft.rfft(played, size)), size)[:n]
    lag = int(np.argmax(np.abs(corr)))
    shifted = recorded[lag:]
    ref = played[:len(shifted)]
    norm = np.sqrt((ref ** 2).sum() * (shifted ** 2).sum())
    return lag, float((ref * shifted).sum() / norm) if norm > 0 else 0.0


# --------------------------------------------------------------------------------------------
# DNS-SD inside a namespace: a private system bus and avahi-daemon (as test_http_avahi does)


def avahi_missing() -> list[str]:
    return [t for t in ("dbus-daemon", "avahi-daemon", "avahi-browse") if not which(t)]


class NamespaceAvahi:
    """A private D-Bus system bus and an avahi-daemon in an existing namespace, on one link.
    `env` points D-Bus clients (rack, avahi-browse) at that bus."""

    def __init__(self, root: Path, namespace: str, link: str, host_name: str):
        from test_http_avahi import AVAHI_CONFIG, BUS_CONFIG   # one declaration of both files
        self.root, self.namespace = root, namespace
        root.mkdir(parents=True, exist_ok=True)
        self.socket = root / "system_bus"
        self.env = {**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={self.socket}"}
        (root / "bus.conf").write_text(BUS_CONFIG.format(socket=self.socket))
        (root / "avahi-daemon.conf").write_text(
            AVAHI_CONFIG.replace("host-name=racktest", f"host-name={host_name}")
                        .replace("allow-interfaces=rkva", f"allow-interfaces={link}"))
        self.bus: subprocess.Popen | None = None
        self.daemon: subprocess.Popen | None = None
        self.log = root / "avahi-daemon.log"

    def start(self) -> "NamespaceAvahi":
        self.bus = subprocess.Popen(["dbus-daemon", f"--config-file={self.root / 'bus.conf'}", "--nofork",
                                     "--print-address=1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.bus.stdout.readline()   # the address: the bus listens
        # `ip netns exec` gives the daemon a mount namespace of its own, where a tmpfs over /run
        # keeps its pid file away from the machine's.
        script = ("mount -t tmpfs rack-avahi /run && mkdir /run/avahi-daemon && exec avahi-daemon "
                  f"--no-drop-root --no-chroot --no-rlimits -f {self.root / 'avahi-daemon.conf'}")
        with open(self.log, "a") as log:
            self.daemon = subprocess.Popen(["ip", "netns", "exec", self.namespace, "sh", "-c", script],
                                           stdout=log, stderr=subprocess.STDOUT, env=self.env)
        if not wait_until(lambda: "Server startup complete" in self.log.read_text() or self.daemon.poll() is not None,
                          10, step=0.05) or self.daemon.poll() is not None:
            raise RuntimeError("avahi-daemon did not start:\n" + self.log.read_text()[-2000:])
        return self

    def stop(self) -> None:
        _stop(self.daemon)
        _stop(self.bus)
        self.daemon = self.bus = None

    def browse(self, service_type: str) -> dict[str, tuple[str, int]]:
        """The resolved services of `service_type`: name → (address, port)."""
        from test_http_avahi import _unescape
        out = subprocess.run(["avahi-browse", "-rpt", service_type], capture_output=True, text=True,
                             timeout=10, env=self.env)
        found = {}
        for line in out.stdout.splitlines():
            fields = line.split(";")
            if fields[0] == "=" and len(fields) >= 9 and fields[4] == service_type:
                found[_unescape(fields[3])] = (fields[7], int(fields[8]))
        return found
