"""rack.lv2 in real LV2 hosts: the bundle validates against the LV2 specification (sord_validate),
lilv finds it and lists every port with the parameter table's ranges (lv2ls, lv2info), lv2apply
gives the same samples as `rack render` with the same settings and with a factory preset, the
output does not depend on the host's block size, a control moved between run() calls ramps, the
plugin survives a hostile host (lv2host.c: 0-frame runs, runs longer than announced, unconnected
ports, NaN input, activate/deactivate/activate, two instances), and jalv runs it on a private
JACK server with the runtime probe (rtprobe.c) counting 0 heap, lock and I/O calls in run(),
and shows the meters on its console.

The bundle is assembled from share/lv2/rack.lv2 and the librack-lv2.so beside $RACK_BIN, and
loaded with PATH and LD_LIBRARY_PATH free of any Swift toolchain."""
from __future__ import annotations

import json
import os
import queue
import re
import shutil
import struct
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

import livelib

URI = "urn:rack:lv2"
RATE = 48000
HERE = Path(__file__).resolve().parent
TOOLS = ["sord_validate", "sordi", "lv2ls", "lv2info", "lv2apply", "jalv"]

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in TOOLS),
                                reason="LV2 hosts missing (scripts/install-deps: lilv-utils jalv sordi lv2-dev)")


# ----------------------------------------------------------------------------------------------
# Fixtures and helpers

# The meters' output ports, in order, and their floor in dBFS, as the README's plugin section
# states them.
METERS = ["peak_l", "peak_r", "reverb_in"]
METER_FLOOR = -float(re.search(r"anything quieter than −(\d+) dBFS", livelib.documentation()).group(1))


def sine(left_db: float, right_db: float, seconds: float = 0.5, hz: float = 1000.0) -> np.ndarray:
    """A stereo sine at `hz`, each channel's peak at the given dBFS."""
    t = np.arange(int(seconds * RATE)) / RATE
    wave = np.sin(2 * np.pi * hz * t)
    return np.stack([10 ** (left_db / 20) * wave, 10 ** (right_db / 20) * wave], axis=1).astype(np.float32)


FUTEX = {"x86_64": 202, "aarch64": 98}.get(os.uname().machine)


def metadata_waits(pid: int) -> list[str]:
    """The threads of process `pid` blocked on a lock inside jackd2's metadata database (a
    Berkeley DB environment that jackd2 keeps at /dev/shm/jack_db-UID, one for every server and
    client of the user): each as "thread TID waits on a lock in FILE". From /proc: the futex a
    thread sleeps in (task/TID/syscall) and the mapping that address lies in (maps). Empty when
    none does, or when /proc does not tell (another user's process, a kernel without it)."""
    try:
        regions = []
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and "/jack_db-" in fields[5]:
                    lo, hi = (int(x, 16) for x in fields[0].split("-"))
                    regions.append((lo, hi, " ".join(fields[5:])))
        found = []
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                call = f.read().split()
            if FUTEX is None or len(call) < 2 or call[0] != str(FUTEX):
                continue
            address = int(call[1], 16)
            found += [f"thread {tid} waits on a lock in {name}" for lo, hi, name in regions if lo <= address < hi]
        return found
    except OSError:
        return []


def jack_answers(server: str, pid: int, *flags: str) -> str:
    """jack_lsp's answer (livelib.jack_ports, 10 s); when the server does not answer, the failure
    says whether its threads wait in the user's metadata database (`metadata_waits`)."""
    try:
        return livelib.jack_ports(server, *flags)
    except subprocess.TimeoutExpired:
        waits = metadata_waits(pid)
        pytest.fail(f"server {server} (pid {pid}) did not answer jack_lsp within 10 s; "
                    + ("it waits in the user's JACK metadata database, on a lock a process of the user "
                       "holds or died holding (README, rack.lv2): " + "; ".join(waits) if waits
                       else "none of its threads waits in the metadata database"), pytrace=False)


