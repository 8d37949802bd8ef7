"""Timetagged bundles (applied at their sample) and --record (every applied change, on exit)."""
from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import time

import pytest

import livelib
from livelib import build_bundle, build_message, close_to

# The capture tests compare every sample heard with a re-render, on the session's server (256
# frames). Its dummy driver has no realtime scheduling and skips cycles whenever the machine
# stalls (2-3 xruns a minute idle, 20 a second with both cores busy): a capture that misses a
# cycle of rack's, or reads one rack skipped, continues a whole number of periods further on or
# back in the re-render. The recorder logs each cycle's frame time, which shows exactly where
# the server's xruns struck, so `capture_matches` compares every recorded cycle and lets the
# capture move only there; meanwhile the runtime probe shows that rack's callback never came
# near the period, and rack reported every xrun the server logged.


def rack_exits_fast_and_reporting(jack, osc, rack, server_before, rack_before, server_at_start, probe_json) -> str:
    """After a capture: rack reported every xrun the server did since (server_before,
    rack_before); rack exits cleanly on SIGTERM; and its callback (the probe's report, written as it
    exits) never came near the period. Returns a summary to print."""
    server_xruns, rack_xruns = livelib.assert_every_xrun_reported(jack.name, osc, server_before, rack_before,
                                                                  server_at_start)
    assert rack.stop() == 0, rack.describe()
    fast = livelib.assert_callback_fast(livelib.probe_report(probe_json))
    return f"xruns during the capture: server {server_xruns}, rack {rack_xruns}; {fast}"


def capture_matches(captured, rendered, align, cycles_path, rack_cycles_path, period=256) -> tuple[int, str]:
    """The capture equals the re-render, cycle by cycle, moving only where the server's xruns
    struck (livelib.compare_capture_by_cycles; the recorder's and rack's frame times locate
    them), with at least 90 % of the recorded cycles compared; the alignment is found
    (`align(part, rendered)`) on the longest stretch no xrun struck. Returns the offset of the
    capture's first frame and a summary to print."""
    cycles, marked, recorder_xruns = livelib.read_capture_cycles(cycles_path, period, rack_cycles_path)
    first, begin, end = livelib.longest_unmarked(cycles, marked, len(captured))
    offset = align(captured[begin:end], rendered) - begin
    result = livelib.compare_capture_by_cycles(captured, rendered, offset, cycles, marked, period, start=first)
    summary = (f"{len(cycles)} cycles recorded, {result['compared']} compared (peak difference {result['peak']:.1f} "
               f"dBFS), {len(marked)} marked by the server's xruns (the recorder was told of {recorder_xruns}), "
               f"the capture moved at {result['moved']}, {result['spoiled']} spoiled; aligned on cycles {first}-"
               f"{first + (end - begin) // period}")
    assert result["compared"] >= 0.9 * len(cycles), summary
    return offset, summary


def probed(helpers, directory) -> dict:
    """rack's environment with the runtime probe, reporting to directory/probe.json and its
    cycles' frame times to directory/rack-cycles.txt."""
    return {"LD_PRELOAD": str(helpers["probe"]), "RACK_PROBE_OUT": str(directory / "probe.json"),
            "RACK_PROBE_CYCLES": str(directory / "rack-cycles.txt")}


def parse_record(path, starting_state=False):
    """The events of a recording: (time, address, args, line). Without `starting_state`, the
    state the recording starts from (its first lines, at time 0, up to the player's position)
    is left out: the changes made during the session."""
    events = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if fields[0] == "rate":       # the engine rate the file was heard at: no event
            continue
        assert len(fields) >= 2, f"{path}:{n}: {line!r}"
        events.append((float(fields[0]), fields[1], fields[2:], n))
    times = [e[0] for e in events]
    assert times == sorted(times), f"times go backwards in {path}"
    if not starting_state:
        seek = next((i for i, e in enumerate(events) if e[1] == "/rack/player/seek"), None)
        if seek is not None and all(e[0] == 0 for e in events[:seek + 1]):
            events = events[seek + 1:]
    return events


def recalls(path) -> list[tuple[float, str]]:
    """The preset recalls of a recording, (time, name): each is written as a comment naming it,
    followed by the values it set."""
    found = []
    for line in path.read_text().splitlines():
        m = re.match(r'# ([0-9.]+) preset ("[^"]*"|\S+) recalled', line)
        if m:
            found.append((float(m.group(1)), m.group(2).strip('"')))
    return found


