"""rack.clap in CLAP hosts: claphost.c (our own host) loads it through `clap_entry` and the plugin
factory and checks the descriptor, the audio ports, latency 0 and one parameter per row of the
parameter table (ids from the rows' names, ranges, defaults, steps, text both ways); the output
equals `rack render` with the same settings bit for bit at 44.1, 48 and 96 kHz in blocks of
varying length; a parameter event applies at its frame inside a block; a saved state loaded into
a second instance gives the same samples; hostile calls do not crash; the runtime probe counts
no heap, lock or I/O call in process(); only `clap_entry` is exported. Qtractor's headless plugin scanner loads it as a DAW does.

The plugin is the rack.clap beside $RACK_BIN (scripts/build-plugins); hosts run with PATH and
LD_LIBRARY_PATH free of any Swift toolchain."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import livelib
from test_lv2 import METER_FLOOR, METERS, RATE, make_signal, read_float_wav, sine, table, write_float_wav  # noqa: F401 (table: a fixture)

HERE = Path(__file__).resolve().parent
CLAP_HEADERS = Path("/usr/share/dpf/distrho/src")   # dpf-source's CLAP 1.1 headers
# Qtractor's plugin scanner: Debian's qtractor, or the copy scripts/install-deps unpacks alone.
SCANNERS = [Path("/usr/lib/x86_64-linux-gnu/qtractor/qtractor_plugin_scan"),
            Path("/usr/local/lib/rack-tests/qtractor/qtractor_plugin_scan")]
ID = "org.rack.effects"

pytestmark = pytest.mark.skipif(not (CLAP_HEADERS / "clap/entry.h").exists(),
                                reason="CLAP headers missing (scripts/install-deps: dpf-source)")


def clean_env() -> dict:
    """An environment with no Swift toolchain on PATH or LD_LIBRARY_PATH."""
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["PATH"] = ":".join(p for p in os.environ.get("PATH", "").split(":") if "swift" not in p) or "/usr/bin:/bin"
    return env


def clap_id(name: str) -> int:
    """A parameter's CLAP id as the README defines it: the 32-bit FNV-1a hash of its name."""
    h = 2166136261
    for b in name.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


@pytest.fixture(scope="module")
def plugin(rack_binary) -> Path:
    lib = Path(rack_binary).parent / "rack.clap"
    assert lib.exists(), f"{lib} missing: scripts/build-plugins"
    return lib


@pytest.fixture(scope="module")
def claphost(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("claphost") / "claphost"
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-Wall", "-Werror", "-I", str(CLAP_HEADERS), "-o", str(exe),
                    str(HERE / "claphost.c"), "-ldl", "-lm"], check=True, timeout=120)
    return exe


