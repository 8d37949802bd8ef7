"""Every shell example of README.md and docs/*.md runs here, as written, against the suite's
private JACK server, and does what its comment or the sentence around it says; or it carries
`<!-- not run by the tests: REASON -->` on the line above its fence (docs/testing.md). A new
example is run by a function registered here under its file and first line, or is marked, or
this module fails. What the shell substitutes, and nothing else: doc_shell.py.
"""
from __future__ import annotations

import inspect
import json
import re
import subprocess
from pathlib import Path

import pytest

import livelib
from doc_shell import Shell, commands, frames, ramp_seconds, samples, soxi
from livelib import close_to, wait_until

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
EXAMPLES = {}


def example(file: str, first_line: str):
    def register(check):
        EXAMPLES[(file, first_line)] = check
        return check
    return register


def preset(name: str) -> dict:
    return json.loads((livelib.REPO / "Presets" / f"{name}.json").read_text())


def assert_targets(osc, name: str, **overrides) -> None:
    """Every parameter's target (/rack/dump) is preset `name`'s, or what `overrides` say, and
    `name` is the preset recalled last."""
    values = dump(osc)
    want = {k: v for k, v in preset(name).items() if k != "name"} | overrides | {"preset": name}
    wrong = {k: (values.get(k), v) for k, v in want.items()
             if not (values.get(k) == v if isinstance(v, str) else close_to(values.get(k), v))}
    assert wrong == {}, f"(target, {name}'s): {wrong}"


def dump(osc) -> dict:
    """/rack/dump as {parameter: value, "preset": the preset recalled last}."""
    return {m.address.removeprefix("/rack/"): m.args[0] for m in osc.request_all("/rack/dump")}


def test_every_shell_example_is_run_here_or_marked_not_run():
    blocks = livelib.code_blocks()
    unlabelled = [f"{b.file}:{b.line}" for b in blocks if not b.language]
    assert unlabelled == [], f"fenced blocks that name no language (```sh for commands, ```text otherwise): {unlabelled}"
    shell = [b for b in blocks if b.language in SHELL_LANGUAGES]
    run = {(b.file, b.lines[0]) for b in shell if b.not_run is None}
    neither = [f"{b.file}:{b.line}" for b in shell if b.not_run is None and (b.file, b.lines[0]) not in EXAMPLES]
    both = [f"{b.file}:{b.line}" for b in shell if b.not_run is not None and (b.file, b.lines[0]) in EXAMPLES]
    gone = [key for key in EXAMPLES if key not in run]
    assert {"README.md", "docs/command-line.md"} <= {b.file for b in shell}, "the parser finds the examples"
    assert neither == [], f"shell examples neither run by test_doc_examples.py nor marked not run: {neither}"
    assert both == [], f"shell examples marked not run that test_doc_examples.py runs: {both}"
    assert gone == [], f"examples test_doc_examples.py runs that the documentation no longer has: {gone}"


@pytest.fixture
def sh(tmp_path, jack, rack_binary):
    shell = Shell(tmp_path, jack.env(), rack_binary)
    try:
        yield shell
    finally:
        shell.close()


# ------------------------------------------------------------------------------------------------
# rack run, and OSC to it


def assert_playing_out_of_the_speakers(jack, rack, meters):
    """--connect wired the rack's outputs to the server's playback ports, and it plays: the
    meters read more than −60 dBFS."""
    wired = lambda: all(any(p.startswith("system:playback_") for p in jack.connections().get(f"{rack.client_name}:{o}", []))
                        for o in ("out_1", "out_2"))
    assert wait_until(wired, 5), jack.connections()
    meters.send("/rack/meter")
    peaks = [max(m.args[0], m.args[1]) for m in meters.collect(1.0) if m.address == "/rack/meter"]
    assert peaks and max(peaks) > -60, peaks


