"use strict";
function fillSelect(select, values, current) {
  const keep = current ?? select.value;
  select.textContent = "";
  for (const v of values) select.append(element("option", { value: v, textContent: v }));
  if (values.includes(keep)) select.value = keep;
}

/** The last part of a path: what a user calls the file. */
function baseName(path) { return path.split("/").pop(); }

function showMeter(id, db) {
  $(id).value = Math.max(-60, db);
  $(id + "-text").value = db <= -120 ? "−∞" : db.toFixed(1).replace("-", "−");
}

/** The addresses the panels send and listen to, from the namespace (`buildPanels`). */
const panelPaths = {};

function showPreset(args) { if (args[0]) $("preset").value = args[0]; }
function showPresetList(args) { fillSelect($("preset"), args.filter(a => typeof a === "string")); }
function showMeters(args) {
  showMeter("peak-l", args[0]); showMeter("peak-r", args[1]);
  showMeter("rms-l", args[2]); showMeter("rms-r", args[3]);
  $("dsp").value = args[4].toFixed(1) + " %";
  $("xruns").value = String(args[5]);
}
function showStatus(args) {
  $("position").value = args[4].toFixed(1) + " s";
  $("jack").value = "JACK " + args[5] + " · " + args[0] + " Hz · " + args[1] + " frames";
  $("jack").className = args[5] === "running" ? "" : "warn";
  if (args[7]) note($("note-player"), args[7], "error");
}
function showPlayerState(args) {
  const [file, playing, looping] = args;
  $("loop").checked = looping === 1;
  $("transport").value = (playing ? "▶ playing " : "■ stopped ") + (file ? baseName(file) : "(no file)");
  $("play").setAttribute("aria-pressed", String(playing === 1));
  $("stop").setAttribute("aria-pressed", String(playing !== 1));
}
function showMedia(args) {
  const files = args.filter(a => typeof a === "string");
  const select = $("media");
  select.textContent = "";
  for (const f of files) select.append(element("option", { value: f, textContent: baseName(f), title: f }));
  select.disabled = $("load").disabled = files.length === 0;
  if (files.length === 0) note($("note-player"), "start rack with --media-dir DIR to load files from here");
}

/** The panels' addresses from the namespace's /rack node, their handlers, and what they listen to. */
function buildPanels(rack) {
  const preset = rack.CONTENTS.preset, player = rack.CONTENTS.player.CONTENTS;
  Object.assign(panelPaths, {
    preset: preset.FULL_PATH, presetList: preset.CONTENTS.list.FULL_PATH, presetSave: preset.CONTENTS.save.FULL_PATH,
    presetDelete: preset.CONTENTS.delete.FULL_PATH, meter: rack.CONTENTS.meter.FULL_PATH, status: rack.CONTENTS.status.FULL_PATH,
    playerState: player.state.FULL_PATH, playerMedia: player.media.FULL_PATH, play: player.play.FULL_PATH,
    stop: player.stop.FULL_PATH, loop: player.loop.FULL_PATH, load: player.load.FULL_PATH,
  });
  const shown = { preset: showPreset, presetList: showPresetList, meter: showMeters, status: showStatus, playerState: showPlayerState };
  for (const [key, show] of Object.entries(shown)) {
    handlers[panelPaths[key]] = show;
    listen(panelPaths[key]);
  }
  handlers[panelPaths.playerMedia] = showMedia;
  fillSelect($("preset"), preset.RANGE[0].VALS);
}
builders.push(buildPanels);
connectedHooks.push(() => send(panelPaths.playerMedia));

function savePreset() {
  const name = $("preset-name").value.trim();
  if (!name) { note($("note-save"), "give the preset a name first", "error"); return; }
  const entry = act(panelPaths.presetSave, [["s", name]], $("note-save"), "saved “" + name + "”");
  if (entry) entry.onDone = () => { $("preset").value = name; };
}

function askDelete() {
  const name = $("preset").value;
  if (!name) return;
  $("delete-question").textContent = "Delete the preset “" + name + "”?";
  $("delete-confirm").hidden = false;
  $("delete-yes").focus();
}

function confirmDelete() {
  $("delete-confirm").hidden = true;
  const name = $("preset").value;
  act(panelPaths.presetDelete, [["s", name]], $("note-preset"), "deleted “" + name + "”");
}

document.addEventListener("DOMContentLoaded", () => {
  $("recall").addEventListener("click", () => {
    const name = $("preset").value;
    if (name) act(panelPaths.preset, [["s", name]], $("note-preset"), "recalled “" + name + "”");
  });
  $("save").addEventListener("click", savePreset);
  $("preset-name").addEventListener("keydown", e => { if (e.key === "Enter") savePreset(); });
  $("delete").addEventListener("click", askDelete);
  $("delete-yes").addEventListener("click", confirmDelete);
  $("delete-no").addEventListener("click", () => { $("delete-confirm").hidden = true; });
  $("play").addEventListener("click", () => act(panelPaths.play, [], $("note-player")));
  $("stop").addEventListener("click", () => act(panelPaths.stop, [], $("note-player")));
  $("loop").addEventListener("change", () => act(panelPaths.loop, [["i", $("loop").checked ? 1 : 0]], $("note-player")));
  $("load").addEventListener("click", () => {
    const path = $("media").value;
    if (path) act(panelPaths.load, [["s", path]], $("note-player"), "loading " + baseName(path));
  });
});