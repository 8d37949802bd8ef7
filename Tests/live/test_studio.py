"""One studio view: two racks on two hosts (network namespaces joined by a veth
pair, each with its own avahi-daemon and system bus); Chromium on the first rack's page sees the
second appear under "Racks in this studio", follows its link to that rack's own page, and sees
it vanish when that rack stops; a rack run with --no-browse answers an empty list that says so. Both racks join one JACK server (the namespaces share /dev/shm,
where JACK's sockets live).

Chromium and its driver run inside the first host's namespace: every Selenium call is made on
one thread that entered it (a fork from that thread starts chromedriver there too).

Needs root (ip netns); skipped with one line otherwise.
"""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

import livelib
import netjacklib
from httplib import client
from livelib import wait_until
from netjacklib import DSP_ADDRESS, DSP_LINK, MASTER_ADDRESS, MASTER_LINK, NETNS_DIR

webdriver = client("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def _enter(namespace: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(NETNS_DIR / namespace, os.O_RDONLY)
    try:
        if libc.setns(fd, netjacklib.CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {namespace}")
    finally:
        os.close(fd)


@pytest.fixture
def studio(tmp_path):
    why = netjacklib.why_not()
    if why:
        pytest.skip(why)
    missing = netjacklib.avahi_missing()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (scripts/install-deps)")
    if not (CHROMIUM and DRIVER):
        pytest.skip("chromium and chromium-driver are not installed")
    (tmp_path / "host").mkdir()
    hosts = netjacklib.TwoHosts(tmp_path / "host")
    hosts.master_server = f"rack-studio-{os.getpid()}"
    a = netjacklib.NamespaceAvahi(tmp_path / "avahi-a", hosts.master_ns, MASTER_LINK, "studio-a")
    b = netjacklib.NamespaceAvahi(tmp_path / "avahi-b", hosts.dsp_ns, DSP_LINK, "studio-b")
    try:
        hosts.start_network()
        hosts.start_master(netmanager=False)
        a.start()
        b.start()
        yield hosts, a, b
    finally:
        b.stop()
        a.stop()
        hosts.stop()


def _rack(hosts, ns, address, avahi, rack_binary, xdg, name, *extra):
    env = livelib.jack_env(hosts.master_server, XDG_CONFIG_HOME=str(xdg),
                           DBUS_SYSTEM_BUS_ADDRESS=avahi.env["DBUS_SYSTEM_BUS_ADDRESS"])
    return livelib.RackProcess(
        hosts.command_in(ns, str(rack_binary), "run", "--name", name, "--osc-host", address, "--osc-port", "0",
                         "--http-host", address, "--http-port", "0", "--allow", MASTER_ADDRESS, "--no-midi", *extra)[1:],
        env, binary=netjacklib.nsenter(), subcommand=None).wait_ready(20)


def _browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update"]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(20)
    return driver


def _listed(driver) -> dict[str, tuple[str, str]]:
    """The page's list: name → (link, host line), read in one script: the page redraws the
    list when its browse answer changes, and elements found one call earlier may be gone (a
    clean-clone run failed on such a stale element)."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#racks li')).map(item => {"
        " const link = item.querySelector('a'), host = item.querySelector('.rack-host');"
        " return [link ? link.innerText : '', link ? link.href : '', host ? host.innerText : '']; });")
    return {name: (href, host) for name, href, host in rows}


def test_a_page_lists_the_other_rack_follows_its_link_and_sees_it_go(studio, rack_binary, tmp_path):
    hosts, avahi_a, avahi_b = studio
    there = ThreadPoolExecutor(max_workers=1, initializer=_enter, initargs=(hosts.master_ns,))
    run = lambda f, *args: there.submit(f, *args).result(60)   # noqa: E731
    first = second = driver = None
    try:
        first = _rack(hosts, hosts.master_ns, MASTER_ADDRESS, avahi_a, rack_binary, tmp_path, "front")
        second = _rack(hosts, hosts.dsp_ns, DSP_ADDRESS, avahi_b, rack_binary, tmp_path, "back")
        driver = run(_browser)
        page = f"http://{MASTER_ADDRESS}:{first.http_port}/ui/"
        run(driver.get, page)
        other = f"http://{DSP_ADDRESS}:{second.http_port}/ui/"
        assert wait_until(lambda: run(_listed, driver).get("back", ("",))[0] == other, 20, step=0.2), \
            (run(_listed, driver), first.describe(), second.describe())
        listed = run(_listed, driver)
        print(f"\nfront's page lists: {listed}")
        assert "front" not in listed, "a rack lists itself"
        assert listed["back"][1].startswith("studio-b.local"), listed
        # The JSON endpoint says the same.
        studio_json = run(lambda: json.load(urllib.request.urlopen(f"http://{MASTER_ADDRESS}:{first.http_port}/studio", timeout=5)))
        assert studio_json["browsing"] is True and studio_json["daemon"] is True and studio_json["capacity"] == 64
        assert [r["url"] for r in studio_json["racks"]] == [other], studio_json
        # Follow the link: the other rack's own page, live, and it lists the first rack.
        run(lambda: driver.execute_script(   # found and clicked in one step (the list may be redrawn)
            "Array.from(document.querySelectorAll('#racks li a')).find(a => a.innerText === 'back').click();"))
        assert wait_until(lambda: run(lambda: driver.current_url) == other, 10, step=0.1), run(lambda: driver.current_url)
        assert wait_until(lambda: run(lambda: driver.find_element(By.ID, "connection").text) == "connected", 10)
        assert run(lambda: driver.find_element(By.ID, "title").text) == "back"
        assert wait_until(lambda: "front" in run(_listed, driver), 20, step=0.2), run(_listed, driver)
        # --no-browse: the list is empty and says rack does not browse (the second rack is there).
        quiet = _rack(hosts, hosts.master_ns, MASTER_ADDRESS, avahi_a, rack_binary, tmp_path, "quiet", "--no-browse")
        try:
            quiet_json = run(lambda: json.load(urllib.request.urlopen(f"http://{MASTER_ADDRESS}:{quiet.http_port}/studio", timeout=5)))
            assert quiet_json == {"browsing": False, "daemon": False, "capacity": 64, "racks": []}, quiet_json
        finally:
            assert quiet.stop() == 0, quiet.describe()
        # Back on the first page: the second rack stops, and goes from the list.
        run(driver.get, page)
        assert wait_until(lambda: "back" in run(_listed, driver), 20, step=0.2)
        assert second.stop() == 0, second.describe()
        second = None
        assert wait_until(lambda: "back" not in run(_listed, driver), 15, step=0.2), run(_listed, driver)
        note = lambda: run(lambda: driver.find_element(By.ID, "racks-note").text)   # noqa: E731
        assert wait_until(lambda: note() == "no other rack found on the network yet", 10, step=0.2), note()
    finally:
        if driver is not None:
            run(driver.quit)
        there.shutdown()
        for r in (second, first):
            if r is not None:
                r.stop()