@example("README.md", "swift build -c release")
def first_sound(sh, block, jack, osc_factory):
    build, run, send = commands(block)
    sh.left_out(build)
    rack = sh.start_rack(run)
    sh.talk_to(rack)
    meters, osc = osc_factory(rack.osc_port), osc_factory(rack.osc_port)
    assert_playing_out_of_the_speakers(jack, rack, meters)
    # "the filter closes to 800 Hz over 1.5 s"
    seconds = ramp_seconds(meters, lambda: sh.run(send))
    assert 1.5 - 0.05 <= seconds <= 1.5 + 0.5, seconds
    assert close_to(osc.get("cutoff"), 800)


@example("docs/command-line.md", ".build/release/rack run --connect              # plays the synthesised demo loop; OSC on 127.0.0.1:8000")
def live(sh, block, jack, osc_factory):
    demo, song, cutoff, recall = commands(block)
    rack = sh.start_rack(demo)
    # OSC on 127.0.0.1:8000, or a free port when another rack has 8000 (printed)
    assert rack.osc_host == "127.0.0.1" and (rack.osc_port == 8000 or not port_free(8000)), rack.stdout
    sh.talk_to(rack)
    meters, osc = osc_factory(rack.osc_port), osc_factory(rack.osc_port)
    assert_playing_out_of_the_speakers(jack, rack, meters)
    sh.ports[9000] = livelib.free_udp_port()
    player = sh.start_rack(song)
    assert player.osc_port == sh.ports[9000], player.stdout
    other = osc_factory(player.osc_port)
    assert_targets(other, "Warm")
    state = other.request("/rack/player/state")
    assert state is not None and Path(state.args[0]).name == "song.flac" and state.args[1] == 1, state
    seconds = ramp_seconds(meters, lambda: sh.run(cutoff))
    assert 1.5 - 0.05 <= seconds <= 1.5 + 0.5, seconds
    assert close_to(osc.get("cutoff"), 800)
    sh.run(recall)
    assert_targets(osc, "Bright")


def port_free(port: int) -> bool:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


@example("README.md", "oscsend localhost 8000 /rack/mix f 40")
def osc_control(sh, block, rack, osc, osc_factory):
    mix, recall, room = commands(block)
    sh.talk_to(rack)
    sh.run(mix)
    assert close_to(osc.get("mix"), 40)
    # "recall a preset, every parameter ramping over 2 s"
    seconds = ramp_seconds(osc_factory(rack.osc_port), lambda: sh.run(recall))
    assert 2 - 0.05 <= seconds <= 2 + 0.5, seconds
    assert_targets(osc, "Bright")
    sh.run(room)
    assert osc.get("room") == "plate"


def comment(line: str) -> str:
    return line.split(" #", 1)[1].strip()


def params(osc) -> dict:
    """/rack/params: {id: (unit, min, max, default, taper)}."""
    return {m.args[0]: tuple(m.args[1:]) for m in osc.request_all("/rack/params")}


