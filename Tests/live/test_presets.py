"""Presets over OSC: recall (by name and index), save, list, delete, and names that are paths."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from livelib import close_to

FACTORY = ["Big Hall", "Bright", "Cathedral", "Dark Chamber", "Dry", "Prominent", "Small Room",
           "Vocal Plate", "Warm"]


def _wait(predicate, timeout=2.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _list(osc) -> list[str]:
    reply = osc.request("/rack/preset/list")
    assert reply is not None, "no /rack/preset/list reply"
    assert set(reply.tags) <= {"s"}, reply
    return reply.args


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_recall_warm(osc):
    osc.send("/rack/preset", "Warm")
    assert close_to(osc.get("cutoff"), 384)
    assert close_to(osc.get("resonance"), -3)
    assert close_to(osc.get("mix"), 40)
    reply = osc.request("/rack/get", "room", reply="/rack/room")
    assert reply is not None and reply.args == ["mediumHall"], reply


def test_recall_with_ramp(osc):
    osc.send("/rack/preset", "Bright", 0.5)
    assert close_to(osc.get("cutoff"), 14000) and close_to(osc.get("resonance"), 12)
    assert osc.collect(0.1) == []


def test_list_has_factory_presets(osc):
    names = _list(osc)
    for n in FACTORY:
        assert n in names, (n, names)
    assert len(names) == len(set(names)), names


def test_save_list_delete(osc, xdg):
    presets = xdg / "rack" / "presets"
    osc.send("/rack/cutoff", 1234.0)
    osc.send("/rack/resonance", 4.0)
    osc.send("/rack/mix", 20.0)
    osc.send("/rack/gain", -5.0, 2.0)  # a save stores targets, not where the ramp is now
    osc.send("/rack/room", "plate")
    assert close_to(osc.get("gain"), -5)
    osc.send("/rack/preset/save", "My Test")
    path = presets / "My Test.json"
    assert _wait(path.exists), f"{path} not written; XDG tree: {_files(xdg)}"
    data = json.loads(path.read_text())
    assert data["name"] == "My Test"
    for k, v in {"cutoff": 1234, "resonance": 4, "mix": 20, "gain": -5}.items():
        assert close_to(data[k], v), (k, data)
    assert data["room"] == "plate"
    assert "My Test" in _list(osc)
    assert not [f for f in _files(presets) if f != "My Test.json"], _files(presets)

    osc.send("/rack/preset", "Warm")
    assert close_to(osc.get("cutoff"), 384)
    osc.send("/rack/preset", "My Test")
    assert close_to(osc.get("cutoff"), 1234) and close_to(osc.get("gain"), -5)

    osc.send("/rack/preset/delete", "My Test")
    assert _wait(lambda: not path.exists()), "preset file not deleted"
    assert "My Test" not in _list(osc)
    assert osc.expect_error("/rack/preset", "My Test") is not None, "recall of a deleted preset"


def test_delete_missing_and_factory_report_errors(osc):
    assert osc.expect_error("/rack/preset/delete", "Never Saved") is not None
    err = osc.expect_error("/rack/preset/delete", "Warm")  # a factory preset is not a user file
    assert err is not None, "deleting a factory preset reported no error"
    assert err.args[0] == "/rack/preset/delete" and "factory" in err.args[1], err
    assert "Warm" in _list(osc)


@pytest.mark.parametrize("name", ["../x", "/tmp/x", "a/b", "", ".hidden", "x" * 65, "a\\b", "..",
                                  "bad:name"])
def test_path_like_names_are_refused(osc, xdg, tmp_path, name):
    name = name.replace("/tmp/x", f"{tmp_path}/outside")
    before = _files(tmp_path)
    err = osc.expect_error("/rack/preset/save", name)
    assert err is not None, f"save {name!r} not refused"
    assert err.args[0] == "/rack/preset/save", err
    time.sleep(0.1)
    assert _files(tmp_path) == before, f"files appeared: {_files(tmp_path) - before}"
    assert osc.expect_error("/rack/preset/delete", name) is not None, f"delete {name!r} not refused"


def test_path_names_never_write_outside(osc, xdg):
    marker = f"racktest-{os.getpid()}"
    outside = Path("/tmp") / marker
    assert not outside.exists() and not Path(f"/tmp/{marker}.json").exists()
    assert osc.expect_error("/rack/preset/save", f"/tmp/{marker}") is not None
    assert osc.expect_error("/rack/preset/save", f"../../../../../../tmp/{marker}") is not None
    time.sleep(0.1)
    assert not outside.exists() and not Path(f"/tmp/{marker}.json").exists()


def test_valid_edge_names(osc, xdg):
    presets = xdg / "rack" / "presets"
    for name in ["a", "9 lives_-x", "y" * 64]:
        osc.send("/rack/preset/save", name)
        assert _wait((presets / f"{name}.json").exists), name
    names = _list(osc)
    assert {"a", "9 lives_-x", "y" * 64} <= set(names)


def test_recall_by_index(osc):
    names = _list(osc)
    # the index is the position in the /rack/preset/list reply, from 0
    for idx in (names.index("Warm"), names.index("Bright"), 0):
        osc.send("/rack/preset", idx)
        dump = {m.address: m.args[0] for m in osc.request_all("/rack/dump")}
        assert dump.get("/rack/preset") == names[idx], (idx, names, dump)
    osc.send("/rack/preset", names.index("Warm"))
    assert close_to(osc.get("cutoff"), 384)
    assert osc.expect_error("/rack/preset", len(names)) is not None
    assert osc.expect_error("/rack/preset", -1) is not None
