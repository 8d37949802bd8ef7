"""Text only, no JACK: what the documentation shows of a generated or committed file is that
file's: the man page's title line names the release `rack --version` prints; the preset
docs/presets.md shows is `Presets/Warm.json`, and names the parameters that file leaves out;
docs/plugins.md names the plugin's control inputs in rack.ttl's order, and calls toggles exactly
those that are `lv2:toggled` there; the package docs/command-line.md names for PNG plots is the
one rack's error names when `rsvg-convert` is missing, and `scripts/demo` leaves it out."""
from __future__ import annotations

import json
import re
import subprocess

import livelib


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_man_page_names_the_release_rack_prints(rack_binary):
    version = subprocess.run([str(rack_binary), "--version"], capture_output=True, text=True, timeout=30).stdout.split()[:2]
    title = (livelib.REPO / "share" / "man" / "man1" / "rack.1").read_text().splitlines()[0]
    assert version[0] == "rack" and title == f'.TH RACK 1 "" "{" ".join(version)}" "User Commands"', (title, version)


def test_the_presets_doc_shows_warm_json_and_names_what_it_leaves_out():
    blocks = [b for b in livelib.code_blocks() if b.file == "docs/presets.md" and b.language == "json"]
    assert len(blocks) == 1, blocks
    warm = json.loads((livelib.REPO / "Presets" / "Warm.json").read_text())
    assert json.loads("\n".join(blocks[0].lines)) == warm
    # the parameters it leaves out (of the plugin's control inputs, the table's) are those the doc names
    left_out = re.search(r"it leaves out `(\w+)`", flat(livelib.documentation("docs/presets.md")))
    assert left_out and {left_out.group(1)} == set(control_inputs()) - set(warm), set(control_inputs()) - set(warm)


def control_inputs() -> dict[str, bool]:
    """rack.ttl's control inputs in index order: {symbol: lv2:toggled}."""
    ttl = (livelib.REPO / "share" / "lv2" / "rack.lv2" / "rack.ttl").read_text()
    ports = []
    for body in re.findall(r"a lv2:InputPort , lv2:ControlPort ;(.*?)\]", ttl, re.S):
        index = int(re.search(r"lv2:index (\d+)", body).group(1))
        ports.append((index, re.search(r'lv2:symbol "(\w+)"', body).group(1), "lv2:toggled" in body))
    return {symbol: toggled for _, symbol, toggled in sorted(ports)}


def test_the_plugin_doc_names_every_control_input_and_its_toggles():
    text = flat(livelib.documentation("docs/plugins.md"))
    named = re.search(r"one control input per parameter in table order \(`([^`]+)`\)", text)
    toggles = re.search(r"`(\w+)` and `(\w+)` are toggles \(`lv2:toggled`", text)
    assert named and toggles, "docs/plugins.md's Ports no longer names the inputs and the toggles"
    inputs = control_inputs()
    assert named.group(1).split() == list(inputs)
    assert set(toggles.groups()) == {symbol for symbol, toggled in inputs.items() if toggled}


def test_the_plot_row_names_the_package_png_needs_which_the_demo_leaves_out(rack_binary, tmp_path):
    row = re.search(r"PNG goes through `rsvg-convert` \(`apt-get install (\S+)`: `scripts/demo` does not install it; "
                    r"without it, exit (\d+) with that hint\)", flat(livelib.documentation("docs/command-line.md")))
    assert row, "docs/command-line.md's plot row no longer names what PNG needs"
    package, status = row.group(1), int(row.group(2))
    demo = subprocess.run([str(livelib.REPO / "scripts" / "install-deps"), "--demo", "--list"], capture_output=True,
                          text=True, timeout=30)
    assert demo.returncode == 0 and demo.stdout.split() and package not in demo.stdout.split(), demo.stdout
    empty = tmp_path / "bin"
    empty.mkdir()
    done = subprocess.run([str(rack_binary), "plot", str(livelib.REPO / "Examples" / "session.txt"), "-o", str(tmp_path / "x.png")],
                          capture_output=True, text=True, timeout=60, env={"PATH": str(empty)})
    assert done.returncode == status and f"install {package}" in done.stderr and not (tmp_path / "x.png").exists(), done.stderr