def events(text: str) -> list[str]:
    """An automation file's events: its lines that are not blank or a comment."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@example("docs/osc.md", "oscsend localhost 8000 /rack/cutoff i 800                 # ints work where numbers do")
def osc_examples(sh, block, rack, osc):
    cutoff, norm, room, subscribe, send = commands(block)
    sh.talk_to(rack)
    sh.ports[9999] = livelib.free_udp_port()
    sh.run(cutoff)
    assert close_to(osc.get("cutoff"), 800)
    sh.run(norm)
    unit, low, high, default, taper = params(osc)["resonance"]
    assert taper == "linear" and close_to(osc.get("resonance"), low + 0.75 * (high - low)), (low, high, taper)
    sh.run(room)
    assert osc.get("room") == "cathedral"
    dumped = sh.run(subscribe).output
    session = events((livelib.REPO / "Examples" / "session.txt").read_text())
    done = sh.run(send)
    assert f"rack: sent {len(session)} events to 127.0.0.1:{rack.osc_port} in " in done.err, done.err
    # oscdump, subscribed, was told every parameter change the arrangement made
    told = {line.split()[1] for line in session if not line.split()[1].startswith("/rack/player/")}
    heard = lambda: {a for a in told if re.search(rf"(^|\s){re.escape(a)} ", dumped.read_text(), re.M)}
    assert wait_until(lambda: heard() == told, 2), (told, dumped.read_text())


@example("docs/web.md", "curl http://127.0.0.1:8001/                   # the whole namespace")
def oscquery(sh, block, rack):
    whole, host_info, value = commands(block)
    sh.talk_to(rack)
    namespace = json.loads(sh.run(whole).out)
    assert "cutoff" in namespace["CONTENTS"]["rack"]["CONTENTS"], namespace
    info = json.loads(sh.run(host_info).out)
    assert set(info) == set(comment(host_info).split(", ")) and info["OSC_PORT"] == rack.osc_port, info
    assert json.loads(sh.run(value).out) == json.loads(comment(value))


@example("docs/jack.md", "pw-jack rack run --connect                  # or: LD_LIBRARY_PATH=/usr/lib/$(uname -m)-linux-gnu/pipewire-0.3/jack rack run")
def under_pipewire(sh, block, pipewire):
    (line,) = commands(block)
    sh.on(pipewire.env())
    rack = sh.start_rack(line)
    assert (rack.server or "").startswith("PipeWire"), rack.stdout
    wired = lambda: any(p.endswith(":playback_FL") for p in pipewire.connections().get(f"{rack.client_name}:out_1", []))
    assert wait_until(wired, 10), pipewire.connections()


# ------------------------------------------------------------------------------------------------
# Offline: render, check, plot


def assert_rendered_with_a_tail(sh, line: str) -> None:
    """`render in.wav out.flac … --tail 3`: a FLAC file 3 s longer than the input."""
    done = sh.run(line)
    out = sh.dir / "out.flac"
    assert soxi("-t", out) == "flac" and frames(out) == frames(sh.dir / "in.wav") + 3 * 48000, done.err
    assert "rack: rendered 5.00 s to 'out.flac' (48000 Hz" in done.err, done.err


def assert_svg(path) -> None:
    assert "<svg" in path.read_text()[:1000], path


@example("README.md", ".build/release/rack render in.wav out.flac --preset Warm --set mix=30 --tail 3")
def render_offline(sh, block):
    (line,) = commands(block)
    assert_rendered_with_a_tail(sh, line)


@example("docs/command-line.md", "rack render in.wav out.flac --preset Warm --set mix=30 --tail 3")
def offline(sh, block):
    tail, automation, pipe, check, plot = commands(block)
    assert_rendered_with_a_tail(sh, tail)
    sh.run(automation)
    assert soxi("-b", sh.dir / "out.wav") == "24"
    done = sh.run(pipe)
    assert frames(sh.dir / "out.flac") == frames(sh.dir / "in.flac"), done.err
    assert "rack: rendered 2.00 s to standard output" in done.err, done.err
    session = events((livelib.REPO / "Examples" / "session.txt").read_text())
    assert sh.run(check).out.strip() == f"Examples/session.txt: {len(session)} events, 0 warnings, no errors"
    sh.run(plot)
    assert_svg(sh.dir / "session.svg")


@example("README.md", "rack check session.txt                              # every problem with its line number")
def automation_file(sh, block, rack, osc):
    """session.txt is the README's automation file, the block above this one."""
    blocks = livelib.code_blocks()
    above = blocks[blocks.index(block) - 1]
    assert above.file == block.file and above.language == "text" and above.lines[0].startswith("0.0"), above
    (sh.dir / "session.txt").write_text("\n".join(above.lines) + "\n")
    session = events("\n".join(above.lines))
    check, send, render, plot = commands(block)
    assert sh.run(check).out.strip() == f"session.txt: {len(session)} events, 0 warnings, no errors"
    sh.talk_to(rack)
    done = sh.run(send)
    assert f"rack: sent {len(session)} events to 127.0.0.1:{rack.osc_port} in " in done.err, done.err
    assert wait_until(lambda: dump(osc).get("preset") == "Big Hall", 3), dump(osc)
    assert_targets(osc, "Big Hall")
    done = sh.run(render)
    assert frames(sh.dir / "out.wav") == frames(sh.dir / "in.wav") and "rack: rendered" in done.err, done.err
    sh.run(plot)
    assert_svg(sh.dir / "session.svg")


