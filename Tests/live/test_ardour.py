"""rack.lv2 in Ardour 7 (Debian's `ardour` 7.3), headless: its Lua session tool `ardour7-lua` on
the JACK backend against a private JACK server creates a session with a stereo track, inserts
`urn:rack:lv2` into it (Ardour's plugin name is the plugin's doap:name, and it lists its ports
as 21 parameters: 4 audio, 14 controls, 3 meters), sets a control and reads it back, saves the session,
and finds no plugin for a wrong URI.

Not tested: an imported region rendered through the track and exported, against `rack render`.
What stops it headless: ardour7-lua 7.3 binds no import (`Session.import_files` and
`Session.import_sndfile_as_region` are nil there; the one import Lua has is the editor's
`Editor:do_import`, which needs Ardour's window). Its `Session:simple_export` is bound.

Skipped when ardour7-lua is not installed (scripts/install-deps)."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import livelib
from test_lv2 import METERS, URI, bundle, host_env, plugin_name, table  # noqa: F401 (bundle, table: fixtures)

pytestmark = pytest.mark.skipif(shutil.which("ardour7-lua") is None,
                                reason="Ardour's Lua session tool missing (scripts/install-deps: ardour)")

SCRIPT = """
AudioEngine:set_backend("JACK", "", "")
assert(AudioEngine:start(false) == 0, "the JACK backend did not start")
local s = create_session("%(dir)s", "rack", 48000)
assert(s, "no session")
local track = Session:new_audio_track(2, 2, nil, 1, "rack", -1, ARDOUR.TrackMode.Normal, true):front()
for _, uri in ipairs({"%(uri)s", "urn:rack:nothing"}) do
  local p = ARDOUR.LuaAPI.new_plugin(Session, uri, ARDOUR.PluginType.LV2, "")
  if p:isnil() then
    print("none " .. uri)
  else
    assert(track:add_processor_by_index(p, 0, nil, true) == 0, "not inserted")
    local plugin = p:to_plugininsert():plugin(0)
    print("name " .. plugin:name())
    print("parameters " .. plugin:parameter_count())
    assert(ARDOUR.LuaAPI.set_processor_param(p, 0, 800), "not set")
    print("control0 " .. ARDOUR.LuaAPI.get_processor_param(p, 0, true))
  end
end
print("save " .. Session:save_state("", false, false, false, false, false))
"""


def test_ardour_loads_rack_into_a_stereo_track(bundle, table, tmp_path):
    server = f"rack-ardour-{os.getpid()}"
    pid = livelib.start_jack(server, 48000, 256)
    try:
        script = tmp_path / "session.lua"
        script.write_text(SCRIPT % {"dir": tmp_path / "session", "uri": URI})
        out = subprocess.run(["ardour7-lua", str(script)], capture_output=True, text=True, timeout=120,
                             env=host_env(bundle, JACK_DEFAULT_SERVER=server, JACK_NO_START_SERVER="1"))
    finally:
        livelib.stop_jack(pid)
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.split(" ", 1)[0]
                 in ("name", "parameters", "control0", "none", "save"))
    print(lines)
    assert out.returncode == 0, out.stdout + out.stderr
    assert lines.get("name") == plugin_name(bundle), out.stdout
    assert lines.get("parameters") == str(4 + len(table) + len(METERS)), out.stdout   # audio, controls, meters
    assert float(lines.get("control0", "nan")) == 800, out.stdout
    assert lines.get("none") == "urn:rack:nothing", out.stdout
    assert lines.get("save") == "0", out.stdout
    assert "urn:rack:lv2" in (tmp_path / "session" / "rack.ardour").read_text(), "the session names the plugin"