def host_env(lv2_path: Path, **extra) -> dict:
    """An environment with no Swift toolchain on PATH or LD_LIBRARY_PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LV2_PATH")}
    env["PATH"] = ":".join(p for p in os.environ.get("PATH", "").split(":") if "swift" not in p) or "/usr/bin:/bin"
    env["LV2_PATH"] = str(lv2_path)
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def bundle(tmp_path_factory, rack_binary) -> Path:
    """LV2_PATH directory holding rack.lv2 (the committed .ttl files + the built plugin)."""
    lib = Path(rack_binary).parent / "librack-lv2.so"
    assert lib.exists(), f"{lib} missing: scripts/build-plugins"
    root = tmp_path_factory.mktemp("lv2")
    b = root / "rack.lv2"
    b.mkdir()
    for f in ["manifest.ttl", "rack.ttl", "presets.ttl"]:
        shutil.copy(livelib.REPO / "share/lv2/rack.lv2" / f, b / f)
    shutil.copy(lib, b / "librack-lv2.so")
    return root


@pytest.fixture(scope="module")
def lv2host(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("lv2host") / "lv2host"
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", str(exe), str(HERE / "lv2host.c"), "-ldl"],
                   check=True, timeout=120)
    return exe


@pytest.fixture(scope="module")
def table(rack_binary) -> dict:
    """The parameter table as `rack`'s help lists it (unwrapped, from the parser's JSON):
    name -> (min, max, default, unit) for the continuous ones, name -> [choices] for room."""
    dump = subprocess.run([str(rack_binary), "--experimental-dump-help"], capture_output=True, text=True, timeout=30).stdout
    # the help hangs a long row's continuation under its text: join it back onto its row
    text = re.sub(r"\n {13,}", " ", json.loads(dump)["command"]["discussion"])
    rows = {}
    for m in re.finditer(r"^\s+(\w+)\s+.*?; (-?[\d.]+)…(-?[\d.]+) (\S+), default (-?[\d.]+)$", text, re.M):
        rows[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(5)), m.group(4))
    m = re.search(r"^\s+room\s+.*; (.+)$", text, re.M)
    rows["room"] = m.group(1).split()
    assert set(rows) >= {"cutoff", "resonance", "mix", "gain", "room"}, text
    return rows


def lv2info_ports(bundle: Path) -> dict:
    """symbol -> {index, min, max, default, properties} from lv2info."""
    out = subprocess.run(["lv2info", URI], capture_output=True, text=True, env=host_env(bundle), timeout=60)
    assert out.returncode == 0, out.stderr
    ports = {}
    for block in re.split(r"\n\tPort (\d+):\n", out.stdout)[1:]:
        pass
    chunks = re.split(r"\n\tPort (\d+):\n", out.stdout)
    for index, body in zip(chunks[1::2], chunks[2::2]):
        fields = dict(re.findall(r"^\t\t(\w[\w ]*?):\s+(.*)$", body, re.M))
        ports[fields["Symbol"]] = dict(index=int(index), body=body,
                                       min=float(fields.get("Minimum", "nan")), max=float(fields.get("Maximum", "nan")),
                                       default=float(fields.get("Default", "nan")))
    return ports


def write_float_wav(path: Path, frames: np.ndarray, rate: int = RATE) -> None:
    data = frames.astype("<f4").tobytes()
    fmt = struct.pack("<HHIIHH", 3, 2, rate, rate * 8, 8, 32)
    path.write_bytes(b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)) + b"WAVE"
                     + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data)


def read_float_wav(path: Path) -> np.ndarray:
    raw = path.read_bytes()
    assert raw[:4] == b"RIFF" and raw[8:12] == b"WAVE"
    pos, fmt, data = 12, None, None
    while pos + 8 <= len(raw):
        cid, size = raw[pos:pos + 4], struct.unpack("<I", raw[pos + 4:pos + 8])[0]
        body = raw[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt = struct.unpack("<HH", body[:4])
            bits = struct.unpack("<H", body[14:16])[0]
        elif cid == b"data":
            data = body
        pos += 8 + size + (size & 1)
    assert fmt is not None and data is not None and bits == 32 and fmt[0] in (3, 0xFFFE), (fmt, bits)
    return np.frombuffer(data, dtype="<f4").reshape(-1, fmt[1])


def make_signal(seconds: float = 1.5, seed: int = 7, silence_frames: int = RATE // 10) -> np.ndarray:
    """`silence_frames` of silence (0.1 s unless given), then noise and a sine in stereo."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    left = 0.2 * rng.standard_normal(n) * 0.5 + 0.2 * np.sin(2 * np.pi * 440 * t)
    right = 0.2 * rng.standard_normal(n) * 0.5 + 0.2 * np.sin(2 * np.pi * 660 * t)
    body = np.stack([left, right], axis=1).astype(np.float32)
    return np.concatenate([np.zeros((silence_frames, 2), np.float32), body])


def run_host(lv2host: Path, bundle: Path, tmp: Path, signal: np.ndarray, *args: str, name: str = "out") -> np.ndarray:
    inp, out = tmp / f"{name}.in.f32", tmp / f"{name}.f32"
    signal.astype("<f4").tofile(inp)
    res = subprocess.run([str(lv2host), "-l", str(bundle / "rack.lv2/librack-lv2.so"), "-i", str(inp), "-o", str(out),
                          "-p", str(ports_count(bundle)), *args],
                         capture_output=True, text=True, env=host_env(bundle), timeout=120)
    assert res.returncode == 0, res.stderr
    return np.fromfile(out, dtype="<f4").reshape(-1, 2)


_count: dict = {}


def ports_count(bundle: Path) -> int:
    if "n" not in _count:
        _count["n"] = len(lv2info_ports(bundle))
    return _count["n"]


def control_args(bundle: Path, settings: dict) -> list[str]:
    """lv2host's -c options: every control port at its default (as hosts do), then `settings`."""
    ports = lv2info_ports(bundle)
    values = {sym: p["default"] for sym, p in ports.items() if p["index"] >= 4 and "InputPort" in p["body"]}
    values.update(settings)
    return [a for sym, value in values.items() for a in ("-c", f"{ports[sym]['index']}={value}")]


# ----------------------------------------------------------------------------------------------
# The bundle's description


SPEC_ROOT = Path("/usr/lib/lv2")   # lv2-dev's specification bundles


def _namespaces(ttl: Path) -> set[str]:
    """The namespaces a Turtle file's @prefix lines name."""
    return set(re.findall(r"@prefix\s+[\w-]*:\s*<([^>]*)>", ttl.read_text(errors="replace")))


def specification_files(ours: list[Path]) -> list[Path]:
    """The LV2 specification's .ttl files that `ours` use, and those they use in turn: the RDF
    schemas (schemas.lv2) and every specification bundle under /usr/lib/lv2 whose URI (from its
    manifest's `a lv2:Specification`) a namespace of ours starts with. Nothing else under
    /usr/lib/lv2 is read: another plugin installed there (Calf, Dragonfly, ...) is not ours to
    validate."""
    specs: dict[str, Path] = {}
    for manifest in SPEC_ROOT.glob("*.lv2/manifest.ttl"):
        for uri in re.findall(r"<([^>]+)>\s*a\s+lv2:Specification", manifest.read_text(errors="replace")):
            specs[uri.rstrip("#/")] = manifest.parent
    chosen = {SPEC_ROOT / "schemas.lv2"}
    todo = list(ours) + sorted((SPEC_ROOT / "schemas.lv2").glob("*.ttl"))
    seen: set[Path] = set()
    while todo:
        ttl = todo.pop()
        if ttl in seen:
            continue
        seen.add(ttl)
        for ns in _namespaces(ttl):
            for uri, bundle in specs.items():
                if ns.rstrip("#/") == uri and bundle not in chosen:
                    chosen.add(bundle)
                    todo += sorted(bundle.glob("*.ttl"))
    return sorted(f for b in chosen for f in b.glob("*.ttl"))


def test_sord_validate_the_bundle_with_the_specification(bundle):
    ours = sorted((bundle / "rack.lv2").glob("*.ttl"))
    spec = specification_files(ours)
    names = {f.parent.name for f in spec}
    assert {"core.lv2", "schemas.lv2", "units.lv2", "presets.lv2"} <= names, \
        f"the LV2 specification's .ttl files (lv2-dev) are missing: found {sorted(names)}"
    out = subprocess.run(["sord_validate", *map(str, spec), *map(str, ours)], capture_output=True, text=True,
                         timeout=120)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    assert "Found 0 errors" in text, text
    assert not re.search(r"warning", text, re.I), text