def find(events, address, value=None):
    for t, addr, args, n in events:
        if addr == address and (value is None or (args and (args[0] == value or
                                                            _num(args[0]) == _num(value)))):
            return t
    raise AssertionError(f"no {address} {value} in record: {events}")


def _num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return s


class TestAtTheirTime:
    """Timetagged bundles timed against the wall clock: when they land, in samples, and when
    subscribers hear of them. The dummy driver of the suite's 256-frame server, with no realtime
    scheduling, skips cycles whenever the machine stalls (20 xruns a second measured while other
    builds kept both cores busy), and each skipped cycle is wall-clock time in which no sample
    was made, which these measurements cannot tell from a late bundle. So they run on a server
    of their own at 1,024 frames, which skipped none in the same minutes; what they assert does
    not depend on the period (events land on absolute sample positions)."""

    @pytest.fixture(scope="class")
    @classmethod
    def jack(cls):
        with livelib.Jack.started(f"rack-at-{os.getpid()}", 48000, 1024) as server:
            yield server

    def test_future_bundles_apply_at_their_time(self, rack_factory, osc_factory, tmp_path):
        rec = tmp_path / "bundles.txt"
        rack = rack_factory("--record", str(rec))
        osc = osc_factory(rack.osc_port)
        osc.send("/rack/mix", 30.0)  # an immediate event: the reference point
        assert close_to(osc.get("mix"), 30)
        now = time.time()
        osc.send_raw(build_bundle(now + 0.5, build_message("/rack/cutoff", 500.0)))
        osc.send_raw(build_bundle(now + 0.75, build_message("/rack/cutoff", 900.0)))
        osc.send_raw(build_bundle(now + 0.6, build_message("/rack/resonance", 6.0)))
        osc.send("/rack/resonance", -6.0)  # sent after the future bundle, applied before it
        # The last bundle (cutoff 900, due at +0.75 s) applied: every bundle is.
        assert livelib.wait_until(lambda: close_to(osc.get("cutoff"), 900), 3.0), \
            "the bundle due 0.75 s after sending not applied within 3 s"
        got_after = (osc.get("cutoff"), osc.get("resonance"))
        osc.send_raw(build_bundle(0, build_message("/rack/gain", -2.0)))  # the 'immediately' timetag
        assert close_to(osc.get("gain"), -2), "bundle with the 'immediately' timetag"
        osc.send_raw(build_bundle(time.time() - 10, build_message("/rack/gain", -3.0)))
        assert close_to(osc.get("gain"), -3), "a bundle whose time has passed applies at once"
        code = rack.stop()
        assert code == 0, rack.describe()
        assert rec.exists(), "--record file not written on exit"
        events = parse_record(rec)
        t_mix = find(events, "/rack/mix", "30")
        t_a = find(events, "/rack/cutoff", "500")
        t_b = find(events, "/rack/cutoff", "900")
        t_res_now = find(events, "/rack/resonance", "-6")
        t_res_later = find(events, "/rack/resonance", "6")
        assert abs((t_b - t_a) - 0.25) <= 0.002, f"A at {t_a:.6f}, B at {t_b:.6f}: {t_b - t_a:.6f} s apart"
        assert 0.4 <= t_a - t_mix <= 0.7, f"A applied {t_a - t_mix:.3f} s after the immediate event (sent ~0.5 s before its time)"
        assert t_res_now < t_res_later, (t_res_now, t_res_later)
        assert abs((t_res_later - t_a) - 0.1) <= 0.002, f"bundle C at {t_res_later:.6f}, A at {t_a:.6f}"
        assert close_to(got_after[0], 900) and close_to(got_after[1], 6), (
            f"after every bundle was applied /rack/get says cutoff {got_after[0]}, resonance {got_after[1]}; "
            "the engine applied resonance 6 (the bundle) after -6 (the immediate message)")

    def test_pending_bundle_is_neither_reported_nor_fed_back_before_its_time(self, rack, osc_factory):
        osc = osc_factory(rack.osc_port)
        sub = osc_factory(rack.osc_port)
        sub.send("/rack/subscribe")
        assert sub.ping()
        sub.drain(0.05)
        t0 = time.time()
        osc.send_raw(build_bundle(t0 + 0.5, build_message("/rack/cutoff", 500.0)))
        osc.send("/rack/resonance", -6.0)
        assert close_to(osc.get("resonance"), -6), "an immediate message waits behind a future bundle"
        got = osc.get("cutoff")
        fed = [m for m in sub.collect(max(0.0, t0 + 1.0 - time.time())) if m.address == "/rack/cutoff"]
        assert close_to(osc.get("cutoff"), 500)
        assert len(fed) == 1 and close_to(fed[0].args[0], 500), fed
        late = time.time() - (time.monotonic() - fed[0].received) - t0
        assert 0.4 <= late <= 0.7, f"subscriber told of the bundle {late:.3f} s after sending (due at 0.5 s)"
        assert close_to(got, 20000), f"/rack/get cutoff gave {got} before the bundle's time: not applied yet"


