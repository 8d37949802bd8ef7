"""The web control surface in a real browser (headless Chromium through Selenium): it loads
from rack alone, builds its controls from the OSCQuery namespace (one section per parameter
group, no copy of the taper maths), every control has an accessible name, a fader moves rack,
and every change made elsewhere shows without a reload (values, the preset list, the player's
transport and loop, the JACK state). Outcomes are told beside the control that caused them;
while rack is away the page is greyed out and disabled, and it comes back by itself. It fits a
phone and uses a desktop's width. RACK_SCREENSHOT_DIR=DIR writes the README's pictures."""
from __future__ import annotations

import math
import os
import re
import shutil
import socket
import struct
import subprocess
import threading
import time
import wave
from pathlib import Path

import pytest

from httplib import client, get, get_json
from livelib import close_to, process_usage, start_jack, stop_jack, wait_until

webdriver = client("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):   # a setup that is not the README's, not a reason to skip
    raise ImportError("chromium and chromium-driver are not installed (scripts/install-deps installs them)")

PHONE = (412, 915)
DESKTOP = (1600, 1000)


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={PHONE[0]},{PHONE[1]}", "--force-device-scale-factor=1", "--no-first-run",
                "--disable-background-networking", "--disable-component-update"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})   # the console, for console_errors
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


def wait(predicate, timeout=5.0):
    """The suite's `wait_until` with the page's usual bound: a browser takes longer than a socket."""
    return wait_until(predicate, timeout, 0.05)


def text(browser, element_id):
    return browser.find_element(By.ID, element_id).text


def open_page(browser, rack):
    url = f"http://127.0.0.1:{rack.http_port}/ui/"
    browser.get(url)
    assert wait(lambda: text(browser, "connection") == "connected"), text(browser, "connection")
    return url


def preset_options(browser):
    return browser.execute_script("return [...document.querySelectorAll('#preset option')].map(o => o.value)")


def parameter_nodes(rack):
    """The namespace's parameters: every node of /rack with a GROUP."""
    nodes = get_json(rack.http_port, "/")["CONTENTS"]["rack"]["CONTENTS"]
    return {name: node for name, node in nodes.items() if "GROUP" in node}


def test_page_drives_rack_and_follows_it(rack, osc, browser):
    url = open_page(browser, rack)
    # Move the cutoff fader as a user would: focus it and press keys. It sends /norm positions.
    fader = browser.find_element(By.ID, "control-cutoff")
    fader.send_keys(Keys.HOME)
    assert wait(lambda: close_to(osc.get("cutoff"), 12, rel=1e-3)), osc.get("cutoff")
    for _ in range(500):
        fader.send_keys(Keys.ARROW_RIGHT)   # 500 of 1000 steps on a logarithmic fader: ~490 Hz
    assert wait(lambda: 400 < (osc.get("cutoff") or 0) < 600), osc.get("cutoff")
    # The number shown is the value rack echoed.
    shown = browser.find_element(By.ID, "value-cutoff").text
    assert wait(lambda: browser.find_element(By.ID, "value-cutoff").text == f"{osc.get('cutoff'):.0f} Hz"), shown
    # Changes made elsewhere move the page within a frame or two.
    time.sleep(0.5)   # past the fader's hold after the user's last move
    t0 = time.monotonic()
    osc.send("/rack/cutoff", 5000.0)
    assert wait(lambda: browser.find_element(By.ID, "value-cutoff").text == "5.00 kHz", 2.0)
    print(f"\npage followed a UDP change in {1000 * (time.monotonic() - t0):.0f} ms")
    expected = 1000 * math.log(5000 / 12) / math.log(20000 / 12)   # the logarithmic taper, told by rack
    assert wait(lambda: abs(int(fader.get_attribute("value")) - expected) <= 1), fader.get_attribute("value")
    osc.send("/rack/room", "cathedral")
    assert wait(lambda: browser.find_element(By.ID, "control-room").get_attribute("value") == "cathedral")
    # The room selector and a preset recall from the page.
    Select(browser.find_element(By.ID, "control-room")).select_by_value("plate")
    assert wait(lambda: osc.get("room") == "plate")
    Select(browser.find_element(By.ID, "preset")).select_by_value("Warm")
    browser.find_element(By.ID, "recall").click()
    assert wait(lambda: close_to(osc.get("cutoff"), 384))
    assert wait(lambda: browser.find_element(By.ID, "value-cutoff").text == "384 Hz")
    assert wait(lambda: text(browser, "note-preset") == "recalled “Warm”")
    # Meters and status arrive.
    assert wait(lambda: browser.find_element(By.ID, "jack").text.startswith("JACK running"))
    # Everything came from rack itself.
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    origin = url.rsplit("/ui/", 1)[0]
    assert resources and all(r.startswith(origin) or r.startswith("ws://127.0.0.1") for r in resources), resources


