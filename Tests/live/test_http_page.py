"""The web control surface in a real browser (headless Chromium through Selenium): it loads
from rack alone, every control has an accessible name, a fader moves rack, a change made over
UDP moves the page, and it fits a phone's screen. RACK_SCREENSHOT=PATH keeps a picture."""
from __future__ import annotations

import math
import os
import shutil
import time

import pytest

from livelib import close_to

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromium-driver are not installed")


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=412,915", "--force-device-scale-factor=1", "--no-first-run",
                "--disable-background-networking", "--disable-component-update"]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


def wait(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return predicate()


def open_page(browser, rack):
    url = f"http://127.0.0.1:{rack.http_port}/ui/"
    browser.get(url)
    assert wait(lambda: browser.find_element(By.ID, "connection").text == "connected"), \
        browser.find_element(By.ID, "connection").text
    return url


def test_page_drives_rack_and_follows_it(rack, osc, browser):
    url = open_page(browser, rack)
    # Move the cutoff fader as a user would: focus it and press keys.
    fader = browser.find_element(By.ID, "fader-cutoff")
    fader.send_keys(Keys.HOME)
    assert wait(lambda: close_to(osc.get("cutoff"), 12, rel=1e-3)), osc.get("cutoff")
    for _ in range(500):
        fader.send_keys(Keys.ARROW_RIGHT)   # 500 of 1000 steps on a logarithmic fader: ~490 Hz
    assert wait(lambda: 400 < (osc.get("cutoff") or 0) < 600), osc.get("cutoff")
    # Changes made elsewhere move the page within a frame or two.
    time.sleep(0.5)   # past the fader's hold after the user's last move
    t0 = time.monotonic()
    osc.send("/rack/cutoff", 5000.0)
    assert wait(lambda: browser.find_element(By.ID, "value-cutoff").text == "5.00 kHz", 2.0)
    print(f"\npage followed a UDP change in {1000 * (time.monotonic() - t0):.0f} ms")
    position = int(fader.get_attribute("value"))
    expected = 1000 * math.log(5000 / 12) / math.log(20000 / 12)   # the logarithmic taper
    assert abs(position - expected) <= 1, position
    osc.send("/rack/room", "cathedral")
    assert wait(lambda: browser.find_element(By.ID, "room").get_attribute("value") == "cathedral")
    # The room selector and a preset recall from the page.
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element(By.ID, "room")).select_by_value("plate")
    assert wait(lambda: osc.get("room") == "plate")
    Select(browser.find_element(By.ID, "preset")).select_by_value("Warm")
    browser.find_element(By.ID, "recall").click()
    assert wait(lambda: close_to(osc.get("cutoff"), 384))
    assert wait(lambda: browser.find_element(By.ID, "value-cutoff").text == "384 Hz")
    # Meters and status arrive.
    assert wait(lambda: browser.find_element(By.ID, "jack").text.startswith("JACK running"))
    # Everything came from rack itself.
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    origin = url.rsplit("/ui/", 1)[0]
    assert resources and all(r.startswith(origin) or r.startswith("ws://127.0.0.1") for r in resources), resources
    shot = os.environ.get("RACK_SCREENSHOT")
    if shot:
        osc.send("/rack/mix", 35.0)
        time.sleep(0.6)
        browser.set_window_size(412, 1100)
        time.sleep(0.3)
        browser.save_screenshot(shot)


def test_every_control_has_an_accessible_name_and_it_fits_a_phone(rack, osc, browser):
    open_page(browser, rack)
    unnamed = browser.execute_script("""
        return [...document.querySelectorAll('input, select, button, meter, output')]
          .filter(e => !(e.getAttribute('aria-label') || (e.labels && e.labels.length) || e.textContent.trim()))
          .map(e => e.outerHTML);""")
    assert unnamed == []
    faders = browser.find_elements(By.CSS_SELECTOR, "input[type=range]")
    # One fader per parameter that is not a choice (the rack's own table, /rack/params).
    ranged = {m.args[0] for m in osc.request_all("/rack/params") if m.args[5] != "choice"}
    assert {"cutoff", "resonance", "mix", "gain"} <= ranged
    assert {f.get_attribute("id") for f in faders} == {"fader-" + p for p in ranged}
    assert "(Hz)" in browser.find_element(By.ID, "fader-cutoff").get_attribute("aria-label")
    width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"horizontal scrolling on a 412 px wide screen: {width}"


def test_save_a_preset_from_the_page(rack, osc, browser):
    open_page(browser, rack)
    osc.send("/rack/mix", 22.0)
    browser.find_element(By.ID, "preset-name").send_keys("From The Page")
    browser.find_element(By.ID, "save").click()
    options = "return [...document.querySelectorAll('#preset option')].map(o => o.value)"
    assert wait(lambda: "From The Page" in browser.execute_script(options))
    assert "From The Page" in osc.request("/rack/preset/list").args