def wait_in_journal(rec, line: str, timeout: float = 3.0) -> None:
    """Waits until `line` is in the journal `rec` (it and every change sent before it applied)."""
    assert livelib.wait_until(lambda: rec.exists() and line in rec.read_text(), timeout), \
        f"{line!r} not in the journal within {timeout} s"


def test_record_round_trip_passes_rack_check(rack_factory, osc_factory, rack_binary, tmp_path):
    rec = tmp_path / "session.txt"
    rack = rack_factory("--record", str(rec))
    osc = osc_factory(rack.osc_port)
    meters = osc_factory(rack.osc_port)
    meters.send("/rack/meter")
    osc.send("/rack/cutoff", 800.0, 0.25)
    osc.send("/rack/mix", 70)
    osc.send("/rack/room", "plate")
    osc.expect_error("/rack/gain", 40.0)  # clamped to 12: recorded as applied
    osc.send("/rack/resonance/norm", 0.75)
    wait_in_journal(rec, "/rack/resonance")
    livelib.wait_ramps_over(meters)   # the preset does not interrupt the cutoff ramp
    osc.send("/rack/preset", "Warm", 0.1)
    wait_in_journal(rec, "preset Warm recalled over 0.100000 s: its values follow")
    livelib.wait_ramps_over(meters)
    osc.send("/rack/cutoff", "bogus")  # rejected: not recorded
    assert osc.ping()
    assert rack.stop() == 0, rack.describe()
    text = rec.read_text()
    events = parse_record(rec)
    assert events and events[0][0] >= 0, text
    assert find(events, "/rack/cutoff", "800") >= 0
    assert find(events, "/rack/room", "plate") >= 0
    assert find(events, "/rack/gain", "12") >= 0, text
    assert not any(e[1] == "/rack/preset" for e in events), "a recall is written as its values"
    assert "bogus" not in text
    check = subprocess.run([str(rack_binary), "check", str(rec)], capture_output=True, text=True,
                           timeout=20)
    assert check.returncode == 0, f"rack check {rec} -> {check.returncode}\n{check.stderr}\n--- file:\n{text}"


def test_a_recorded_recall_of_a_user_preset_replays_where_the_preset_does_not_exist(
        rack_factory, osc_factory, rack_binary, jack, tmp_path):
    """A recall is recorded as the values it set (the name in a comment): the recording checks
    and renders under another user with no presets. It used to say `/rack/preset "My Hall"`,
    and elsewhere: "unknown preset 'My Hall'"."""
    rec = tmp_path / "session.txt"
    rack = rack_factory("--record", str(rec))
    osc = osc_factory(rack.osc_port)
    osc.send("/rack/cutoff", 1234.0)
    osc.send("/rack/mix", 33.0)
    assert close_to(osc.get("mix"), 33)
    osc.send("/rack/preset/save", "My Hall")
    assert "My Hall" in osc.request("/rack/preset/list").args
    osc.send("/rack/cutoff", 9000.0)
    osc.send("/rack/preset", "My Hall", 0.2)
    wait_in_journal(rec, '"My Hall" recalled over 0.200000 s: its values follow')
    assert osc.ping()
    assert rack.stop() == 0, rack.describe()
    text = rec.read_text()
    events = parse_record(rec)
    recall = next(n for n, line in enumerate(text.splitlines(), 1) if '"My Hall" recalled' in line)
    after = [e for e in events if e[3] > recall]
    assert find(after, "/rack/cutoff", "1234") == find(after, "/rack/mix", "33"), text
    assert all(e[2][-1] == "0.200000" for e in after if e[1] in ("/rack/cutoff", "/rack/mix")), text
    elsewhere = tmp_path / "another-user"
    elsewhere.mkdir()
    env = jack.env(XDG_CONFIG_HOME=str(elsewhere))
    check = _check(rack_binary, rec, env=env)
    assert check.returncode == 0, f"{check.stderr}\n--- file:\n{text}"
    source = tmp_path / "in.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", str(source), "synth", "1", "sine", "440"], check=True)
    render = subprocess.run([str(rack_binary), "render", str(source), str(tmp_path / "out.wav"), "--automation", str(rec)],
                            capture_output=True, text=True, env=env, timeout=60)
    assert render.returncode == 0, render.stderr