def test_the_validation_reads_no_other_plugins_bundle(bundle):
    """Only rack's files and the specification bundles they use are validated: a plugin
    installed beside the specification (here Calf, installed by scripts/install-deps for this
    reason; its own .ttl files give sord_validate errors) is never read."""
    ours = sorted((bundle / "rack.lv2").glob("*.ttl"))
    spec = specification_files(ours)
    plugins = [m.parent for m in SPEC_ROOT.glob("*.lv2/manifest.ttl")
               if not re.search(r"a\s+lv2:Specification", m.read_text(errors="replace"))
               and m.parent.name != "schemas.lv2"]
    assert plugins, "no plugin bundle besides the specification under /usr/lib/lv2 (scripts/install-deps: calf-plugins)"
    assert not {f.parent for f in spec} & set(plugins), [str(f) for f in spec]


def test_lv2ls_finds_the_plugin_through_lv2_path(bundle, tmp_path):
    out = subprocess.run(["lv2ls"], capture_output=True, text=True, env=host_env(bundle), timeout=60)
    assert URI in out.stdout.split(), out.stdout + out.stderr
    elsewhere = subprocess.run(["lv2ls"], capture_output=True, text=True, env=host_env(tmp_path), timeout=60)
    assert URI not in elsewhere.stdout.split(), "found without LV2_PATH pointing at the bundle"


def test_lv2info_lists_every_port_with_the_tables_ranges_and_units(bundle, table):
    ports = lv2info_ports(bundle)
    assert [s for s, p in sorted(ports.items(), key=lambda kv: kv[1]["index"])][:4] == ["in_l", "in_r", "out_l", "out_r"]
    for sym in ["in_l", "in_r", "out_l", "out_r"]:
        assert "AudioPort" in ports[sym]["body"]
    # Units are not printed by lv2info: read them from the description (sordi's triples).
    triples = subprocess.run(["sordi", str(bundle / "rack.lv2/rack.ttl")], capture_output=True, text=True, timeout=30).stdout
    units = {"Hz": "units#hz", "dB": "units#db", "%": "units#pc", "s": "units#s", "ms": "units#ms"}
    # The documented tapers: frequencies and the decay time move logarithmically.
    logarithmic = {"cutoff", "decay", "damping", "lowcut", "highcut", "hpcut"}
    for name, row in table.items():
        assert name in ports, f"no port for parameter {name}"
        port = ports[name]
        assert "ControlPort" in port["body"] and "InputPort" in port["body"]
        if name == "room":
            assert (port["min"], port["max"]) == (0, len(row) - 1)
            points = re.findall(r"^\t\t\t\s*([\d.]+) = \"(\w+)\"", port["body"], re.M)
            assert [p[1] for p in sorted(points, key=lambda p: float(p[0]))] == row, port["body"]
            assert "enumeration" in port["body"] and "integer" in port["body"]
            continue
        lo, hi, default, unit = row
        assert (port["min"], port["max"]) == (lo, hi), (name, port)
        assert port["default"] == pytest.approx(default, rel=1e-6), (name, port)  # lv2info prints floats
        if unit == "on/off":
            assert "toggled" in port["body"], (name, port["body"])
            continue
        blank = re.search(rf'(_:\w+) <http://lv2plug.in/ns/lv2core#symbol> "{name}"', triples).group(1)
        assert re.search(rf"{blank} <http://lv2plug.in/ns/extensions/units#unit> <[^>]*{re.escape(units[unit])}>", triples), name
        assert ("logarithmic" in port["body"]) == (name in logarithmic), name
    # The meters (the README's three), after the controls: control outputs in dB from the floor.
    for index, sym in enumerate(METERS, start=4 + len(table)):
        port = ports[sym]
        assert port["index"] == index and "ControlPort" in port["body"] and "OutputPort" in port["body"], port
        assert (port["min"], port["max"]) == (METER_FLOOR, 0), port
        blank = re.search(rf'(_:\w+) <http://lv2plug.in/ns/lv2core#symbol> "{sym}"', triples).group(1)
        assert re.search(rf"{blank} <http://lv2plug.in/ns/extensions/units#unit> <[^>]*units#db>", triples), sym
    assert len(ports) == 4 + len(table) + len(METERS)


def plugin_name(bundle: Path) -> str:
    """The plugin's doap:name, from the description (sordi's triples)."""
    triples = subprocess.run(["sordi", str(bundle / "rack.lv2/rack.ttl")], capture_output=True, text=True, timeout=30).stdout
    return re.search(rf'<{URI}> <http://usefulinc.com/ns/doap#name> "([^"]+)"', triples).group(1)


def test_lv2info_names_the_plugin_and_its_maintainer(bundle, rack_binary):
    """Hosts show a maker (lv2info's Author, a DAW's maker column), and the plugin's name is not
    `rack run`'s default JACK client name (jalv names its client after the plugin)."""
    out = subprocess.run(["lv2info", URI], capture_output=True, text=True, env=host_env(bundle), timeout=60).stdout
    fields = dict(re.findall(r"^\t(\w[\w ]*?):\s+(.*)$", out, re.M))
    assert fields.get("Author") == "rack maintainers", out
    assert fields.get("Name") == plugin_name(bundle), out
    usage = subprocess.run([str(rack_binary), "run", "--help"], capture_output=True, text=True, timeout=30).stdout
    default = re.search(r"--name <name>.*?\(default: ([^)]+)\)", usage, re.S).group(1)
    assert default == "rack" and fields["Name"] != default, (fields["Name"], default)


def test_presets_are_the_factory_presets(bundle, rack_binary):
    out = subprocess.run(["lv2info", URI], capture_output=True, text=True, env=host_env(bundle), timeout=60).stdout
    listed = out.split("Presets:")[1].split("\n\n")[0].split()
    names = subprocess.run([str(rack_binary), "presets", "list"], capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, XDG_CONFIG_HOME="/nonexistent")).stdout
    factory = [line.split()[1] for line in names.splitlines() if " factory " in line]
    assert sorted(" ".join(listed).split()) == sorted(" ".join(
        l[4:20].strip() for l in names.splitlines() if " factory " in l).split()), (listed, factory)