def console_errors(browser) -> list[str]:
    """The console's errors since the last call: script errors (a parse error included) and
    failed loads (a 404 is one)."""
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_the_page_loads_with_no_console_error(rack, browser):
    """Every script parses and runs, and everything the page asks for is there (its icon too):
    the console stays clean while the page loads, connects and shows its pictures."""
    open_page(browser, rack)
    assert wait(lambda: picture_version(browser, "response") and picture_version(browser, "decay"), 15.0)
    assert console_errors(browser) == []
    # The check sees what it is there for: a script rack does not have is an error.
    browser.execute_script("document.head.append(Object.assign(document.createElement('script'), {src: '/ui/none.js'}))")
    assert wait(lambda: any("404" in m and "none.js" in m for m in console_errors(browser)))


def test_controls_come_from_the_namespace_by_group(rack, browser):
    open_page(browser, rack)
    params = parameter_nodes(rack)
    assert {"cutoff", "resonance", "mix", "gain", "room"} <= set(params)
    for name, node in params.items():
        section = browser.find_element(By.ID, "group-" + node["GROUP"])
        control = section.find_element(By.ID, "control-" + name)
        kind = ("checkbox" if "toggle" in node["TAGS"] else "select-one" if "choice" in node["TAGS"] else "range")
        assert control.get_attribute("type") == kind, (name, node["TAGS"])
    assert [s.get_attribute("id") for s in browser.find_elements(By.CSS_SELECTOR, "#groups > section")] == \
        ["group-filter", "group-reverb", "group-output"]
    # No copy of the taper maths in the page: positions come from rack's /norm pushes.
    for script in ["app.js", "controls.js", "panels.js"]:
        status, response = get(rack.http_port, "/ui/" + script)
        assert status == 200
        for maths in [b"Math.log", b"Math.pow", b"Math.exp"]:
            assert maths not in response, (script, maths)


def test_every_control_has_an_accessible_name_and_it_fits_a_phone(rack, osc, browser):
    open_page(browser, rack)
    unnamed = browser.execute_script("""
        return [...document.querySelectorAll('input, select, button, meter, output, img')]
          .filter(e => !(e.getAttribute('aria-label') || e.getAttribute('alt') || (e.labels && e.labels.length)
                         || e.textContent.trim()))
          .map(e => e.outerHTML);""")
    assert unnamed == []
    assert "(Hz)" in browser.find_element(By.ID, "control-cutoff").get_attribute("aria-label")
    width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"horizontal scrolling on a 412 px wide screen: {width}"


def test_a_desktop_gets_columns(rack, browser):
    browser.set_window_size(*DESKTOP)
    open_page(browser, rack)
    lefts = browser.execute_script("return [...document.querySelectorAll('main section')]"
                                   ".map(s => Math.round(s.getBoundingClientRect().left))")
    assert len(set(lefts)) >= 3, f"sections start at {sorted(set(lefts))}: fewer than three columns at 1600 px"
    width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


