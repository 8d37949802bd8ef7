"""The filter's response as a control in the page (graph.js), in headless Chromium: its curve is
`rack plot --response`'s within 0.1 dB; dragging the handle with a mouse or a finger moves the
cutoff and resonance along the drag's path only, at most one message of each per animation
frame, the last position sent; the arrow keys and a double click move it; a change over OSC moves
the handle and the curve within 100 ms; its text is 12 CSS px or more on a 360 px phone and a
2,560 px screen; it follows the system's light or dark theme. The reverb's decay graph (decay.js):
its decay, damping, lowcut and highcut handles dragged land within 2 %, arrow keys move them,
freeze shows the decay as infinite. A screenshot of each viewport is saved into the test's
directory for a person to look at."""
from __future__ import annotations

import math
import re
import subprocess
import time

import pytest

from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from livelib import close_to, parse_packet, wait_until
from test_http_page import DESKTOP, PHONE, browser, console_errors, open_page, wait  # noqa: F401 (browser: a fixture)

# The addresses the response graph sends.
GRAPH = ("/rack/cutoff", "/rack/resonance")

# How close the drag must land: cutoff within 2 %, resonance within 0.5 dB.
CUTOFF_REL, RESONANCE_DB = 0.02, 0.5


def graph(browser) -> dict:
    """The graph's plot area (client px) and axes, as the page states them on its SVG."""
    return browser.execute_script("""
        const svg = document.getElementById('response-svg'), box = svg.getBoundingClientRect(), d = svg.dataset;
        return {x: box.left, y: box.top, left: +d.left, right: +d.right, top: +d.top, bottom: +d.bottom,
                fmin: +d.fmin, fmax: +d.fmax, dbmin: +d.dbmin, dbmax: +d.dbmax,
                cutoff: +d.cutoff, resonance: +d.resonance};""")


def point(g: dict, hz: float, db: float) -> tuple[float, float]:
    """Where (hz, db) is on the screen: a logarithmic frequency axis, a linear dB axis."""
    x = g["left"] + (g["right"] - g["left"]) * math.log(hz / g["fmin"]) / math.log(g["fmax"] / g["fmin"])
    y = g["bottom"] - (g["bottom"] - g["top"]) * (db - g["dbmin"]) / (g["dbmax"] - g["dbmin"])
    return g["x"] + x, g["y"] + y


def record_sends(browser) -> None:
    """Records each datagram the page sends on its WebSocket, with the time of the animation
    frame it was sent in (`sent_datagrams` reads them back)."""
    browser.execute_script("""
        window.sentLog = [];
        const original = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
          if (data instanceof Uint8Array) sentLog.push([document.timeline.currentTime, Array.from(data)]);
          return original.call(this, data); };""")


def sent_datagrams(browser) -> list[tuple[float, list]]:
    """(frame time, the datagram's messages) for each datagram recorded, bundles unpacked."""
    return [(t, parse_packet(bytes(data))) for t, data in browser.execute_script("return sentLog")]


def drag(browser, kind: str, start, end, steps: int = 30) -> None:
    """A straight drag by a mouse or a finger, 16 ms a step, from `start` (client px, rounded to
    the whole pixels WebDriver takes) by `end - start` (rounded: the page keeps where on the
    handle it was taken, so the drag lands within half a pixel of `end`)."""
    pointer = PointerInput(interaction.POINTER_TOUCH if kind == "touch" else interaction.POINTER_MOUSE, kind)
    actions = ActionBuilder(browser, mouse=pointer, duration=16)
    sx, sy = round(start[0]), round(start[1])
    dx, dy = round(end[0] - start[0]), round(end[1] - start[1])
    actions.pointer_action.move_to_location(sx, sy)
    actions.pointer_action.pointer_down()
    for i in range(1, steps + 1):
        actions.pointer_action.move_to_location(sx + round(i * dx / steps), sy + round(i * dy / steps))
    actions.pointer_action.pointer_up()
    actions.perform()