# --------------------------------------------------------------------------------------------
# --record replays: the file a live session wrote re-renders offline to the samples heard.


def _check(rack_binary, path, *flags, env=None):
    return subprocess.run([str(rack_binary), "check", str(path), *flags], capture_output=True, text=True,
                          timeout=30, env=env)


def _read_float_wav(path):
    """(frames x channels) float64 from a WAV sox can read, via a raw float32 conversion."""
    import numpy as np

    raw = path.with_suffix(".f32")
    subprocess.run(["sox", str(path), "-t", "raw", "-e", "floating-point", "-b", "32", str(raw)], check=True,
                   timeout=60)
    channels = int(subprocess.run(["soxi", "-c", str(path)], capture_output=True, text=True, check=True).stdout)
    return np.fromfile(raw, dtype=np.float32).reshape(-1, channels).astype(np.float64)


def _align(capture, reference):
    """Offset S of capture inside reference (capture[i] == reference[S + i]), by FFT
    cross-correlation of the left channels."""
    import numpy as np

    a, b = capture[:, 0], reference[:, 0]
    n = 1 << int(math.ceil(math.log2(len(a) + len(b))))
    corr = np.fft.irfft(np.fft.rfft(b, n) * np.conj(np.fft.rfft(a, n)), n)
    return int(np.argmax(corr[:len(b) - len(a) + 1]))