def test_save_says_saved_and_a_bad_name_is_refused_beside_the_field(rack, osc, browser):
    open_page(browser, rack)
    osc.send("/rack/mix", 22.0)
    browser.find_element(By.ID, "preset-name").send_keys("From The Page")
    browser.find_element(By.ID, "save").click()
    assert wait(lambda: "From The Page" in preset_options(browser))
    assert wait(lambda: text(browser, "note-save") == "saved “From The Page”"), text(browser, "note-save")
    assert "From The Page" in osc.request("/rack/preset/list").args
    name = browser.find_element(By.ID, "preset-name")
    name.clear()
    name.send_keys("no/slashes")
    browser.find_element(By.ID, "save").click()
    refused = wait(lambda: "error" in browser.find_element(By.ID, "note-save").get_attribute("class")
                   and text(browser, "note-save") not in ("", "…"))
    assert refused, text(browser, "note-save")
    assert text(browser, "message") == "", "the error went to the page, not beside the field"
    assert "no/slashes" not in preset_options(browser)


def test_delete_a_preset_after_confirming(rack, osc, browser):
    open_page(browser, rack)
    osc.send("/rack/preset/save", "Doomed")
    assert wait(lambda: "Doomed" in preset_options(browser)), "a save over OSC shows without a reload"
    Select(browser.find_element(By.ID, "preset")).select_by_value("Doomed")
    browser.find_element(By.ID, "delete").click()
    assert browser.find_element(By.ID, "delete-confirm").is_displayed()
    assert "Doomed" in text(browser, "delete-question")
    assert "Doomed" in osc.request("/rack/preset/list").args, "nothing deleted before the confirmation"
    browser.find_element(By.ID, "delete-yes").click()
    assert wait(lambda: "Doomed" not in preset_options(browser))
    assert wait(lambda: text(browser, "note-preset") == "deleted “Doomed”")
    assert "Doomed" not in osc.request("/rack/preset/list").args
    # Deleted elsewhere: gone from the page too.
    osc.send("/rack/preset/save", "Elsewhere")
    assert wait(lambda: "Elsewhere" in preset_options(browser))
    osc.send("/rack/preset/delete", "Elsewhere")
    assert wait(lambda: "Elsewhere" not in preset_options(browser))


def test_the_player_shows_what_rack_does(rack, osc, browser):
    open_page(browser, rack)
    loop = browser.find_element(By.ID, "loop")
    assert wait(lambda: loop.is_selected())
    osc.send("/rack/player/loop", 0)
    assert wait(lambda: not loop.is_selected()), "the loop box follows /rack/player/loop 0"
    osc.send("/rack/player/stop")
    assert wait(lambda: text(browser, "transport").startswith("■ stopped")), text(browser, "transport")
    browser.find_element(By.ID, "play").click()
    assert wait(lambda: text(browser, "transport").startswith("▶ playing")), text(browser, "transport")
    assert osc.request("/rack/player/state").args[1:] == [1, 0]
    loop.click()
    assert wait(lambda: osc.request("/rack/player/state").args[2] == 1)


def write_tone(path: Path, seconds=1.0, rate=48000):
    frames = int(seconds * rate)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<hh", s, s) for s in
                               (int(8000 * math.sin(2 * math.pi * 440 * i / rate)) for i in range(frames))))


def test_load_a_file_from_the_media_directory(rack_factory, osc_factory, browser, tmp_path):
    media = tmp_path / "media"
    (media / "sub").mkdir(parents=True)
    write_tone(media / "tone.wav")
    write_tone(media / "sub" / "deeper.wav")
    (media / "notes.txt").write_text("not audio\n")
    rack = rack_factory("--media-dir", str(media))
    osc = osc_factory(rack.osc_port)
    open_page(browser, rack)
    listed = lambda: browser.execute_script("return [...document.querySelectorAll('#media option')].map(o => o.value)")
    real = os.path.realpath(media)
    assert wait(lambda: listed() == [f"{real}/sub/deeper.wav", f"{real}/tone.wav"]), listed()
    Select(browser.find_element(By.ID, "media")).select_by_value(f"{real}/tone.wav")
    browser.find_element(By.ID, "load").click()
    assert wait(lambda: osc.request("/rack/player/state").args[0] == f"{real}/tone.wav")
    assert wait(lambda: "tone.wav" in text(browser, "transport")), text(browser, "transport")