def changes(messages, address) -> list[float]:
    return [m.args[0] for m in messages if m.address == address]


def test_drag_the_handle_with_a_mouse_and_a_finger(rack, osc, osc_factory, browser, tmp_path):
    subscriber = osc_factory(rack.osc_port)
    subscriber.send("/rack/subscribe")
    for kind, size in [("mouse", DESKTOP), ("touch", PHONE)]:
        browser.set_window_size(*size)
        open_page(browser, rack)
        osc.send("/rack/cutoff", 20000.0)
        osc.send("/rack/resonance", 0.0)
        assert wait(lambda: graph(browser)["cutoff"] == 20000 and graph(browser)["resonance"] == 0)
        browser.execute_script("document.getElementById('response-svg').scrollIntoView({block: 'center'})")
        g = graph(browser)
        subscriber.drain()
        record_sends(browser)
        drag(browser, kind, point(g, 20000, 0), point(g, 800, 12))
        assert wait(lambda: close_to(osc.get("cutoff"), 800, rel=CUTOFF_REL, abs_=0)), (kind, osc.get("cutoff"))
        assert abs(osc.get("resonance") - 12) <= RESONANCE_DB, (kind, osc.get("resonance"))
        got = subscriber.collect(0.3)
        cutoffs, resonances = changes(got, "/rack/cutoff"), changes(got, "/rack/resonance")
        print(f"\n{kind}: {len(cutoffs)} cutoffs {cutoffs[0]:.0f}…{cutoffs[-1]:.1f} Hz, "
              f"{len(resonances)} resonances {resonances[0]:.2f}…{resonances[-1]:.2f} dB")
        # Along the drag's path only: the cutoff falls from 20 kHz to 800 Hz, the resonance rises to 12 dB.
        assert all(800 * (1 - CUTOFF_REL) <= c <= 20000 for c in cutoffs), cutoffs
        assert all(-RESONANCE_DB <= r <= 12 + RESONANCE_DB for r in resonances), resonances
        assert cutoffs == sorted(cutoffs, reverse=True) and resonances == sorted(resonances), (cutoffs, resonances)
        assert len(cutoffs) >= 5, "the drag moved rack as it went, not only at its end"
        # At most one datagram per animation frame (cutoff and resonance together, a bundle),
        # the last position among them.
        datagrams = [(t, m) for t, m in sent_datagrams(browser) if any(x.address in GRAPH for x in m)]
        frames = [t for t, _ in datagrams]
        assert len(frames) == len(set(frames)), datagrams
        assert any(len(m) == 2 for _, m in datagrams), "a diagonal drag moves both in one bundle"
        sent = [(t, x.address, x.args[0]) for t, m in datagrams for x in m]
        for name in ["cutoff", "resonance"]:   # the last sent is what rack holds (as a float32)
            assert close_to([v for _, a, v in sent if a == "/rack/" + name][-1], osc.get(name), rel=1e-6), sent
        assert console_errors(browser) == []
        browser.save_screenshot(str(tmp_path / f"graph-{kind}-{size[0]}px.png"))
        print(f"screenshot: {tmp_path / f'graph-{kind}-{size[0]}px.png'}")