def test_a_recorded_session_re_renders_to_the_samples_heard(rack_factory, osc_factory, helpers, jack, rack_binary,
                                                          tmp_path):
    """Defect 4: a live session with interrupted ramps (explicit ones interrupted by explicit and
    default ones), a preset recall interrupted by a fader move, room changes (one crossfade
    interrupted), a 30 Hz fader and a timetagged bundle is recorded by --record while a real
    JACK recorder captures rack's output; the recording checks (warnings only), and
    `rack render` of the player's file with it gives the captured samples: after alignment
    every recorded cycle differs by less than -90 dBFS, the capture moving only at the cycles
    the server's xruns struck (capture_matches)."""
    import numpy as np

    source = tmp_path / "source.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "floating-point", str(source),
                    "synth", "20", "pinknoise", "gain", "-10"], check=True, timeout=60)
    rec = tmp_path / "session.txt"
    server_at_start = livelib.server_xruns(jack.name)
    rack = rack_factory("--file", str(source), "--record", str(rec), env=probed(helpers, tmp_path))
    osc = osc_factory(rack.osc_port)
    capture_path, cycles_path = tmp_path / "live.f32", tmp_path / "cycles.txt"
    seconds = 11.0
    server_before, rack_before = livelib.xrun_marks(jack.name, osc)
    recorder = subprocess.Popen([str(helpers["jackrec"]), str(capture_path), str(seconds),
                                 f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=jack.env(JACKREC_CYCLES=str(cycles_path)))
    outs = (f"{rack.client_name}:out_1", f"{rack.client_name}:out_2")
    assert livelib.wait_until(lambda: all(livelib.jack_connections(jack.name).get(p) for p in outs), 5.0), \
        "the recorder is not connected to rack's outputs within 5 s"
    t0 = time.monotonic()

    def at(t):
        time.sleep(max(0.0, t0 + t - time.monotonic()))

    osc.send("/rack/cutoff", 300.0, 5.0)           # a 5 s ramp ...
    at(1.0)
    osc.send("/rack/cutoff", 3000.0, 2.0)          # ... moved again after 1 s (explicit interrupts explicit)
    at(1.5)
    osc.send("/rack/cutoff", 9000.0)               # a default ramp interrupts the 2 s one
    osc.send("/rack/room", "cathedral", 0.2)
    at(1.6)
    osc.send("/rack/room", "smallRoom", 0.15)      # interrupts the crossfade
    at(2.0)
    osc.send("/rack/preset", "Warm", 1.0)          # every parameter ramps over 1 s ...
    at(2.4)
    osc.send("/rack/mix", 90.0)                    # ... and the mix is moved during it
    at(3.0)
    for i in range(60):                            # a fader at 30 Hz for 2 s
        at(3.0 + i / 30)
        osc.send("/rack/cutoff/norm", 0.5 + 0.4 * math.sin(2 * math.pi * i / 60))
    at(5.2)
    osc.send_raw(build_bundle(time.time() + 0.3, build_message("/rack/gain", -6.0, 0.5),
                              build_message("/rack/resonance", 6.0, 0.3), build_message("/rack/room", "plate")))
    at(6.0)
    osc.send("/rack/mix", 30.0, 0.8)
    osc.send("/rack/resonance/norm", 0.3)
    at(7.5)
    assert osc.ping()
    out, err = recorder.communicate(timeout=seconds + 20)
    assert recorder.returncode == 0, f"jackrec: {err}"
    xruns = rack_exits_fast_and_reporting(jack, osc, rack, server_before, rack_before, server_at_start,
                                            tmp_path / "probe.json")
    captured = np.fromfile(capture_path, dtype=np.float32).reshape(-1, 2).astype(np.float64)

    text = rec.read_text()
    events = parse_record(rec)
    assert find(events, "/rack/cutoff", "300") >= 0 and "preset Warm recalled over 1.000000 s" in text, text
    assert find(events, "/rack/room", "smallRoom") >= 0 and find(events, "/rack/gain", "-6") >= 0, text
    assert sum(1 for e in events if e[1] == "/rack/cutoff") >= 60, text
    bundle = [e[0] for e in events if e[2] and (e[1], _num(e[2][0])) in (("/rack/gain", -6.0), ("/rack/resonance", 6.0),
                                                                ("/rack/room", "plate"))]
    # The bundle was sent 0.23 s after the fader's last move and is due 0.3 s after sending: at
    # its time it lands ~0.53 s after that move; applied at once it would land ~0.23 s after.
    last_fader = max(e[0] for e in events if e[1] == "/rack/cutoff" and e[0] < bundle[0]) if bundle else 0
    assert len(bundle) == 3 and len(set(bundle)) == 1 and bundle[0] - last_fader > 0.4, \
        f"the bundle's three changes, at its time: {bundle} (the fader's last move at {last_fader})"

    check = _check(rack_binary, rec)
    assert check.returncode == 0, f"rack check -> {check.returncode}\n{check.stderr}\n--- file:\n{text}"
    assert "interrupts the ramp of cutoff" in check.stderr, check.stderr
    strict = _check(rack_binary, rec, "--strict")
    assert strict.returncode == 65 and "error: interrupts" in strict.stderr, strict.stderr

    rendered_path = tmp_path / "replay.wav"
    render = subprocess.run([str(rack_binary), "render", str(source), str(rendered_path), "--automation", str(rec),
                             "--format", "float"], capture_output=True, text=True, timeout=120,
                            env=jack.env(XDG_CONFIG_HOME=str(tmp_path / "xdg")))
    assert render.returncode == 0, render.stderr
    rendered = _read_float_wav(rendered_path)

    level = 20 * math.log10(float(np.sqrt(np.mean(captured ** 2))))
    offset, summary = capture_matches(captured, rendered, _align, cycles_path, tmp_path / "rack-cycles.txt")
    assert offset > 0 and level > -40, (offset, level)
    print(f"record -> re-render: {len(captured)} frames captured from file frame {offset}, output RMS "
          f"{level:.1f} dBFS; {summary}; {xruns}")


def test_the_recording_is_an_append_only_journal(rack_factory, osc_factory, rack_binary, tmp_path):
    """Each applied change is in the file at once (not after a whole-file rewrite every 2 s),
    and a kill -9 leaves a file that checks clean with every change applied before it."""
    rec = tmp_path / "journal.txt"
    rack = rack_factory("--record", str(rec))
    osc = osc_factory(rack.osc_port)
    inode = None
    for i in range(6):
        value = 1000.0 + i
        osc.send("/rack/cutoff", value)
        assert close_to(osc.get("cutoff"), value)
        assert livelib.wait_until(lambda: f"/rack/cutoff {int(value)}" in rec.read_text(), 0.5, step=0.01), \
            f"change {i} not in the file within 0.5 s"
        inode = inode or rec.stat().st_ino
        assert rec.stat().st_ino == inode, "the file was replaced, not appended to"
        time.sleep(0.3)   # spaces the changes out (each is its own step), no condition waited for
    os.kill(rack.pid, signal.SIGKILL)
    rack.wait_exit(5)
    check = _check(rack_binary, rec)
    assert check.returncode == 0, check.stderr
    values = [_num(e[2][0]) for e in parse_record(rec) if e[1] == "/rack/cutoff"]
    assert values == [1000.0 + i for i in range(6)], values


def test_a_symlink_given_as_record_is_followed_and_its_target_emptied_and_appended_to(
        rack_factory, osc_factory, tmp_path):
    """docs/choices.md: a symlink given as `--record` is followed and its target emptied and
    appended to (the link stays a link)."""
    target = tmp_path / "target.txt"
    target.write_text("0 /rack/cutoff 123 # an older take, to be emptied\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    inode = target.stat().st_ino
    rack = rack_factory("--record", str(link))
    osc = osc_factory(rack.osc_port)
    osc.send("/rack/cutoff", 1234.0)
    wait_in_journal(target, "/rack/cutoff 1234")
    assert rack.stop() == 0, rack.describe()
    assert link.is_symlink() and os.readlink(link) == str(target), "the link is left a link"
    assert target.stat().st_ino == inode, "the target itself was written, not replaced"
    text = target.read_text()
    assert "older take" not in text and "/rack/cutoff 123 " not in text, text
    assert [e[2][0] for e in parse_record(target) if e[1] == "/rack/cutoff"] == ["1234"], text


def test_a_recording_that_cannot_be_written_ends_rack_run_with_74(rack_factory, osc_factory):
    """docs/choices.md: lines still unwritten when `rack run` stops (a full disk: /dev/full, where
    every write fails with ENOSPC) make it say "the recording '…' is incomplete: its last N lines
    could not be written" and exit 74 instead of 0."""
    rack = rack_factory("--record", "/dev/full")
    osc = osc_factory(rack.osc_port)
    osc.send("/rack/cutoff", 1234.0)
    assert osc.get("cutoff") == 1234.0
    code = rack.stop()
    said = [l for l in rack.stderr if "the recording '/dev/full' is incomplete: its last" in l]
    assert code == 74, f"exit {code}\n{rack.describe()}"
    assert len(said) == 1 and re.search(r"its last \d+ lines could not be written", said[0]), rack.stderr


def test_a_recording_across_a_server_back_at_another_rate_replays(tmp_path, rack_binary):
    """The server goes away and comes back at 44.1 kHz (a new engine, whose samples count from
    0 again): the file's times never go backwards, it checks clean and renders."""
    server = f"rack-recrate-{os.getpid()}"
    pid = livelib.start_jack(server, 48000, 256)
    env = livelib.jack_env(server, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    rec = tmp_path / "across.txt"
    rack = livelib.RackProcess(["--name", "recrate", "--osc-port", "0", "--record", str(rec)], env,
                               rack_binary).wait_ready()
    osc = livelib.Osc(rack.osc_port)
    try:
        osc.send("/rack/cutoff", 500.0, 0.5)
        time.sleep(2.0)   # session time passing before the change (no condition waited for)
        osc.send("/rack/mix", 70.0)
        assert close_to(osc.get("mix"), 70)
        time.sleep(0.5)   # the >= 0.4 s asserted between the two sides of the restart (a lower bound)
        livelib.stop_jack(pid)
        assert livelib.wait_until(lambda: (osc.status() or livelib.Msg("", "", [0] * 6)).args[5] == "disconnected", 5)
        pid, _ = livelib.restart_jack(server, 44100, 256)
        assert livelib.wait_until(lambda: (osc.status() or livelib.Msg("", "", [0] * 6)).args[0] == 44100, 8)
        osc.send("/rack/cutoff", 2000.0, 0.25)
        osc.send("/rack/room", "plate")
        wait_in_journal(rec, "/rack/room plate")
        assert osc.ping()
    finally:
        osc.close()
        code = rack.stop()
        livelib.stop_jack(pid)
    assert code == 0, rack.describe()
    text = rec.read_text()
    events = parse_record(rec)   # asserts the times never go backwards
    t_mix, t_after = find(events, "/rack/mix", "70"), find(events, "/rack/cutoff", "2000")
    assert t_after >= t_mix + 0.4, f"after the restart at {t_after} s, before it at {t_mix} s\n{text}"
    assert "44100 Hz" in text, text
    check = _check(rack_binary, rec)
    assert check.returncode == 0, f"{check.stderr}\n{text}"
    tone = tmp_path / "tone.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", str(tone), "synth", "6", "sine", "440"], check=True)
    render = subprocess.run([str(rack_binary), "render", str(tone), str(tmp_path / "o.wav"), "--automation", str(rec)],
                            capture_output=True, text=True, timeout=60, env=env)
    assert render.returncode == 0, render.stderr


def test_rack_send_recalls_a_user_preset_named_like_a_number(rack, osc_factory, rack_binary, jack, xdg, tmp_path):
    """Defect 11: `0 /rack/preset 1` names the user preset "1" when there is one (as rack check
    resolves it), not factory preset number 1."""
    osc = osc_factory(rack.osc_port)
    osc.send("/rack/cutoff", 555.0)
    assert close_to(osc.get("cutoff"), 555)
    osc.send("/rack/preset/save", "1")
    assert "1" in osc.request("/rack/preset/list").args
    osc.send("/rack/cutoff", 9000.0)
    script = tmp_path / "numeric.txt"
    script.write_text("0 /rack/preset 1 0.05\n")
    env = jack.env(XDG_CONFIG_HOME=str(xdg))
    check = subprocess.run([str(rack_binary), "check", str(script)], capture_output=True, text=True, env=env, timeout=20)
    assert check.returncode == 0, check.stderr
    out = subprocess.run([str(rack_binary), "send", str(script), "--to", f"127.0.0.1:{rack.osc_port}"],
                         capture_output=True, text=True, env=env, timeout=20)
    assert out.returncode == 0, out.stderr
    dump = []

    def recalled() -> list:
        dump[:] = osc.request_all("/rack/dump")
        return [m.args[0] for m in dump if m.address == "/rack/preset"]

    livelib.wait_until(lambda: recalled() == ["1"], 3.0, step=0.05)
    preset = recalled()
    assert preset == ["1"], f"rack send recalled {preset} (dump: {dump})"
    assert close_to(osc.get("cutoff"), 555)


def _align_best(capture, reference, candidates=8):
    """Offset of capture inside reference where they differ least: the strongest peaks of the
    cross-correlation of the left channels are tried (a looping input correlates at every
    pass), and the one with the smallest peak difference wins."""
    import numpy as np

    a, b = capture[:, 0], reference[:, 0]
    n = 1 << int(math.ceil(math.log2(len(a) + len(b))))
    corr = np.fft.irfft(np.fft.rfft(b, n) * np.conj(np.fft.rfft(a, n)), n)[:len(b) - len(a) + 1]
    best = None
    for offset in np.argsort(corr)[::-1][:candidates]:
        offset = int(offset)
        peak = float(np.max(np.abs(capture - reference[offset:offset + len(capture)])))
        if best is None or peak < best[1]:
            best = (offset, peak)
    return best[0]


def test_a_recording_replays_on_its_own_looping_included(rack_factory, osc_factory, helpers, jack, rack_binary,
                                                         tmp_path):
    """`rack run --file F --preset Warm --record R` with a 2.5 s file that loops,
    changes over OSC (most of them after the file's first end, the last one turning the loop
    off: the player stops at the end of that pass), then `rack render F out.wav
    --automation R` with no other flag: the recording starts with the whole state at time 0
    (every parameter of the table, the preset, the loop flag, the position), the render loops
    as the live player did and lasts the session, and after alignment it matches a JACK
    capture of rack's output within -90 dBFS in every recorded cycle, the capture moving only
    at the cycles the server's xruns struck (capture_matches). Values are written as the
    parameter resolves them (/norm 0.9 is mix 90, not 89.99999761581421)."""
    import numpy as np

    source = tmp_path / "short.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "floating-point", str(source),
                    "synth", "2.5", "pinknoise", "gain", "-10"], check=True, timeout=60)
    rec = tmp_path / "session.txt"
    server_at_start = livelib.server_xruns(jack.name)
    rack = rack_factory("--file", str(source), "--preset", "Warm", "--record", str(rec), env=probed(helpers, tmp_path))
    osc = osc_factory(rack.osc_port)
    capture_path, cycles_path = tmp_path / "live.f32", tmp_path / "cycles.txt"
    seconds = 8.0
    server_before, rack_before = livelib.xrun_marks(jack.name, osc)
    recorder = subprocess.Popen([str(helpers["jackrec"]), str(capture_path), str(seconds),
                                 f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=jack.env(JACKREC_CYCLES=str(cycles_path)))
    outs = (f"{rack.client_name}:out_1", f"{rack.client_name}:out_2")
    assert livelib.wait_until(lambda: all(livelib.jack_connections(jack.name).get(p) for p in outs), 5.0), \
        "the recorder is not connected to rack's outputs within 5 s"
    t0 = time.monotonic()

    def at(t):
        time.sleep(max(0.0, t0 + t - time.monotonic()))

    osc.send("/rack/cutoff", 1500.0, 1.0)
    at(1.5)
    osc.send("/rack/room", "plate", 0.2)
    at(2.5)
    osc.send("/rack/mix/norm", 0.9)
    at(3.5)
    osc.send("/rack/resonance", 8.0, 0.5)
    osc.send("/rack/gain", -4.0)
    at(5.0)
    osc.send("/rack/preset", "Bright", 0.5)
    at(6.0)
    osc.send("/rack/cutoff", 600.0, 1.0)
    osc.send("/rack/player/loop", 0)               # stops at the end of the pass being heard
    at(7.5)
    assert osc.ping()
    out, err = recorder.communicate(timeout=seconds + 20)
    assert recorder.returncode == 0, f"jackrec: {err}"
    table = [m.args[0] for m in osc.request_all("/rack/params") if m.address == "/rack/params"]
    assert len(table) >= 5, table
    xruns = rack_exits_fast_and_reporting(jack, osc, rack, server_before, rack_before, server_at_start,
                                            tmp_path / "probe.json")
    captured = np.fromfile(capture_path, dtype=np.float32).reshape(-1, 2).astype(np.float64)

    text = rec.read_text()
    events = parse_record(rec)
    start = [(addr, args) for t, addr, args, n in parse_record(rec, starting_state=True) if t == 0]
    assert "# preset Warm: its values follow" in text and not any(a == "/rack/preset" for a, _ in start), text
    for name in table:
        assert any(addr == f"/rack/{name}" for addr, _ in start), f"{name} not in the starting state\n{text}"
    assert ("/rack/player/loop", ["1"]) in start and ("/rack/player/seek", ["0"]) in start, text
    assert f'# file: {source}' in text, text
    assert find(events, "/rack/mix", "90") > 2.0, text
    assert "89.9999" not in text, text
    assert events[-1][1] == "/rack/player/stop" and events[-1][0] > 7.5, text
    assert find(events, "/rack/player/loop", "0") > find(events, "/rack/cutoff", "600") - 0.1, text

    check = _check(rack_binary, rec, "--length", "2.5")
    assert check.returncode == 0 and "past the end" not in check.stderr, f"{check.stderr}\n{text}"

    rendered_path = tmp_path / "replay.wav"
    render = subprocess.run([str(rack_binary), "render", str(source), str(rendered_path), "--automation", str(rec)],
                            capture_output=True, text=True, timeout=120,
                            env=jack.env(XDG_CONFIG_HOME=str(tmp_path / "xdg2")))
    assert render.returncode == 0, render.stderr
    assert "past the end" not in render.stderr, render.stderr
    rendered = _read_float_wav(rendered_path)
    assert len(rendered) >= int(events[-1][0] * 48000) - 1, (len(rendered), events[-1][0])

    level = 20 * math.log10(float(np.sqrt(np.mean(captured ** 2))))
    offset, summary = capture_matches(captured, rendered, _align_best, cycles_path, tmp_path / "rack-cycles.txt")
    assert level > -40 and (offset + len(captured)) / 48000 > 5.0, (offset, level)
    print(f"looping record -> re-render: {len(captured)} frames captured from render frame {offset} "
          f"({(offset + len(captured)) / 48000:.2f} s of a 2.5 s file), output RMS {level:.1f} dBFS; {summary}; "
          f"{xruns}")

