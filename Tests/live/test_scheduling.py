"""Scheduled changes against a live rack: far-future bundles never make immediate changes
vanish, a bundle lands on one sample, timetags beyond the horizon are refused, the control loop
keeps its periodic work (meters) going under a flood, and changes made while the JACK server is
gone update the state the engine starts from when it is back."""
from __future__ import annotations

import os
import time

import numpy as np

import livelib
from livelib import wait_until
from livelib import Osc, RackProcess, build_bundle, build_message, close_to
from test_record import parse_record

HORIZON_SECONDS = 3600  # ControllerTuning.scheduleHorizonSeconds




def tone(path, freq: float, seconds: float = 4.0):
    import subprocess
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", str(path), "synth", str(seconds), "sine", str(freq),
                    "vol", "0.5"], check=True)
    return path


def energy_fraction(signal, rate: int, freq: float, width: float = 50.0) -> float:
    mono = signal.mean(axis=1)
    spectrum = np.abs(np.fft.rfft(mono * np.hanning(len(mono)))) ** 2
    freqs = np.fft.rfftfreq(len(mono), 1.0 / rate)
    band = (freqs > freq - width) & (freqs < freq + width)
    total = spectrum.sum()
    return float(spectrum[band].sum() / total) if total > 0 else 0.0


def test_far_future_bundles_do_not_silence_faders_recalls_or_loads(rack, osc_factory, jack, helpers, tmp_path):
    osc = osc_factory(rack.osc_port)
    sub = osc_factory(rack.osc_port)
    sub.send("/rack/subscribe")
    assert sub.ping()
    # Two bundles of 2,500 messages each for ten minutes from now: 5,000 scheduled changes,
    # more than the 4,096 the engine keeps waiting.
    far = time.time() + 600
    for k in range(2):
        osc.send_raw(build_bundle(far + k, *[build_message("/rack/mix", float(i % 100)) for i in range(2500)]))
    refused = [m for m in osc.collect(0.5) if m.address == "/rack/error"]
    assert refused, "the bundles beyond the bound were not refused"
    assert all("timetagged changes are already waiting" in m.args[1] for m in refused), refused[:3]
    assert close_to(osc.get("mix"), 50), "a scheduled change is not the target before its time"
    sub.drain(0.1)

    # A fader: applied (the subscriber hears of it from the render thread's echo) and reported.
    osc.send("/rack/cutoff", 800.0)
    told = sub.wait_for("/rack/cutoff", 1.0)
    assert told is not None and close_to(told.args[0], 800), "the fader never reached the engine"
    assert close_to(osc.get("cutoff"), 800)
    # A recall: its marker comes back from the render thread.
    osc.send("/rack/preset", "Warm")
    told = sub.wait_for("/rack/preset", 1.0)
    assert told is not None and told.args == ["Warm"], "the recall never reached the engine"
    assert close_to(osc.get("cutoff"), 384)
    # A load: the file is heard.
    osc.send("/rack/preset", "Dry")
    loaded = time.monotonic()
    osc.send("/rack/player/load", str(tone(tmp_path / "tone.wav", 3000.0)))
    # The new file from its start, past its crossfade: 0.2 s in, and no further than the time
    # since the load (the demo loop's position was further on).
    playing = lambda: 0.2 < osc.status().args[4] <= time.monotonic() - loaded + 0.05   # noqa: E731
    assert livelib.wait_until(playing, 3.0), f"the loaded file does not play: {osc.status().args[4]} s"
    data, rate = livelib.record(helpers["jackrec"], jack.name, [f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"],
                                0.5, tmp_path / "out.raw")
    fraction = energy_fraction(data, rate, 3000.0)
    print(f"far-future bundles: {len(refused)} refusals seen; the loaded 3 kHz tone is {fraction:.3f} of the output energy")
    assert fraction > 0.9, f"the loaded file is not what sounds ({fraction:.3f} of the energy at 3 kHz)"
    assert osc.ping()


def test_a_bundle_lands_on_one_sample(rack_factory, osc_factory, tmp_path):
    """40 bundles of 4 messages each: the --record file (every change at the sample it took
    effect, from the render thread's echoes) has the 4 changes of each bundle on one sample."""
    rec = tmp_path / "bundles.txt"
    rack = rack_factory("--record", str(rec))
    osc = osc_factory(rack.osc_port)
    start = time.time() + 0.3
    for i in range(40):
        osc.send_raw(build_bundle(start + 0.011 * i,
                                  build_message("/rack/cutoff", 1000.0 + i), build_message("/rack/resonance", float(i % 10)),
                                  build_message("/rack/mix", float(i)), build_message("/rack/gain", -float(i % 20))))
    # The last bundle is due 0.43 s after the first; waited for (3 s at most).
    livelib.wait_until(lambda: close_to(osc.get("cutoff"), 1039), 3.0)
    assert close_to(osc.get("cutoff"), 1039)
    assert rack.stop() == 0, rack.describe()
    times: dict[str, list[str]] = {}
    for t, address, args, n in parse_record(rec):   # the changes, not the starting state
        if address in ("/rack/cutoff", "/rack/resonance", "/rack/mix", "/rack/gain"):
            times.setdefault(address, []).append(t)
    assert [len(v) for v in times.values()] == [40, 40, 40, 40], times
    split = [i for i in range(40) if len({times[a][i] for a in times}) != 1]
    print(f"bundles of 4 split across samples: {len(split)} of 40")
    assert split == [], [(i, [times[a][i] for a in times]) for i in split]


def test_a_timetag_beyond_the_horizon_is_refused_not_applied(osc):
    osc.drain(0)
    osc.send_raw(build_bundle(time.time() + HORIZON_SECONDS + 60, build_message("/rack/cutoff", 500.0)))
    err = osc.wait_for("/rack/error", 1.0)
    assert err is not None and err.args[0] == "/rack/cutoff" and "horizon" in err.args[1], err
    livelib.wait_rack_looked(osc)   # rack is done with that bundle: two turns of its control loop
    assert close_to(osc.get("cutoff"), 20000), "not applied at once"
    osc.send_raw(build_bundle(time.time() + HORIZON_SECONDS - 60, build_message("/rack/cutoff", 500.0)))
    before_pong: list = []
    osc.send("/ping")   # answered after the bundle (one socket, read in order)
    assert osc.wait_for("/pong", 1.0, before_pong) is not None
    assert before_pong == [], f"within the horizon it is accepted: {before_pong}"


def test_meters_keep_coming_during_a_flood(rack, osc_factory):
    """Bundles of 40 messages sent faster than rack can handle them, for 2 s: the control loop
    still does its periodic work, so the meters (15 a second) keep coming."""
    meters = osc_factory(rack.osc_port)
    meters.send("/rack/meter")
    assert meters.wait_for("/rack/meter", 1.0) is not None
    flood = Osc(rack.osc_port)
    dgram = build_bundle(0, *[build_message("/rack/mix", float(i)) for i in range(40)])
    arrivals: list[float] = []
    sent = 0
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 2.0:
            for _ in range(50):
                flood.send_raw(dgram)
            sent += 50
            for m in meters.drain(0):
                if m.address == "/rack/meter":
                    arrivals.append(m.received)
        t1 = time.monotonic()
        during = [t for t in arrivals if t0 <= t <= t1]
        gaps = np.diff([t0] + during + [t1])
        print(f"flood: {sent} bundles of 40 in {t1 - t0:.2f} s; meters during it: {len(during)}, "
              f"largest gap {gaps.max() * 1000:.0f} ms")
        assert gaps.max() <= 0.3, f"no meter for {gaps.max():.2f} s during the flood"
    finally:
        flood.close()
    assert meters.ping(5.0)


def test_changes_while_the_server_is_gone_are_the_state_it_starts_from(tmp_path, rack_binary, helpers):
    """The server stops; 10,000 fader messages and a preset recall arrive; none is refused and
    /rack/get reports the latest state. When the server is back the engine starts from that
    state: the subscriber hears of no stale change, and the sound is the recalled preset's."""
    server = f"rack-outage-{os.getpid()}"
    pid = livelib.start_jack(server, 48000, 256)
    env = livelib.jack_env(server, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    rack = RackProcess(["--name", "outage", "--osc-port", "0"], env, rack_binary).wait_ready()
    osc = Osc(rack.osc_port)
    sub = Osc(rack.osc_port)
    ports = ["outage:out_1", "outage:out_2"]
    try:
        osc.send("/rack/mix", 0.0)
        assert osc.ping()
        meters = Osc(rack.osc_port)
        meters.send("/rack/meter")
        livelib.wait_ramps_over(meters)   # dry before the recording
        meters.send("/rack/unsubscribe")
        meters.close()
        before, rate = livelib.record(helpers["jackrec"], server, ports, 1.0, tmp_path / "before.raw")
        # Three timetagged changes waiting when the server goes: dropped, and rack says how many.
        osc.send_raw(build_bundle(time.time() + 60, *(build_message("/rack/resonance", 6.0) for _ in range(3))))
        sub.send("/rack/subscribe")
        assert sub.ping()
        livelib.stop_jack(pid)
        assert wait_until(lambda: (osc.status(0.5) or livelib.Msg("", "", [0] * 6)).args[5] == "disconnected", 5)
        for i in range(10_000):
            osc.send("/rack/cutoff", float(12 + (i * 37) % 19000))
            if i % 500 == 0:
                time.sleep(0.002)   # a fader, not a flood: nothing may be lost to the socket
        osc.send("/rack/preset", "Warm")
        osc.send("/rack/mix", 0.0)
        replies: list = []
        osc.send("/ping")   # answered once rack has read everything sent before it
        assert osc.wait_for("/pong", 10.0, replies) is not None, "the flood was not read within 10 s"
        errors = [m for m in replies if m.address == "/rack/error"]
        assert errors == [], errors[:3]
        assert close_to(osc.get("cutoff"), 384) and close_to(osc.get("mix"), 0)
        dump = {m.address: m.args[0] for m in osc.request_all("/rack/dump")}
        assert dump["/rack/preset"] == "Warm", dump
        told = sub.drain(0.2)
        assert any(m.address == "/rack/preset" and m.args == ["Warm"] for m in told), "subscribers are told at once"
        assert told and told[-1].address == "/rack/mix" and close_to(told[-1].args[0], 0), told[-3:]

        pid, _ = livelib.restart_jack(server, 48000, 256)
        assert wait_until(lambda: (osc.status(0.5) or livelib.Msg("", "", [0] * 6)).args[5] == "running", 8)
        said = "3 timetagged changes waiting when the JACK server went were dropped (never applied, never reported)"
        assert wait_until(lambda: any(said in line for line in rack.stdout + rack.stderr), 3), rack.describe()
        stale = [m for m in sub.collect(1.0) if m.address.startswith("/rack/")]
        assert stale == [], f"{len(stale)} stale changes told after the rejoin: {stale[:3]}"
        assert close_to(osc.get("cutoff"), 384)
        after, _ = livelib.record(helpers["jackrec"], server, ports, 1.0, tmp_path / "after.raw")
        c_before, c_after = livelib.spectral_centroid(before, rate), livelib.spectral_centroid(after, rate)
        print(f"outage: centroid {c_before:.0f} Hz before (cutoff 20 kHz), {c_after:.0f} Hz after (Warm, 384 Hz)")
        assert np.isfinite(after).all() and np.abs(after).max() > 1e-3, "silent after the rejoin"
        assert c_after < 0.5 * c_before, (c_before, c_after)
    finally:
        osc.close()
        sub.close()
        code = rack.stop()
        livelib.stop_jack(pid)
    assert code == 0


def test_a_remote_sender_gets_its_share_of_the_schedule_and_clears_its_own(rack, osc_factory):
    """127.0.0.2 (remote) sends 5,000 far-future changes: it holds its share of the scheduler's
    slots (the README's figure), is told so, and the local user still schedules the reserve; each
    `/rack/schedule/clear` drops its sender's own, and says how many."""
    from httplib import readme_number
    from test_osc_loops import FromOsc
    share = readme_number(r"one remote address holds at most \*\*([\d,]+)\*\* \(what `rack send`")
    reserve = readme_number(r"a quarter of them \(\*\*([\d,]+)\*\*\) is kept")
    far = time.time() + 600
    remote = FromOsc(rack.osc_port, "127.0.0.2")
    for k in range(2):
        remote.send_raw(build_bundle(far + k, *[build_message("/rack/mix", 10.0) for _ in range(2500)]))
    refused = [m for m in remote.collect(0.5) if m.address == "/rack/error"]
    assert refused and all(f"at most {share} timetagged changes waiting (its share" in m.args[1] for m in refused), refused[:3]
    local = osc_factory(rack.osc_port)
    for k in range(reserve // 256):
        local.send_raw(build_bundle(far + 2, *[build_message("/rack/mix", 20.0) for _ in range(256)]))
    assert local.ping()
    assert [m for m in local.drain(0.2) if m.address == "/rack/error"] == [], "the local user's changes were refused"
    remote.send("/rack/schedule/clear")
    cleared = remote.wait_for("/rack/schedule/cleared", 1.0)
    assert cleared is not None and cleared.args == [share], cleared
    local.send("/rack/schedule/clear")
    cleared = local.wait_for("/rack/schedule/cleared", 1.0)
    assert cleared is not None and cleared.args == [reserve], cleared
    assert close_to(local.get("mix"), 50), "nothing scheduled was applied"