def host(claphost: Path, plugin: Path, *args: str) -> str:
    res = subprocess.run([str(claphost), "-l", str(plugin), *args], capture_output=True, text=True,
                         env=clean_env(), timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout


def run(claphost: Path, plugin: Path, tmp: Path, signal: np.ndarray, *args: str, name: str = "out") -> np.ndarray:
    inp, out = tmp / f"{name}.in.f32", tmp / f"{name}.f32"
    signal.astype("<f4").tofile(inp)
    host(claphost, plugin, "-i", str(inp), "-o", str(out), *args)
    return np.fromfile(out, dtype="<f4").reshape(-1, 2)


def settings_args(settings: dict) -> list[str]:
    return [a for k, v in settings.items() for a in ("-c", f"{clap_id(k)}={float(v)!r}")]


def described(claphost: Path, plugin: Path) -> dict:
    """claphost -P: the descriptor, the ports, the latency and name -> the parameter's fields."""
    lines = [l.split("\t") for l in host(claphost, plugin, "-P").splitlines()]
    kinds = {l[0]: l[1:] for l in lines if l[0] != "param"}
    kinds["params"] = {l[2]: dict(id=int(l[1]), min=float(l[3]), max=float(l[4]), default=float(l[5]), flags=int(l[6]),
                                  module=l[7], text=l[8], back=float(l[9]), value=float(l[10]))
                       for l in lines if l[0] == "param"}
    return kinds


def test_the_plugin_describes_itself_from_the_parameter_table(claphost, plugin, table):
    d = described(claphost, plugin)
    assert d["plugin"][:3] == [ID, "rack effects", "rack maintainers"]
    assert d["plugin"][3].split(",") == ["audio-effect", "reverb", "filter", "stereo"]
    assert d["ports"] == ["1:1", "2:2", "stereo", "1"]   # one main stereo pair
    assert d["latency"] == ["0"]
    params = d["params"]
    readonly = 1 << 3
    meters = {name: p for name, p in params.items() if p["flags"] & readonly}
    # The meters (the README's three) come after the rows: read-only, in dB from the floor.
    assert list(meters) == METERS and list(params)[-len(METERS):] == METERS, list(params)
    for name, p in meters.items():
        assert (p["min"], p["max"], p["default"], p["value"], p["flags"]) == (METER_FLOOR, 0, METER_FLOOR, METER_FLOOR, readonly), p
        assert p["id"] == clap_id(name) and p["module"] == "meters" and p["text"] == "-90 dBFS" and p["back"] == METER_FLOOR, p
    params = {name: p for name, p in params.items() if name not in meters}
    assert sorted(params) == sorted(table) and len(params) == len(table), "one parameter per row"
    ids = [p["id"] for p in params.values()]
    assert ids == [clap_id(n) for n in params] and len(set(ids)) == len(ids) and 0xFFFFFFFF not in ids
    stepped, bypass, automatable = 1, 16, 32
    for name, p in params.items():
        if name == "room":
            assert (p["min"], p["max"], p["default"]) == (0, len(table["room"]) - 1, p["value"])
            assert p["text"] == table["room"][int(p["default"])]
        else:
            lo, hi, default, unit = table[name]
            # The help writes a default at the parameter's precision (damping's 3529.41… as 3529).
            assert (p["min"], p["max"]) == (lo, hi) and p["default"] == p["value"], name
            assert p["default"] == pytest.approx(default, abs=0.5), name
            if unit != "on/off":
                assert p["text"].endswith(" " + unit), (name, p["text"])
        toggle = name in ("freeze", "bypass")
        assert p["flags"] & stepped == (stepped if name == "room" or toggle else 0), name
        assert p["flags"] & bypass == (bypass if name == "bypass" else 0), name
        assert p["flags"] & automatable, name
        assert p["back"] == (p["default"] if name in ("room", "freeze", "bypass") else float(p["text"].split()[0])), name
    assert params["freeze"]["text"] == "off" and params["cutoff"]["module"] == "filter"


def test_text_becomes_a_value_with_or_without_the_unit_and_ignoring_case(claphost, plugin, table):
    cases = [("cutoff", "1500", 1500), ("cutoff", " 1500 hz ", 1500), ("gain", "-4.5 dB", -4.5),
             ("cutoff", "99999 Hz", 20000), ("room", table["room"][3].upper(), 3), ("room", "3", 3),
             ("freeze", "ON", 1), ("bypass", "off", 0), ("gain", "loud", None), ("room", "nowhere", None),
             ("decay", "nan", None), ("decay", "inf s", None)]
    out = host(claphost, plugin, *[a for name, text, _ in cases for a in ("-t", f"{clap_id(name)}={text}")])
    got = [line.split("\t")[2] for line in out.splitlines() if line.startswith("text\t")]
    assert got == ["none" if want is None else repr(float(want)).removesuffix(".0") for _, _, want in cases]


@pytest.mark.parametrize("rate", [44100, 48000, 96000])
def test_the_output_equals_rack_render(claphost, plugin, rack_binary, table, tmp_path, rate):
    """As test_lv2's lv2apply comparison, from the input's first frame at full level: `rack
    render` plays a file as it is, as a plugin host does."""
    signal = make_signal(silence_frames=0)
    inp = tmp_path / "in.wav"
    write_float_wav(inp, signal, rate)
    settings = {"cutoff": 1500, "resonance": 6, "mix": 35, "gain": -4.5, "room": 3, "decay": 2.5,
                "predelay": 20, "damping": 6000, "lowcut": 40, "highcut": 15000, "width": 120,
                "freeze": 0, "bypass": 0}
    ref = tmp_path / "ref.wav"
    r = subprocess.run([str(rack_binary), "render", str(inp), str(ref),
                        *[f"--set={k}={table['room'][v] if k == 'room' else v}" for k, v in settings.items()]],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    expected = read_float_wav(ref)
    got = run(claphost, plugin, tmp_path, signal, "-r", str(rate), "-m", "1024", "-b", "257,3,1000,0,31",
              *settings_args(settings))
    assert expected.shape == got.shape and np.abs(expected).max() > 0.05
    assert np.array_equal(expected, got), f"max difference {np.abs(expected - got).max()}"


def test_a_room_alone_brings_its_own_shaping_values(claphost, plugin, rack_binary, table, tmp_path):
    """The room rule as the LV2 plugin applies it: the cathedral at mix 100 with the seven
    controls that follow the room at their defaults sounds as `rack render --set room=cathedral
    --set mix=100`, bit for bit (its T30, not the decay's default)."""
    impulse = np.zeros((3 * RATE, 2), np.float32)
    impulse[0] = 1
    inp, ref = tmp_path / "impulse.wav", tmp_path / "ref.wav"
    write_float_wav(inp, impulse)
    r = subprocess.run([str(rack_binary), "render", str(inp), str(ref), "--set=room=cathedral", "--set=mix=100"],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    got = run(claphost, plugin, tmp_path, impulse, *settings_args({"room": table["room"].index("cathedral"), "mix": 100}))
    assert np.array_equal(read_float_wav(ref), got), np.abs(read_float_wav(ref) - got).max()


def test_a_parameter_event_applies_at_its_frame(claphost, plugin, tmp_path):
    """An event in the middle of a block gives the samples of a block split at that frame, and
    not those of the event one frame later; any blocks give the same samples."""
    signal = make_signal(0.5)
    base = settings_args({"mix": 40, "room": 2})
    events = ["-s", f"1000:{clap_id('gain')}=-12", "-s", f"1000:{clap_id('cutoff')}=700",
              "-s", f"7000:{clap_id('room')}=5"]
    inside = run(claphost, plugin, tmp_path, signal, "-b", "4800", *base, *events, name="inside")
    split = run(claphost, plugin, tmp_path, signal, "-b", "1000,3800,1200,4800", *base, *events, name="split")
    later = run(claphost, plugin, tmp_path, signal, "-b", "4800", *base, "-s", f"1001:{clap_id('gain')}=-12",
                *events[2:], name="later")
    assert np.array_equal(inside, split)
    assert not np.array_equal(inside, later) and np.array_equal(inside[:1000], later[:1000])
    for blocks in ["1", "63,0,700", "24000"]:
        got = run(claphost, plugin, tmp_path, signal, "-m", "512", "-b", blocks, *base, *events, name="blocks")
        assert np.array_equal(got, inside), blocks


def render_preset(rack_binary, tmp_path: Path, signal: np.ndarray, preset: str) -> np.ndarray:
    """`rack render --preset` of `signal` (user presets from tmp_path/rack/presets)."""
    inp, ref = tmp_path / "preset.in.wav", tmp_path / "preset.ref.wav"
    write_float_wav(inp, signal)
    r = subprocess.run([str(rack_binary), "render", str(inp), str(ref), "--preset", preset], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    return read_float_wav(ref)


def test_a_preset_file_loaded_as_the_state_gives_rack_renders_samples(claphost, plugin, rack_binary, tmp_path):
    """Every factory preset's file (Presets/*.json, what the LV2 bundle carries as presets)
    loaded through clap.state gives `rack render --preset NAME`'s samples bit for bit; so does
    a user's preset written before the shaping controls and bypass existed (they take the
    room's values, freeze and bypass off)."""
    signal = make_signal(silence_frames=0)
    files = sorted((livelib.REPO / "Presets").glob("*.json"))
    assert len(files) >= 9, files
    for path in files:
        name = json.loads(path.read_text())["name"]
        got = run(claphost, plugin, tmp_path, signal, "-b", "257,3,1000,0,31", "-L", str(path), name="preset")
        expected = render_preset(rack_binary, tmp_path, signal, name)
        assert expected.shape == got.shape and np.abs(expected).max() > 0.05, name
        assert np.array_equal(expected, got), (name, np.abs(expected - got).max())
    old = {"name": "Old Cathedral", "cutoff": 5000, "resonance": 0, "mix": 100, "gain": -3, "room": "Cathedral"}
    user = tmp_path / "rack/presets"
    user.mkdir(parents=True)
    (user / "Old Cathedral.json").write_text(json.dumps(old))
    got = run(claphost, plugin, tmp_path, signal, "-L", str(user / "Old Cathedral.json"), name="old")
    assert np.array_equal(render_preset(rack_binary, tmp_path, signal, "Old Cathedral"), got)


@pytest.mark.parametrize("text", ['{"name": "x", "cutoff": true}', '{"name": "x", "loud": 1}', '{"name": "x", "room": 3}',
                                  '{"name": "x", "cutoff": 99999}', '{"name": "x", "mix": 1, "mix": 2}', '{"cutoff": 1}',
                                  '{"name": "x", "room": "nowhere"}', '{"name": "x", "room": "cathedral"} x', '{"name": "x"'])
def test_text_that_is_no_preset_loads_nothing(claphost, plugin, tmp_path, text):
    """As `rack` refuses such a preset file: a wrong type, an unknown or repeated field, a value
    out of range, no name or no room, an unknown room, trailing text, a cut-off object."""
    state = tmp_path / "bad.json"
    state.write_text(text)
    res = subprocess.run([str(claphost), "-l", str(plugin), "-i", str(state), "-o", str(tmp_path / "o.f32"), "-L", str(state)],
                         capture_output=True, text=True, env=clean_env(), timeout=60)
    assert res.returncode == 1 and "state load failed" in res.stderr, (res.stdout, res.stderr)


def test_a_saved_state_gives_a_second_instance_the_same_samples(claphost, plugin, tmp_path):
    signal = make_signal(0.5)
    state = tmp_path / "state"
    settings = {"cutoff": 1234.5678901, "room": 4, "decay": 3.3333333333333335, "freeze": 1, "width": 77}
    first = run(claphost, plugin, tmp_path, signal, *settings_args(settings), "-S", str(state), name="first")
    text = state.read_text()
    assert "cutoff=1234.5678901\n" in text and "decay=3.3333333333333335\n" in text and "room=4\n" in text
    second = run(claphost, plugin, tmp_path, signal, "-L", str(state), name="second")
    assert np.array_equal(first, second) and np.abs(first).max() > 0.01
    again = tmp_path / "again"
    run(claphost, plugin, tmp_path, signal, "-L", str(state), "-S", str(again), name="third")
    assert again.read_text() == text


def test_a_state_loaded_while_active_applies_from_the_next_block(claphost, plugin, tmp_path):
    """A state loaded between two process() calls of an active instance reaches the audio thread
    through a lock-free slot: from the next block on, the samples are those of the same values
    given as parameter events at that block's first frame."""
    signal = make_signal(0.5)
    state = tmp_path / "state"
    state.write_text("cutoff=700\ngain=-9\nroom=9\nmix=80\n")   # the rest: their defaults
    base = settings_args({"cutoff": 3000, "room": 2, "decay": 4})
    loaded = run(claphost, plugin, tmp_path, signal, "-b", "4800", *base, "-M", f"9600:{state}", name="loaded")
    values = {"cutoff": 700, "gain": -9, "room": 9, "mix": 80, "decay": 1.8}   # decay: back to its default
    events = [a for k, v in values.items() for a in ("-s", f"9600:{clap_id(k)}={v}")]
    given = run(claphost, plugin, tmp_path, signal, "-b", "4800", *base, *events, name="given")
    assert np.array_equal(loaded, given) and not np.array_equal(loaded[9600:], run(
        claphost, plugin, tmp_path, signal, "-b", "4800", *base, name="plain")[9600:])


def test_the_meters_read_the_last_blocks_peaks(claphost, plugin, tmp_path):
    """As for LV2: a 1 kHz sine at −6 dBFS left, −12 dBFS right, mix 0 and gain 0 dB: the
    read-only meters read −6.0, −12.0 and −6.0 dBFS (±0.1 dB) after the last process(), whose
    block a parameter event splits; silence reads the floor."""
    settings = settings_args({"mix": 0, "gain": 0})
    last = len(sine(-6, -12)) - 100   # an event inside the last 256-frame block
    for signal, want in [(sine(-6, -12), [-6, -12, -6]), (np.zeros((RATE // 2, 2), np.float32), [METER_FLOOR] * 3)]:
        inp = tmp_path / "in.f32"
        signal.tofile(inp)
        out = host(claphost, plugin, "-i", str(inp), "-o", str(tmp_path / "out.f32"), "-b", "256", "-V", *settings,
                   "-s", f"{last}:{clap_id('cutoff')}=20000")
        values = {l.split("\t")[1]: float(l.split("\t")[2]) for l in out.splitlines() if l.startswith("meter\t")}
        got = [values[name] for name in METERS]
        print(f"meters {values}")
        assert got == (want if want[0] == METER_FLOOR else pytest.approx(want, abs=0.1)), got


def test_reset_leaves_no_tail(claphost, plugin, table, tmp_path):
    """An impulse into the cathedral at mix 100, then reset() 0.1 s later: from there the output
    of silence is a fresh instance's output of silence bit for bit (the reverb's anti-denormal
    floor), below −140 dBFS; without the reset the tail still rings there."""
    impulse = np.zeros((RATE, 2), np.float32)
    impulse[0] = 1
    base = ["-b", "240", *settings_args({"mix": 100, "room": table["room"].index("cathedral")})]
    at = RATE // 10   # a block boundary: claphost resets before the block that starts there
    reset = run(claphost, plugin, tmp_path, impulse, *base, "-R", str(at), name="reset")
    ringing = run(claphost, plugin, tmp_path, impulse, *base, name="ringing")
    fresh = run(claphost, plugin, tmp_path, np.zeros_like(impulse), *base, name="fresh")
    after = np.abs(reset[at:]).max()
    print(f"after reset: {20 * np.log10(after):.1f} dBFS; without: {20 * np.log10(np.abs(ringing[at:]).max()):.1f} dBFS")
    assert np.array_equal(reset[:at], ringing[:at])
    assert np.array_equal(reset[at:], fresh[:len(fresh) - at]) and after < 10 ** (-140 / 20)
    assert np.abs(ringing[at:]).max() > 10 ** (-100 / 20)


def test_hostile_calls(claphost, plugin, tmp_path):
    """process() before activate fails without touching anything, 0 frames and missing buffers
    render nothing, unknown ids and NaN change nothing, a bad state loads nothing, 4 kHz does
    not activate; deactivate/activate starts over."""
    assert "hostile: ok" in host(claphost, plugin, "-x")
    signal = make_signal(0.5)
    base = settings_args({"cutoff": 3000, "room": 5})
    plain = run(claphost, plugin, tmp_path, signal, "-b", "256", *base, name="plain")
    noise = ["-s", f"2000:{clap_id('cutoff')}=nan", "-s", "3000:12345=1", "-s", f"4000:{0xFFFFFFFF}=0"]
    assert np.array_equal(run(claphost, plugin, tmp_path, signal, "-b", "256", *base, *noise, name="noise"), plain)
    twice = run(claphost, plugin, tmp_path, signal, "-b", "256", "-a", *base, name="twice")
    assert np.array_equal(twice[:len(plain)], plain) and np.array_equal(twice[len(plain):], plain)


def test_only_clap_entry_is_exported_and_no_swift_toolchain_is_needed(plugin):
    defined = subprocess.run(["nm", "-D", "--defined-only", str(plugin)], capture_output=True, text=True,
                             check=True, timeout=30).stdout.split("\n")
    assert [line.split()[-1] for line in defined if line.strip()] == ["clap_entry"], defined
    assert plugin.stat().st_size < 1 << 20, plugin.stat().st_size   # the README: under 1 MB
    ldd = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, env=clean_env(), timeout=30).stdout
    needed = {line.split()[0] for line in ldd.splitlines() if line.strip()}
    loader = {n for n in needed if n.startswith(("linux-vdso.so", "/lib64/ld-linux", "/lib/ld-linux"))}
    assert needed - loader == {"libc.so.6", "libm.so.6"}, ldd


def test_qtractors_scanner_loads_the_plugin(plugin, table):
    scanner = next((s for s in SCANNERS if s.exists()), None)
    if scanner is None:
        pytest.skip("Qtractor's plugin scanner missing (scripts/install-deps)")
    res = subprocess.run([str(scanner)], input=f"CLAP:{plugin}\n", capture_output=True, text=True,
                         env=clean_env(), timeout=60)
    line = next((l for l in res.stdout.splitlines() if l.startswith("CLAP|")), None)
    assert line, (res.stdout, res.stderr)
    fields = line.split("|")
    print(line)
    assert fields[1] == "rack effects"
    assert fields[2] == "2:2" and fields[3] == "0:0", line   # audio, MIDI
    assert fields[4] == f"{len(table)}:{len(METERS)}", line  # parameters in, out (the read-only meters)
    assert "RT" in fields[5], line                          # realtime-capable


def test_process_allocates_locks_and_does_no_io(claphost, plugin, helpers, tmp_path):
    """The runtime probe (rtprobe.c, LD_PRELOADed) counts heap, lock and I/O calls between the
    plugin's rack_probe_enter/leave hooks, which bracket process(): none, in blocks of varying
    length with parameter events inside them (the room's crossfade included)."""
    signal = make_signal(0.5)
    report_path = tmp_path / "probe.json"
    inp, out = tmp_path / "in.f32", tmp_path / "out.f32"
    signal.astype("<f4").tofile(inp)
    events = ["-s", f"1000:{clap_id('gain')}=-12", "-s", f"5000:{clap_id('room')}=9", "-s", f"9000:{clap_id('freeze')}=1"]
    res = subprocess.run([str(claphost), "-l", str(plugin), "-i", str(inp), "-o", str(out), "-b", "64,1,1000,0,333",
                          *settings_args({"cutoff": 900}), *events], capture_output=True, text=True, timeout=120,
                         env=dict(clean_env(), LD_PRELOAD=str(helpers["probe"]), RACK_PROBE_OUT=str(report_path)))
    assert res.returncode == 0, res.stderr
    report = json.loads(report_path.read_text())
    print(f"runtime probe under claphost: {report['cycles']} process() calls, malloc {report['malloc']}, "
          f"free {report['free']}, lock {report['lock']}, io {report['io']}")
    assert report["cycles"] > 100, report
    assert (report["malloc"], report["free"], report["lock"], report["io"]) == (0, 0, 0, 0), report