def test_without_a_media_directory_the_page_says_how(rack, browser):
    open_page(browser, rack)
    assert wait(lambda: "--media-dir" in text(browser, "note-player")), text(browser, "note-player")
    assert not browser.find_element(By.ID, "load").is_enabled()


def picture_version(browser, name) -> int:
    """The version of the picture the page shows (set once the image has loaded), 0 before."""
    return int(browser.find_element(By.ID, "picture-" + name).get_attribute("data-version") or 0)


def served_picture(rack, name) -> tuple[int, float, str]:
    """The picture rack serves now: its version (ETag), how long it took to draw (ms, from
    Server-Timing) and the SVG."""
    status, response = get(rack.http_port, f"/ui/picture/{name}.svg")
    assert status == 200, response[:200]
    head, _, svg = response.partition(b"\r\n\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in head.decode().split("\r\n")[1:])}
    assert headers.get("content-type") == "image/svg+xml", headers
    return int(headers["etag"].strip('"')), float(headers["server-timing"].split("dur=")[1]), svg.decode()


def shown(browser, rack, name, *fragments) -> str | None:
    """The SVG the page shows for `name` when it holds every fragment: the image has loaded the
    version rack serves now."""
    version, _, svg = served_picture(rack, name)
    return svg if picture_version(browser, name) == version and all(f in svg for f in fragments) else None


def test_the_filter_picture_follows_the_cutoff(rack, osc, browser):
    open_page(browser, rack)
    img = browser.find_element(By.ID, "picture-response")
    assert img.find_element(By.XPATH, "ancestor::section").get_attribute("id") == "group-filter"
    assert wait_until(lambda: picture_version(browser, "response"), 5.0)
    before = picture_version(browser, "response")
    osc.send("/rack/cutoff", 800.0)
    osc.send("/rack/resonance", 12.0)
    assert wait_until(lambda: shown(browser, rack, "response", 'data-cutoff="800"', 'data-resonance="12"'), 5.0)
    assert picture_version(browser, "response") > before


def band_points(svg: str) -> list[tuple[float, float]]:
    """The decay plot's points: (band centre Hz, RT60 s) of each `class="band"` circle."""
    return [(float(hz), float(s)) for hz, s in
            re.findall(r'class="band" data-hz="([0-9.]+)" data-seconds="([0-9.e+-]+)"', svg)]


def cli_decay_points(rack, rack_binary, tmp_path) -> list[tuple[float, float]]:
    """`rack plot --decay` for the state rack holds now: every reverb parameter as OSCQuery
    reports it (the value rack holds, not its float), at the rate the page measures at."""
    names = ["room", "decay", "predelay", "damping", "lowcut", "highcut", "width"]
    values = {n: get_json(rack.http_port, f"/rack/{n}?VALUE")["VALUE"][0] for n in names}
    sets = [arg for n, v in values.items() for arg in ("--set", f"{n}={v if isinstance(v, str) else repr(v)}")]
    out = tmp_path / "decay.svg"
    run = subprocess.run([str(rack_binary), "plot", "--decay", *sets, "--rate", "48000", "-o", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return band_points(out.read_text())


def test_the_decay_picture_follows_the_reverb_and_is_rack_plots(rack, osc, browser, rack_binary, tmp_path):
    """The reverb's decay (RT60 per octave band, as `rack plot --decay`) in the
    page, redrawn off the event loop when the reverb changes (over OSC, from the page, by a
    preset recall), and pushed. Its points equal the CLI's for the same state within 1e-9
    relative (the same code at the same rate); a drawing's memory goes back to the system."""
    open_page(browser, rack)
    img = browser.find_element(By.ID, "picture-decay")
    assert img.find_element(By.XPATH, "ancestor::section").get_attribute("id") == "group-reverb"
    assert wait_until(lambda: picture_version(browser, "decay"), 10.0)
    rss_before = process_usage(rack.pid)["rss_mb"]
    # The worst case to measure: a 30 s decay (60.3 s of response) in the largest room.
    for address, value, fragment in [("/rack/room", "cathedral", 'data-room="cathedral"'),
                                     ("/rack/decay", 30.0, 'data-decay="30"'),
                                     ("/rack/damping", 3000.0, 'data-damping="3000"'),
                                     ("/rack/decay", 2.5, 'data-decay="2.5"')]:
        t0 = time.monotonic()
        osc.send(address, value)
        svg = wait_until(lambda: shown(browser, rack, "decay", fragment), 15.0)
        assert svg, f"{address} {value}: the page's decay picture did not follow within 15 s"
        seconds = time.monotonic() - t0
        _, draw_ms, _ = served_picture(rack, "decay")
        print(f"\n{address} {value}: drawn in {draw_ms:.0f} ms, shown in the page {1000 * seconds:.0f} ms after the change")
        assert seconds < 15.0
        page = band_points(svg)
        assert [hz for hz, _ in page] == [125, 250, 500, 1000, 2000, 4000, 8000], page
        # The page's curve is the CLI's for the state rack holds (waiting, when a room change's
        # implied values land after a drawing of the room alone began, for the next drawing).
        def agrees():
            now = band_points(shown(browser, rack, "decay", fragment) or "")
            cli = cli_decay_points(rack, rack_binary, tmp_path)
            return len(now) == len(cli) == 7 and all(h1 == h2 and math.isclose(a, b, rel_tol=1e-9)
                                                     for (h1, a), (h2, b) in zip(now, cli))
        assert wait_until(agrees, 10.0, 0.2), (address, value, page, cli_decay_points(rack, rack_binary, tmp_path))
        if value == 30.0:
            assert draw_ms < 5000, f"the worst decay took {draw_ms:.0f} ms to draw"
            assert 24 < dict(page)[1000] < 36, f"1 kHz rings about as long as the decay set: {page}"
    # From the page itself and from a preset recall, as from OSC.
    Select(browser.find_element(By.ID, "control-room")).select_by_value("plate")
    assert wait_until(lambda: shown(browser, rack, "decay", 'data-room="plate"'), 15.0)
    osc.send("/rack/preset", "Warm")
    assert wait_until(lambda: shown(browser, rack, "decay", 'data-room="mediumHall"', 'data-decay="2.2"'), 15.0)
    # What a drawing measures (~115 MB at 30 s) goes back to the system when it is done.
    t0 = time.monotonic()
    back = wait_until(lambda: process_usage(rack.pid)["rss_mb"] - rss_before < 32, 5.0, 0.1)
    rss_after = process_usage(rack.pid)["rss_mb"]
    print(f"RSS {rss_before:.1f} MB before the 30 s decay was drawn, {rss_after:.1f} MB after "
          f"({1000 * (time.monotonic() - t0):.0f} ms)")
    assert back, (rss_before, rss_after)


def free_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def controls_enabled(browser):
    return browser.execute_script(
        "return [...document.querySelectorAll('main input, main select, main button')].map(c => !c.disabled)")


def retry_delays(browser, until: float, timeout: float) -> list[float]:
    """The delays the page says it retries in ("… retrying in X s"), each new one once, until
    it says `until` or `timeout` seconds pass."""
    seen: list[float] = []
    def look():
        m = re.search(r"retrying in ([0-9.]+) s", text(browser, "connection"))
        if m and (not seen or float(m.group(1)) != seen[-1]):
            seen.append(float(m.group(1)))
        return bool(seen) and seen[-1] == until
    wait_until(look, timeout, 0.05)
    return seen


def test_greyed_out_while_rack_is_away_and_back_by_itself(rack_factory, browser):
    """docs/web.md: while rack is away the page greys out, disables its controls, retries with
    backoff (0.5 s doubling to 5 s: each delay it says in turn) and reloads everything when rack
    is back."""
    port = free_tcp_port()
    first = rack_factory("--http-port", str(port))
    open_page(browser, first)
    # The page is watched from before the stop (the stop itself takes longer than the first
    # delay); the browser is touched by that thread alone until it ends.
    delays: list[float] = []
    watcher = threading.Thread(target=lambda: delays.extend(retry_delays(browser, 5.0, 15.0)))
    watcher.start()
    first.stop()
    watcher.join()
    assert delays == [0.5, 1.0, 2.0, 4.0, 5.0], delays
    assert wait(lambda: "offline" in browser.find_element(By.TAG_NAME, "body").get_attribute("class"), 3.0)
    assert "retrying" in text(browser, "connection"), text(browser, "connection")
    assert not any(controls_enabled(browser)), "a control stayed usable while rack is away"
    assert not text(browser, "jack").startswith("JACK running"), text(browser, "jack")
    second = rack_factory("--http-port", str(port), "--preset", "Warm")
    assert wait(lambda: text(browser, "connection") == "connected", 10.0), text(browser, "connection")
    assert "offline" not in browser.find_element(By.TAG_NAME, "body").get_attribute("class")
    assert browser.find_element(By.ID, "control-cutoff").is_enabled()
    assert wait(lambda: text(browser, "value-cutoff") == "384 Hz"), "the page reloaded what the new rack holds"
    assert second.http_port == port


def test_jack_state_follows_the_server(rack_factory, browser):
    name = f"rack-page-{os.getpid()}"
    pid = start_jack(name)
    try:
        env = {"JACK_DEFAULT_SERVER": name}
        rack = rack_factory(env=env)
        open_page(browser, rack)
        assert wait(lambda: text(browser, "jack").startswith("JACK running"))
        stop_jack(pid)
        pid = None
        assert wait(lambda: text(browser, "jack").startswith("JACK disconnected"), 8.0), text(browser, "jack")
    finally:
        if pid:
            stop_jack(pid)


def test_screenshots(rack, osc, browser, tmp_path):
    """The README's pictures: RACK_SCREENSHOT_DIR=docs scripts/live-test -k test_screenshots
    (without it, the pictures are taken into a temporary directory and checked)."""
    out = Path(os.environ.get("RACK_SCREENSHOT_DIR") or tmp_path)
    osc.send("/rack/preset", "Warm")
    osc.send("/rack/mix", 35.0)
    for size, name in [((PHONE[0], 1900), "web-surface.png"), ((1400, 1000), "web-surface-desktop.png")]:
        browser.set_window_size(*size)
        open_page(browser, rack)
        for picture in ["response", "decay"]:
            img = browser.find_element(By.ID, "picture-" + picture)
            assert wait(lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img))
        assert wait_until(lambda: shown(browser, rack, "decay", 'data-room="mediumHall"'), 10.0)
        assert wait(lambda: text(browser, "value-mix") == "35.0 %")
        time.sleep(0.5)   # the meters move: any moment will do for a picture
        browser.save_screenshot(str(out / name))
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


def test_without_an_avahi_daemon_the_page_says_discovery_cannot_work(rack_factory, browser, tmp_path):
    """No Avahi daemon answers (the system bus points nowhere): browsing runs but cannot find
    anything, and the studio view says why instead of "no other rack found on the network yet"."""
    rack = rack_factory("--no-advertise", env={"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={tmp_path}/no-bus"})
    studio = get_json(rack.http_port, "/studio")
    assert studio["browsing"] is True and studio["daemon"] is False, studio
    open_page(browser, rack)
    assert wait(lambda: text(browser, "racks-note") == "discovery cannot work: no avahi-daemon answers on this machine"), \
        text(browser, "racks-note")