def test_a_change_over_osc_moves_the_handle_and_the_curve_within_100_ms(rack, osc, browser):
    open_page(browser, rack)
    osc.send("/rack/cutoff", 800.0)
    osc.send("/rack/resonance", 12.0)
    assert wait(lambda: graph(browser)["cutoff"] == 800 and graph(browser)["resonance"] == 12)
    peak_before = float(browser.find_element(By.ID, "response-curve").get_attribute("data-peak-hz"))
    # The page notes (wall clock, ms) when the handle shows 2 kHz and the curve has moved.
    browser.execute_script("""
        window.movedAt = null;
        const svg = document.getElementById('response-svg'), handle = document.getElementById('response-handle');
        new MutationObserver(() => {
          if (svg.dataset.cutoff === '2000' && !movedAt) movedAt = [Date.now(), handle.getAttribute('transform'),
                                                               +document.getElementById('response-curve').dataset.peakHz];
        }).observe(svg, {attributes: true, attributeFilter: ['data-cutoff']});""")
    handle_before = browser.find_element(By.ID, "response-handle").get_attribute("transform")
    sent_ms = time.time() * 1000
    osc.send("/rack/cutoff", 2000.0, 0.0)
    assert wait(lambda: browser.execute_script("return movedAt"))
    shown_ms, handle_after, peak_after = browser.execute_script("return movedAt")
    print(f"\nthe handle and the curve moved {shown_ms - sent_ms:.1f} ms after the OSC message was sent")
    assert shown_ms - sent_ms < 100
    assert handle_after != handle_before
    # A resonant low-pass peaks just below its cutoff: the curve's peak went from 800 Hz to 2 kHz.
    assert 0.85 < peak_before / 800 < 1.06 and 0.85 < peak_after / 2000 < 1.06, (peak_before, peak_after)
    g = graph(browser)
    x, _ = point(g, 2000, 12)
    shown_x = g["x"] + float(re.match(r"translate\(([-0-9.]+) ", handle_after).group(1))
    assert abs(shown_x - x) < 0.5, (shown_x, x)