# ----------------------------------------------------------------------------------------------
# The same samples as rack render


def preset_values(bundle: Path, name: str) -> dict:
    """symbol -> value of a preset, from presets.ttl (sordi's triples)."""
    triples = subprocess.run(["sordi", str(bundle / "rack.lv2/presets.ttl")], capture_output=True, text=True, timeout=30).stdout
    uri = re.search(rf'(<[^>]+>) <http://www.w3.org/2000/01/rdf-schema#label> "{name}"', triples).group(1)
    values = {}
    for blank in re.findall(rf"{re.escape(uri)} <http://lv2plug.in/ns/lv2core#port> (_:\w+)", triples):
        sym = re.search(rf'{blank} <http://lv2plug.in/ns/lv2core#symbol> "(\w+)"', triples).group(1)
        val = re.search(rf'{blank} <http://lv2plug.in/ns/ext/presets#value> "([^"]+)"', triples).group(1)
        values[sym] = float(val)
    return values


FACTORY = sorted(p.stem for p in (livelib.REPO / "Presets").glob("*.json"))


@pytest.mark.parametrize("case", ["settings", *FACTORY])
def test_lv2apply_equals_rack_render(bundle, rack_binary, table, tmp_path, case):
    """With every port set, or with each factory preset's values (presets whose shaping values
    sit at the ports' defaults, as Vocal Plate's decay does, included: the room rule for hosts
    leaves them as given). Bit for bit where every value is exact in a control port's 32-bit
    float; otherwise (decay 2.2 s, …) within the README's 1e-6 (−120 dBFS)."""
    inp = tmp_path / "in.wav"
    # From the first frame: the input starts at full level (`rack render` does not fade it in).
    write_float_wav(inp, make_signal(silence_frames=0))
    if case == "settings":
        # Every shaping control set too: a host sets each port, and `--set` sets them in the same
        # group as the room, so the room rule leaves them as given on both sides.
        settings = {"cutoff": 1500, "resonance": 6, "mix": 35, "gain": -4.5, "room": 3, "decay": 2.5,
                    "predelay": 20, "damping": 6000, "lowcut": 40, "highcut": 15000, "width": 120,
                    "freeze": 0, "bypass": 0}
        render_args = [f"--set={k}={table['room'][v] if k == 'room' else v}" for k, v in settings.items()]
    else:
        settings = preset_values(bundle, case)
        assert len(settings) == len(table)
        render_args = ["--preset", case]
    ref = tmp_path / "ref.wav"
    r = subprocess.run([str(rack_binary), "render", str(inp), str(ref), *render_args], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out.wav"
    controls = [a for k, v in settings.items() for a in ("-c", k, repr(float(v)))]
    a = subprocess.run(["lv2apply", "-i", str(inp), "-o", str(out), *controls, URI], capture_output=True, text=True,
                       env=host_env(bundle), timeout=120)
    assert a.returncode == 0, a.stderr
    expected, got = read_float_wav(ref), read_float_wav(out)
    assert expected.shape == got.shape
    assert np.abs(expected).max() > 0.05
    exact = all(float(np.float32(v)) == float(v) for v in settings.values())
    print(f"{case}: max difference {np.abs(expected - got).max():.3g} ({'exact' if exact else 'float'} port values)")
    if exact:
        assert np.array_equal(expected, got), f"max difference {np.abs(expected - got).max()}"
    else:
        assert np.abs(expected - got).max() <= 1e-6


def schroeder_t30(x: np.ndarray) -> float:
    """T30 (s) of the Schroeder curve of l² + r² (−5 to −35 dB, a least-squares line), as
    RackTestSupport's `schroederT30` measures it."""
    energy = (x[:, 0].astype(float) ** 2 + x[:, 1].astype(float) ** 2)[::-1].cumsum()[::-1]
    db = 10 * np.log10(np.maximum(energy, 1e-300) / energy[0])
    start, end = int(np.argmax(db <= -5)), int(np.argmax(db <= -35))
    assert end > start + 1, "the decay does not reach −35 dB"
    return -60 / np.polyfit(np.arange(start, end) / RATE, db[start:end], 1)[0]


def test_a_room_on_the_room_port_brings_its_own_decay(bundle, rack_binary, table, tmp_path):
    """`lv2apply -c room N -c mix 100` on an impulse, every shaping port at its default, gives
    the room as designed: `rack render --set room=NAME --set mix=100`'s samples, so its T30
    (the cathedral's 5.2 s, not the decay port's default 1.8 s; the README's bound: within 5 %).
    Moving one shaping port (decay 3 s) takes every shaping port as given, as `--set` of all of
    them does."""
    impulse = np.zeros((12 * RATE, 2), np.float32)
    impulse[0] = 1
    inp = tmp_path / "impulse.wav"
    write_float_wav(inp, impulse)
    room = table["room"].index("cathedral")
    shaping = {"decay": 3, "predelay": 0, "damping": lv2info_ports(bundle)["damping"]["default"], "lowcut": 10,
               "highcut": 20000, "width": 100, "freeze": 0}
    for ports, sets in [({"room": room, "mix": 100}, {"room": "cathedral", "mix": 100}),
                        ({"room": room, "mix": 100, "decay": 3}, {"room": "cathedral", "mix": 100, **shaping})]:
        out, ref = tmp_path / "out.wav", tmp_path / "ref.wav"
        a = subprocess.run(["lv2apply", "-i", str(inp), "-o", str(out), *[x for k, v in ports.items() for x in ("-c", k, str(v))], URI],
                           capture_output=True, text=True, env=host_env(bundle), timeout=120)
        assert a.returncode == 0, a.stderr
        r = subprocess.run([str(rack_binary), "render", str(inp), str(ref), *[f"--set={k}={v}" for k, v in sets.items()]],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
        assert r.returncode == 0, r.stderr
        got, expected = read_float_wav(out), read_float_wav(ref)
        t_got, t_expected = schroeder_t30(got), schroeder_t30(expected)
        print(f"{ports}: T30 {t_got:.3f} s against rack render's {t_expected:.3f} s")
        assert t_got == pytest.approx(t_expected, rel=0.05)
        assert np.array_equal(got, expected), np.abs(got - expected).max()


def test_block_size_does_not_change_the_output(bundle, lv2host, tmp_path):
    """Any run() lengths (single frames, 0-frame calls, calls longer than the announced maximum,
    which the plugin splits, no announcement at all) give the same samples."""
    signal = make_signal(1.0)
    settings = control_args(bundle, {"cutoff": 900, "mix": 60, "room": 7})
    reference = run_host(lv2host, bundle, tmp_path, signal, "-m", "8192", "-b", "8192", *settings, name="ref")
    assert np.abs(reference).max() > 0.05
    for blocks, maximum in [("1", "1"), ("64", "64"), ("257,3,1000,0,31", "1024"), ("5000", "256"), ("700", "0")]:
        got = run_host(lv2host, bundle, tmp_path, signal, "-m", maximum, "-b", blocks, *settings, name="got")
        assert np.array_equal(got, reference), (blocks, maximum, np.abs(got - reference).max())


def test_a_moved_control_ramps_the_same_way_whatever_the_block_size(bundle, lv2host, tmp_path):
    """A control moved between two run() calls ramps over its parameter's default ramp (gain:
    20 ms) from the first frame of the call, never jumps, and block size changes nothing. A sine
    at the input and mix 0 make the output the input times the gain."""
    n = RATE
    t = np.arange(n) / RATE
    sine = np.stack([0.5 * np.sin(2 * np.pi * 1000 * t)] * 2, axis=1).astype(np.float32)
    ports = lv2info_ports(bundle)
    at = 28800  # a multiple of every block pattern below
    args = [*control_args(bundle, {"mix": 0, "gain": 0}), "-s", f"{at}:{ports['gain']['index']}=-20"]
    reference = run_host(lv2host, bundle, tmp_path, sine, "-m", "9600", "-b", "9600", *args, name="ref")
    for blocks, maximum in [("1", "1"), ("32", "32"), ("75", "4096"), ("4800", "256")]:
        got = run_host(lv2host, bundle, tmp_path, sine, "-m", maximum, "-b", blocks, *args, name="got")
        assert np.array_equal(got, reference), (blocks, np.abs(got - reference).max())
    # The gain as an envelope: output RMS over input RMS per cycle of the sine (48 frames).
    cycles = n // 48
    rms = lambda x: np.sqrt((x[:cycles * 48].reshape(cycles, 48) ** 2).mean(axis=1))
    envelope = rms(reference[:, 0]) / rms(sine[:, 0])
    first, ramp_cycles = at // 48, int(0.02 * RATE) // 48
    assert np.allclose(envelope[5:first], 1, atol=0.01), envelope[5:first].min()
    assert np.allclose(envelope[first + ramp_cycles + 1:], 0.1, atol=0.001), envelope[first + ramp_cycles + 1:].max()
    moving = envelope[first:first + ramp_cycles]
    assert (np.diff(moving) < 0).all() and moving[0] < 1 and moving[-1] > 0.1, moving  # the whole 20 ms
    # No jump: past the filter's onset, the largest sample-to-sample step is the sine's own
    # (1 kHz at 0.5 and 48 kHz: 0.5 · 2π · 1000 / 48000 = 0.0654).
    assert np.abs(np.diff(reference[240:, 0])).max() < 0.0660


# ----------------------------------------------------------------------------------------------
# A hostile host


def test_hostile_host(bundle, lv2host, tmp_path):
    signal = make_signal(0.6)
    ports = lv2info_ports(bundle)
    settings = control_args(bundle, {"cutoff": 3000, "room": 5})
    plain = run_host(lv2host, bundle, tmp_path, signal, "-b", "256", *settings, name="plain")
    assert np.abs(plain).max() > 0.05

    # run() with 0 frames between real calls changes nothing.
    zeros = run_host(lv2host, bundle, tmp_path, signal, "-b", "0,256,0,0", *settings, name="zeros")
    assert np.array_equal(zeros, plain)

    # The largest announced block, and ten times more than announced (the plugin splits it).
    largest = run_host(lv2host, bundle, tmp_path, signal, "-m", "28800", "-b", "28800", *settings, name="largest")
    longer = run_host(lv2host, bundle, tmp_path, signal, "-m", "64", "-b", "640", *settings, name="longer")
    assert np.array_equal(largest, plain) and np.array_equal(longer, plain)

    # An audio input never connected reads as silence: the same as a connected input of zeros.
    one_side = signal.copy()
    one_side[:, 1] = 0
    connected = run_host(lv2host, bundle, tmp_path, one_side, "-b", "256", *settings, name="conn")
    unconnected = run_host(lv2host, bundle, tmp_path, signal, "-b", "256", "-u", str(ports["in_r"]["index"]), *settings, name="unconn")
    assert np.array_equal(connected, unconnected)
    # An output never connected: the plugin renders into its own sink and does not crash.
    run_host(lv2host, bundle, tmp_path, signal, "-b", "256", "-u", str(ports["out_l"]["index"]), *settings, name="noout")
    # A control port never connected takes the parameter's default.
    defaults = run_host(lv2host, bundle, tmp_path, signal, "-b", "256", *control_args(bundle, {}), name="dflt")
    no_cutoff = run_host(lv2host, bundle, tmp_path, signal, "-b", "256", *control_args(bundle, {"cutoff": 100}),
                         "-u", str(ports["cutoff"]["index"]), name="nocut")
    assert np.array_equal(defaults, no_cutoff)

    # NaN on a control port leaves the parameter where it was.
    nan_control = run_host(lv2host, bundle, tmp_path, signal, "-b", "256", *settings,
                           "-s", f"{256 * 40}:{ports['cutoff']['index']}=nan", name="nanctl")
    assert np.array_equal(nan_control, plain)

    # NaN and infinities on the input become 0 before any state sees it, as in the JACK client:
    # the samples of the same input with 0 in their places, bit for bit.
    bad, zeroed = signal.copy(), signal.copy()
    bad[RATE // 5::997, 0] = np.nan
    bad[RATE // 4::1999, 1] = np.inf
    bad[RATE // 3::2999, 0] = -np.inf
    zeroed[~np.isfinite(bad)] = 0
    finite = run_host(lv2host, bundle, tmp_path, bad, "-b", "256", *settings, name="nan")
    as_zeros = run_host(lv2host, bundle, tmp_path, zeroed, "-b", "256", *settings, name="nanzero")
    assert np.isfinite(finite).all() and np.abs(as_zeros).max() > 0.05
    assert np.array_equal(finite, as_zeros), np.abs(finite - as_zeros).max()

    # activate / deactivate / activate: the second activation starts over (same samples again).
    twice = run_host(lv2host, bundle, tmp_path, signal, "-b", "256", "-a", *settings, name="twice")
    assert np.array_equal(twice[:len(plain)], plain) and np.array_equal(twice[len(plain):], plain)

    # Sample rates the engine does not serve (outside 8…384 kHz, the README's): instantiate
    # returns NULL, no crash; the bounds themselves are served.
    for rate, served in [(4000, False), (7999, False), (8000, True), (384000, True), (384001, False), (768000, False)]:
        res = subprocess.run([str(lv2host), "-l", str(bundle / "rack.lv2/librack-lv2.so"), "-r", str(rate),
                              "-i", str(tmp_path / "plain.in.f32"), "-o", str(tmp_path / f"rate{rate}.f32")],
                             capture_output=True, text=True, timeout=60)
        if served:
            assert res.returncode == 0, (rate, res.stderr)
        else:
            assert res.returncode == 1 and "instantiate failed" in res.stderr, (rate, res.stderr)

    # Two instances at once, run alternately: each gives the samples one instance gives alone.
    run_host(lv2host, bundle, tmp_path, signal, "-b", "256", "-n", "2", *settings, name="two")
    first = np.fromfile(tmp_path / "two.f32", dtype="<f4").reshape(-1, 2)
    second = np.fromfile(tmp_path / "two.f32.1", dtype="<f4").reshape(-1, 2)
    assert np.array_equal(first, plain) and np.array_equal(second, plain)


def test_the_meter_ports_read_the_last_blocks_peaks(bundle, lv2host, tmp_path):
    """A 1 kHz sine at −6 dBFS left and −12 dBFS right, mix 0 and gain 0 dB (the output is the
    input through the open low-pass): the output peaks read −6.0 and −12.0 dBFS, the reverb's
    input the louder channel, −6.0 (±0.1 dB each); silence reads the floor on all three."""
    ports = lv2info_ports(bundle)
    settings = control_args(bundle, {"mix": 0, "gain": 0})
    for signal, want in [(sine(-6, -12), [-6, -12, -6]), (np.zeros((RATE // 2, 2), np.float32), [METER_FLOOR] * 3)]:
        inp, out = tmp_path / "in.f32", tmp_path / "out.f32"
        signal.tofile(inp)
        res = subprocess.run([str(lv2host), "-l", str(bundle / "rack.lv2/librack-lv2.so"), "-i", str(inp), "-o", str(out),
                              "-p", str(ports_count(bundle)), "-b", "256", "-V", *settings],
                             capture_output=True, text=True, env=host_env(bundle), timeout=120)
        assert res.returncode == 0, res.stderr
        values = {int(i): float(v) for _, i, v in (l.split("\t") for l in res.stdout.splitlines() if l.startswith("port\t"))}
        got = [values[ports[sym]["index"]] for sym in METERS]
        print(f"meters {dict(zip(METERS, got))}")
        assert got == (want if want[0] == METER_FLOOR else pytest.approx(want, abs=0.1)), got


def test_activate_after_deactivate_leaves_no_tail(bundle, lv2host, table, tmp_path):
    """An impulse into the cathedral at mix 100, then deactivate/activate and silence: the second
    pass is a fresh instance's output of silence bit for bit (below −140 dBFS), while the first
    still rings at its end."""
    impulse = np.zeros((RATE, 2), np.float32)
    impulse[0] = 1
    settings = control_args(bundle, {"mix": 100, "room": table["room"].index("cathedral")})
    both = run_host(lv2host, bundle, tmp_path, impulse, "-b", "256", "-a", "-z", *settings, name="both")
    fresh = run_host(lv2host, bundle, tmp_path, np.zeros_like(impulse), "-b", "256", *settings, name="fresh")
    first, second = both[:RATE], both[RATE:]
    assert np.abs(first[-RATE // 10:]).max() > 10 ** (-100 / 20)
    assert np.array_equal(second, fresh) and np.abs(second).max() < 10 ** (-140 / 20)


def test_only_lv2_descriptor_is_exported_and_no_swift_toolchain_is_needed(bundle):
    lib = bundle / "rack.lv2/librack-lv2.so"
    syms = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], capture_output=True, text=True, timeout=30).stdout
    exported = [l.split()[-1] for l in syms.splitlines()
                if len(l.split()) >= 8 and l.split()[4] in ("GLOBAL", "WEAK") and l.split()[6] != "UND"]
    assert exported == ["lv2_descriptor"], exported
    # Every symbol in the dynamic table that the object defines, whatever its binding (a local
    # one there, as a Swift type's metadata was, is still visible to the loader).
    defined = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True,
                             check=True, timeout=30).stdout.split("\n")
    assert [line.split()[-1] for line in defined if line.strip()] == ["lv2_descriptor"], defined
    # The README: Embedded Swift brings the shared object under 1 MB.
    assert lib.stat().st_size < 1 << 20, lib.stat().st_size
    ldd = subprocess.run(["ldd", str(lib)], capture_output=True, text=True, env=host_env(bundle), timeout=30).stdout
    assert "swift" not in ldd.lower() and "not found" not in ldd, ldd
    # The README: ldd lists only libc and libm (beside the vDSO and the loader).
    needed = {line.split()[0] for line in ldd.splitlines() if line.strip()}
    loader = {n for n in needed if n.startswith(("linux-vdso.so", "/lib64/ld-linux", "/lib/ld-linux"))}
    assert needed - loader == {"libc.so.6", "libm.so.6"}, ldd


# ----------------------------------------------------------------------------------------------
# jalv on a private JACK server


def test_jalv_processes_audio_on_jack(bundle, rack_binary, helpers, tmp_path, xdg):
    server = f"rack-lv2-{os.getpid()}"
    pid = livelib.start_jack(server, RATE, 256)
    procs = []
    try:
        # The runtime probe counts heap, lock and I/O calls inside the plugin's run() (bracketed by
        # its weak rack_probe_enter/leave hooks) on jalv's JACK thread; it reports when jalv exits.
        probe_out = tmp_path / "probe.json"
        env = host_env(bundle, JACK_DEFAULT_SERVER=server, JACK_NO_START_SERVER="1",
                       LD_PRELOAD=str(helpers["probe"]), RACK_PROBE_OUT=str(probe_out))
        jalv = subprocess.Popen(["jalv", "-x", "-n", "rackfx", "-c", "cutoff=400", URI], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        procs.append(jalv)
        # The source: rack itself, playing its demo loop.
        source = subprocess.Popen([str(rack_binary), "run", "--name", "src", "--osc-port", "0", "--http-port", "0",
                                   "--no-advertise"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  env=dict(livelib.jack_env(server), XDG_CONFIG_HOME=str(xdg)))
        procs.append(source)
        assert livelib.wait_until(lambda: {"rackfx:in_l", "src:out_1"} <= set(jack_answers(server, pid).splitlines()), 20), \
            jack_answers(server, pid)
        for a, b in [("src:out_1", "rackfx:in_l"), ("src:out_2", "rackfx:in_r")]:
            subprocess.run(["jack_connect", a, b], check=True, env=livelib.jack_env(server), timeout=10)
        dark, rate = livelib.record(helpers["jackrec"], server, ["rackfx:out_l", "rackfx:out_r"], 1.5, tmp_path / "dark.f32")
        # A control changed from jalv's console.
        assert rate == RATE
        assert np.abs(dark).max() > 0.01 and np.isfinite(dark).all()
        dark_c = livelib.spectral_centroid(dark, rate)
        jalv.stdin.write("cutoff = 12000\n")
        jalv.stdin.flush()
        seen = {}

        def brighter() -> bool:
            bright, _ = livelib.record(helpers["jackrec"], server, ["rackfx:out_l", "rackfx:out_r"], 0.5, tmp_path / "bright.f32")
            seen["centroid"] = livelib.spectral_centroid(bright, rate)
            return bool(np.isfinite(bright).all()) and seen["centroid"] > 1.5 * dark_c

        assert livelib.wait_until(brighter, 15), (dark_c, seen)
        jalv.terminate()
        assert jalv.wait(timeout=15) == 0
        assert livelib.wait_until(probe_out.exists, 10), "the probe wrote no report"
        report = json.loads(probe_out.read_text())
        print(f"runtime probe under jalv: {report['cycles']} run() calls, malloc {report['malloc']}, "
              f"free {report['free']}, lock {report['lock']}, io {report['io']}")
        assert report["cycles"] > 100, report
        assert (report["malloc"], report["free"], report["lock"], report["io"]) == (0, 0, 0, 0), report
    finally:
        end_processes(procs)
        livelib.stop_jack(pid)


def test_jalv_names_its_client_after_the_plugin_not_rack_runs_default(bundle, rack_binary, tmp_path, xdg):
    """jalv without -n: its JACK client is the plugin's name, beside a `rack run` under its
    default name on the same server; neither is renamed."""
    server = f"rack-lv2-name-{os.getpid()}"
    pid = livelib.start_jack(server, RATE, 256)
    procs = []
    try:
        jalv = subprocess.Popen(["jalv", "-x", URI], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                env=host_env(bundle, JACK_DEFAULT_SERVER=server, JACK_NO_START_SERVER="1"))
        procs.append(jalv)
        source = subprocess.Popen([str(rack_binary), "run", "--osc-port", "0", "--http-port", "0", "--no-advertise"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  env=dict(livelib.jack_env(server), XDG_CONFIG_HOME=str(xdg)))
        procs.append(source)
        name = plugin_name(bundle)
        want = {f"{name}:in_l", f"{name}:out_r", "rack:out_1"}
        assert livelib.wait_until(lambda: want <= set(jack_answers(server, pid).splitlines()), 20), \
            jack_answers(server, pid)
    finally:
        end_processes(procs)
        livelib.stop_jack(pid)


def splatter_db(x: np.ndarray, rate: int, above_hz: float = 50.0) -> float:
    """The OSC and MIDI tests' measure: energy of the signal's changes (first difference) above
    `above_hz`, in dB FS."""
    d = np.diff(x.astype(np.float64))
    spectrum = np.abs(np.fft.rfft(d)) ** 2
    freqs = np.fft.rfftfreq(len(d), 1.0 / rate)
    return float(10 * np.log10(spectrum[freqs > above_hz].sum() / len(d) + 1e-30))


def test_a_control_changed_from_jalvs_console_ramps_without_a_click(bundle, helpers, tmp_path):
    """A steady DC input, mix 0 (dry), gain −40 dB; `gain = 0` typed on jalv's console while
    JACK records: the output rises over the gain's 20 ms default ramp (10 %→90 % of the dB rise
    in 16 ms), and its changes carry at least 10 dB less energy above 50 Hz than the same rise
    as a step."""
    server = f"rack-lv2-{os.getpid()}-ramp"
    pid = livelib.start_jack(server, RATE, 256)
    procs = []
    try:
        env = host_env(bundle, JACK_DEFAULT_SERVER=server, JACK_NO_START_SERVER="1")
        jalv = subprocess.Popen(["jalv", "-x", "-n", "rackfx", "-c", "mix=0", "-c", "gain=-40", URI],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, env=env)
        procs.append(jalv)
        assert livelib.wait_until(lambda: "rackfx:in_l" in jack_answers(server, pid).split(), 20)
        sched = tmp_path / "empty.txt"
        sched.write_text("\n")
        dc = subprocess.Popen([str(helpers["midisend"]), str(sched), "6", "-d", "rackfx:in_l", "-d", "rackfx:in_r"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=livelib.jack_env(server))
        procs.append(dc)
        assert livelib.wait_until(lambda: "midisend:dc" in livelib.parse_connections(jack_answers(server, pid, "-c"))
                                  .get("rackfx:in_l", []), 10)
        path, started = tmp_path / "ramp.f32", tmp_path / "started"
        rec = subprocess.Popen([str(helpers["jackrec"]), str(path), "2.5", "rackfx:out_l"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env={**livelib.jack_env(server), "JACKREC_STARTED": str(started)})
        procs.append(rec)
        # The change is typed once the capture holds its first 20 ms: the quiet plateau before it.
        assert livelib.wait_until(started.exists, 10), "jackrec did not start recording within 10 s"
        jalv.stdin.write("gain = 0\n")
        jalv.stdin.flush()
        out, err = rec.communicate(timeout=20)
        assert rec.returncode == 0, err
        x = np.fromfile(path, dtype=np.float32).astype(np.float64)
    finally:
        end_processes(procs)
        livelib.stop_jack(pid)
    assert_gain_ramp(x, "jalv")


def test_jalv_shows_the_meters(bundle, helpers, tmp_path):
    """The meters under jalv, read back on its console with `monitors` (its values of the
    output control ports): a 1 kHz sine at −6 dBFS left and −12 dBFS right played into jalv's
    inputs by a JACK client (jackrec), mix 0 and gain 0 dB, reads −6.0, −12.0 and −6.0 (±0.1 dB,
    as under lv2host); once the client has left (its inputs unconnected: silence), all three read
    the floor. jalv 1.6.6's `-p` (print control output changes) prints no line at its console,
    with or without `-s`; `monitors` is how its console shows them."""
    ports = lv2info_ports(bundle)
    outputs = {sym for sym, p in ports.items() if "#OutputPort" in p["body"] and "#ControlPort" in p["body"]}
    server = f"rack-lv2-{os.getpid()}-meters"
    pid = livelib.start_jack(server, RATE, 256)
    procs = []
    try:
        env = host_env(bundle, JACK_DEFAULT_SERVER=server, JACK_NO_START_SERVER="1")
        # The console prints through stdio: line-buffered, each answer reaches the pipe as printed
        # (block-buffered, a pipe would hold it until jalv exits).
        jalv = subprocess.Popen(["stdbuf", "-oL", "jalv", "-x", "-n", "rackfx", "-c", "mix=0", "-c", "gain=0", URI],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        procs.append(jalv)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in jalv.stdout] + [lines.put(None)], daemon=True).start()

        def monitors() -> dict:
            """`monitors` typed on the console: its "SYMBOL = VALUE" line for every output control port."""
            jalv.stdin.write("monitors\n")
            jalv.stdin.flush()
            got = {}
            while len(got) < len(outputs):
                try:
                    line = lines.get(timeout=10)
                except queue.Empty:
                    pytest.fail(f"jalv answered `monitors` with {got} in 10 s (output control ports: {sorted(outputs)})")
                assert line is not None, f"jalv exited ({jalv.wait()}) answering `monitors`: {got}"
                m = re.search(r"(\w+) = (\S+)$", line.strip())
                if m and m.group(1) in outputs:
                    got[m.group(1)] = float(m.group(2))
            return got

        assert livelib.wait_until(lambda: {"rackfx:in_l", "rackfx:in_r"} <= set(jack_answers(server, pid).split()), 20)
        played = tmp_path / "sine.f32"
        sine(-6, -12, seconds=20).tofile(played)
        player = subprocess.Popen([str(helpers["jackrec"]), str(tmp_path / "none"), "20"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True,
                                  env=livelib.jack_env(server, JACKREC_PLAY=str(played),
                                                       JACKREC_PLAY_PORTS="rackfx:in_l rackfx:in_r"))
        procs.append(player)
        # The sine has reached run() once a meter leaves the floor.
        assert livelib.wait_until(lambda: any(v > METER_FLOOR for v in monitors().values()), 15), monitors()
        playing = monitors()
        player.terminate()
        player.wait(timeout=10)
        # The player gone, jalv's inputs are silence from the next run() on.
        silent = {}
        livelib.wait_until(lambda: silent.update(monitors()) or all(v == METER_FLOOR for v in silent.values()), 10)
        print(f"jalv's monitors: {playing} with the sine, {silent} in silence")
        assert [playing.get(sym) for sym in METERS] == pytest.approx([-6, -12, -6], abs=0.1), playing
        assert [silent.get(sym) for sym in METERS] == [METER_FLOOR] * 3, silent
    finally:
        end_processes(procs)
        livelib.stop_jack(pid)



def end_processes(procs: list) -> None:
    """Asks each of `procs` to end (SIGTERM), killing one that has not within 10 s."""
    for p in procs:
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


def assert_gain_ramp(x: np.ndarray, host: str) -> None:
    """`x`: the plugin's output for a 0.5 DC input at mix 0 while the gain moves from −40 to
    0 dB: a quiet plateau, a rise of 10 %→90 % of the dB rise in 16 ms (the gain's 20 ms
    default ramp) ± 2 frames, the loud plateau, and at least 10 dB less energy above 50 Hz in
    its changes than the same rise as a step."""
    quiet, loud = 0.5 * 10 ** (-40 / 20), 0.5
    rise = np.flatnonzero(x > quiet * 1.01)
    assert rise.size and rise[0] > 480, "a quiet plateau before the change"
    assert np.isclose(x[-4800:], loud, rtol=1e-4).all(), "the loud plateau after it"
    window = x[rise[0] - 480: rise[0] + 9600]
    db = 20 * np.log10(np.maximum(window, 1e-9) / loud)
    ten, ninety = np.flatnonzero(db > -36)[0], np.flatnonzero(db > -4)[0]
    print(f"{host}: 10→90 % of the dB rise in {ninety - ten} frames")
    assert abs((ninety - ten) - 0.016 * RATE) <= 2, (ninety - ten)
    step = np.where(np.arange(len(window)) < (ten + ninety) // 2, quiet, loud)
    s_ramp, s_step = splatter_db(window, RATE), splatter_db(step, RATE)
    print(f"splatter above 50 Hz: {host} gain change {s_ramp:.2f} dB, the same rise as a step {s_step:.2f} dB")
    assert s_ramp < s_step - 10, (s_ramp, s_step)