# ------------------------------------------------------------------------------------------------
# Installing for one user, and the plugins


def assert_lv2_installed(sh, line: str) -> None:
    sh.run(line)
    for name in ("manifest.ttl", "rack.ttl", "presets.ttl", "librack-lv2.so"):
        assert (sh.dir / ".lv2" / "rack.lv2" / name).is_file(), name


def assert_clap_installed(sh, line: str) -> None:
    sh.run(line)
    assert (sh.dir / ".clap" / "rack.clap").is_file()


def assert_jalv_runs(sh, line: str, jack) -> None:
    """jalv runs the plugin on the server, its client named after it ("rack effects",
    plugins.md), and takes `cutoff = 800` on its console (it answers with the value set)."""
    log = sh.dir / "jalv.log"
    jalv = sh.start(line, log)
    ports = {"rack effects:in_l", "rack effects:in_r", "rack effects:out_l", "rack effects:out_r"}
    assert wait_until(lambda: ports <= set(jack.ports()) or jalv.poll() is not None, 20), log.read_text()
    assert ports <= set(jack.ports()), log.read_text()
    jalv.stdin.write("cutoff = 800\n")
    jalv.stdin.flush()
    assert wait_until(lambda: "cutoff = 800.000000" in log.read_text(), 5), log.read_text()


@example("README.md", "scripts/install --lv2 ~/.lv2       # LV2, for one user: urn:rack:lv2")
def plugins_for_one_user(sh, block, jack):
    lv2, jalv, clap = commands(block)
    assert_lv2_installed(sh, lv2)
    assert_jalv_runs(sh, jalv, jack)
    assert_clap_installed(sh, clap)


@example("docs/plugins.md", "sudo scripts/install                 # also PREFIX/lib/lv2/rack.lv2 (with the rest of rack)")
def lv2(sh, block, jack):
    system, user, listed, apply, jalv = commands(block)
    sh.left_out(system)
    assert_lv2_installed(sh, user)
    assert sh.run(listed).out.split() == [comment(listed)]
    sh.run(apply)
    dry, wet = samples(sh.dir / "in.wav"), samples(sh.dir / "out.wav")
    assert len(wet) == len(dry)
    # the low-pass at 1500 Hz: white noise comes out dark
    assert livelib.spectral_centroid(wet, 48000) < 0.5 * livelib.spectral_centroid(dry, 48000)
    assert_jalv_runs(sh, jalv, jack)


@example("docs/plugins.md", "sudo scripts/install                 # also PREFIX/lib/clap/rack.clap (with the rest of rack)")
def clap(sh, block):
    system, user = commands(block)
    sh.left_out(system)
    assert_clap_installed(sh, user)


@example("docs/install.md", "sudo scripts/install              # PREFIX=/usr/local; builds the release binary if needed")
def user_install(sh, block, rack_binary):
    system, user, uninstall = commands(block)
    sh.left_out(system)
    sh.left_out(uninstall)
    sh.run(user)
    installed = sh.dir / ".local" / "bin" / "rack"
    version = lambda binary: subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30).stdout
    assert version(installed) == version(rack_binary) != ""
    assert (sh.dir / ".local" / "share" / "rack" / "install-manifest").is_file()


# Registered above: every example.
@pytest.mark.parametrize("key", sorted(EXAMPLES), ids=lambda key: f"{key[0]}:{' '.join(key[1].split())[:40]}")
def test_the_example_runs_as_documented(key, request, sh):
    block = next((b for b in livelib.code_blocks() if (b.file, b.lines[0]) == key and b.not_run is None), None)
    assert block is not None, f"{key[0]} has no example starting {key[1]!r} (test_every_shell_example_…)"
    check = EXAMPLES[key]
    fixtures = {name: request.getfixturevalue(name) for name in inspect.signature(check).parameters
                if name not in ("sh", "block")}
    check(sh, block, **fixtures)