def test_keys_a_double_click_and_a_double_tap_move_the_handle(rack, osc, browser):
    open_page(browser, rack)
    osc.send("/rack/cutoff", 1000.0)
    osc.send("/rack/resonance", 0.0)
    assert wait(lambda: graph(browser)["cutoff"] == 1000)
    handle = browser.find_element(By.ID, "response-handle")
    assert handle.get_attribute("role") == "slider" and handle.get_attribute("aria-label")
    ratio, step_db = (float(handle.get_attribute("data-key-ratio")), float(handle.get_attribute("data-key-db")))
    browser.execute_script("arguments[0].focus()", handle)
    assert browser.switch_to.active_element == handle
    keys = ActionChains(browser)
    for _ in range(10):
        keys.send_keys(Keys.ARROW_LEFT)
    for _ in range(4):
        keys.send_keys(Keys.ARROW_UP)
    keys.perform()
    assert wait(lambda: close_to(osc.get("cutoff"), 1000 / ratio ** 10, rel=1e-4)), osc.get("cutoff")
    assert wait(lambda: close_to(osc.get("resonance"), 4 * step_db, abs_=1e-4)), osc.get("resonance")
    cutoff = osc.get("cutoff")
    announced = handle.get_attribute("aria-valuetext")
    assert announced == f"cutoff {cutoff:.0f} Hz, resonance +{4 * step_db:.1f} dB", announced
    ActionChains(browser).double_click(handle).perform()
    assert wait(lambda: close_to(osc.get("cutoff"), 20000) and close_to(osc.get("resonance"), 0)), \
        (osc.get("cutoff"), osc.get("resonance"))
    # A double tap with a finger does the same.
    osc.send("/rack/cutoff", 1000.0)
    osc.send("/rack/resonance", 6.0)
    time.sleep(0.5)   # past the hold after the double click, so the handle follows the pushes
    assert wait(lambda: graph(browser)["cutoff"] == 1000 and graph(browser)["resonance"] == 6)
    x, y = (round(v) for v in point(graph(browser), 1000, 6))
    finger = ActionBuilder(browser, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    for _ in range(2):
        finger.pointer_action.move_to_location(x, y).pointer_down().pointer_up()
    finger.perform()
    assert wait(lambda: close_to(osc.get("cutoff"), 20000) and close_to(osc.get("resonance"), 0)), \
        (osc.get("cutoff"), osc.get("resonance"))


def test_the_curve_is_rack_plots_within_a_tenth_of_a_db(rack, browser, rack_binary, tmp_path):
    """The page's curve and `rack plot --response`'s, over a grid of settings and two rates, at
    every point of the CLI's curve above its floor."""
    open_page(browser, rack)
    worst = 0.0
    for rate in [48000, 44100]:
        for cutoff in [12, 100, 800, 5000, 20000]:
            for resonance in [-20, 0, 12, 20]:
                out = tmp_path / "response.svg"
                run = subprocess.run([str(rack_binary), "plot", "--response", "--set", f"cutoff={cutoff}",
                                      "--set", f"resonance={resonance}", "--rate", str(rate), "-o", str(out)],
                                     capture_output=True, text=True, timeout=30)
                assert run.returncode == 0, run.stderr
                svg = out.read_text()
                axes = dict(re.findall(r'data-(left|right|top|bottom|fmin|fmax|dbmin|dbmax)="([-0-9.]+)"', svg))
                a = {k: float(v) for k, v in axes.items()}
                d = re.search(r'<path d="([^"]+)"[^>]*class="curve"', svg).group(1)
                points = []
                for xs, ys in re.findall(r"[ML]([-0-9.]+) ([-0-9.]+)", d):
                    hz = a["fmin"] * (a["fmax"] / a["fmin"]) ** ((float(xs) - a["left"]) / (a["right"] - a["left"]))
                    db = a["dbmin"] + (a["dbmax"] - a["dbmin"]) * (a["bottom"] - float(ys)) / (a["bottom"] - a["top"])
                    if db > a["dbmin"] - 19:   # above the floor the CLI clips its curve at
                        points.append((hz, db))
                page = browser.execute_script(
                    "return arguments[0].map(f => Graph.lowPassDb(f, arguments[1], arguments[2], arguments[3]))",
                    [hz for hz, _ in points], cutoff, resonance, rate)
                assert len(points) > 100
                error = max(abs(p - db) for p, (_, db) in zip(page, points))
                worst = max(worst, error)
                assert error < 0.1, (rate, cutoff, resonance, error)
    print(f"\nthe page's curve is rack plot's within {worst:.4f} dB")


def test_text_is_12_px_or_more_and_the_theme_is_the_systems(rack, browser, tmp_path):
    for width in [360, 2560]:
        browser.set_window_size(width, 1200)
        open_page(browser, rack)
        assert wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#response-svg text"))
        assert wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#decay-svg text"))
        sizes = browser.execute_script("""
            return [...document.querySelectorAll('#response-graph text, #response-graph figcaption, #decay-graph text, #decay-graph figcaption')]
              .map(t => parseFloat(getComputedStyle(t).fontSize) * (t.getScreenCTM ? t.getScreenCTM().a : 1));""")
        assert sizes and min(sizes) >= 12, (width, sizes)
        # Every label on its graph's own background, none cut off at its edges (a hidden one aside).
        for svg in ["response-svg", "decay-svg"]:
            outside = browser.execute_script("""
                const box = document.getElementById(arguments[0]).getBoundingClientRect();
                return [...document.querySelectorAll('#' + arguments[0] + ' text')]
                  .filter(t => getComputedStyle(t).visibility !== 'hidden')
                  .map(t => [t.textContent, t.getBoundingClientRect()])
                  .filter(([_, r]) => r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom)
                  .map(([text]) => text);""", svg)
            assert outside == [], (width, svg, outside)
        overflow = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert overflow[0] <= overflow[1], (width, overflow)
        browser.save_screenshot(str(tmp_path / f"graph-{width}px.png"))
    colours = {}
    for scheme in ["light", "dark"]:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        colours[scheme] = browser.execute_script("""
            const lum = c => { const [r, g, b] = c.match(/[0-9.]+/g).map(Number); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; };
            return [lum(getComputedStyle(document.querySelector('.graph-back')).fill),
                    lum(getComputedStyle(document.querySelector('#response-svg text')).fill),
                    lum(getComputedStyle(document.body).backgroundColor), lum(getComputedStyle(document.body).color),
                    lum(getComputedStyle(document.querySelector('section')).backgroundColor)];""")
    # The graphs and the whole page: light panels with dark text, or the reverse.
    (light_bg, light_text, light_page, light_page_text, light_panel) = colours["light"]
    (dark_bg, dark_text, dark_page, dark_page_text, dark_panel) = colours["dark"]
    assert light_bg > 0.8 and light_text < 0.3 and dark_bg < 0.2 and dark_text > 0.6, colours
    assert light_page > 0.8 and light_panel > 0.8 and light_page_text < 0.3, colours
    assert dark_page < 0.2 and dark_panel < 0.2 and dark_page_text > 0.6, colours


def decay_graph(browser) -> dict:
    return browser.execute_script("""
        const svg = document.getElementById('decay-svg'), box = svg.getBoundingClientRect(), d = svg.dataset;
        return {x: box.left, y: box.top, left: +d.left, right: +d.right, top: +d.top, bottom: +d.bottom,
                fmin: +d.fmin, fmax: +d.fmax, smin: +d.smin, smax: +d.smax, freeze: d.freeze};""")


def handle_centre(browser, element_id) -> tuple[float, float]:
    return tuple(browser.execute_script("""
        const r = document.getElementById(arguments[0]).querySelector('.graph-dot').getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2];""", element_id))


@pytest.mark.parametrize("kind, size", [("mouse", DESKTOP), ("touch", PHONE)], ids=["mouse-desktop", "touch-phone"])
def test_the_decay_graph_moves_decay_damping_and_the_cuts(rack, osc, browser, tmp_path, kind, size):
    """Each handle of the decay graph dragged with a mouse on a desktop, or a finger on a phone,
    lands its parameter within 2 % (the time and frequency axes are logarithmic); arrow keys move
    the focused one; freeze shows the decay as infinite."""
    browser.set_window_size(*size)
    open_page(browser, rack)
    assert wait(lambda: browser.execute_script("return document.getElementById('decay-svg').dataset.decay"))
    browser.execute_script("document.getElementById('decay-svg').scrollIntoView({block: 'center'})")
    for name, target in [("decay", 5.0), ("damping", 2000.0), ("lowcut", 200.0), ("highcut", 5000.0)]:
        g = decay_graph(browser)
        start = handle_centre(browser, "decay-handle-" + name)
        if name == "decay":
            share = math.log(target / g["smin"]) / math.log(g["smax"] / g["smin"])
            end = (start[0], g["y"] + g["bottom"] - (g["bottom"] - g["top"]) * share)
        else:
            share = math.log(target / g["fmin"]) / math.log(g["fmax"] / g["fmin"])
            end = (g["x"] + g["left"] + (g["right"] - g["left"]) * share, start[1])
        drag(browser, kind, start, end, steps=20)
        assert wait(lambda: close_to(osc.get(name), target, rel=CUTOFF_REL, abs_=0)), (kind, name, osc.get(name))
    handle = browser.find_element(By.ID, "decay-handle-decay")
    ratio = float(handle.get_attribute("data-key-ratio"))
    time.sleep(0.5)   # past the hold after the drags, so the page shows what rack holds
    before = osc.get("decay")
    browser.execute_script("arguments[0].focus()", handle)
    keys = ActionChains(browser)
    for _ in range(10):
        keys.send_keys(Keys.ARROW_UP)
    keys.perform()
    assert wait(lambda: close_to(osc.get("decay"), before * ratio ** 10, rel=1e-3)), (before, osc.get("decay"))
    osc.send("/rack/freeze", 1.0)
    assert wait(lambda: decay_graph(browser)["freeze"] == "true")
    assert "infinite" in handle.get_attribute("aria-valuetext")
    assert console_errors(browser) == []
    browser.save_screenshot(str(tmp_path / f"decay-graph-{kind}-{size[0]}px.png"))
