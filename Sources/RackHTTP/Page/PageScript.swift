/// The page's behaviour: builds the faders from the OSCQuery namespace, sends every move as OSC
/// over the WebSocket, and follows the values rack pushes (changes made anywhere).
let pageScript = #"""
"use strict";
const $ = id => document.getElementById(id);
/** Steps of a fader: the 0…1 control position in thousandths. */
const STEPS = 1000;
/** After the user moves a fader, pushes for it are not applied for this long (ms), so the
    echo of an older value never pulls the knob back under the finger. */
const HOLD_MS = 400;
const faders = {};
let socket = null;
let namespace = null;

function send(address, ...args) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(OSC.encode(address, args));
}

function listen(path) {
  socket.send(JSON.stringify({ COMMAND: "LISTEN", DATA: path }));
}

/** Numbers the way rack prints them: short, with the unit. */
function format(value, unit) {
  let text;
  if (unit === "Hz" && value >= 1000) text = (value / 1000).toFixed(value >= 10000 ? 1 : 2) + " kHz";
  else text = (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(1)) + " " + unit;
  return text.replace("-", "−");
}

/** A fader's 0…1 position for a value, and back, through the parameter's taper (rack tags
    each parameter with it: a logarithmic cutoff moves by equal ratios per step). */
function position(f, value) {
  const t = f.log ? Math.log(value / f.min) / Math.log(f.max / f.min) : (value - f.min) / (f.max - f.min);
  return Math.min(1, Math.max(0, t));
}
function valueAt(f, t) {
  return f.log ? f.min * Math.pow(f.max / f.min, t) : f.min + (f.max - f.min) * t;
}

/** One fader per numeric parameter of the namespace: range, unit and taper from rack. */
function buildFaders(rack) {
  const box = $("faders");
  box.textContent = "";
  for (const [name, node] of Object.entries(rack.CONTENTS)) {
    if (node.TYPE !== "f" || node.ACCESS !== 3 || !node.RANGE) continue;
    const unit = (node.UNIT && node.UNIT[0] || "").replace("time.hz", "Hz").replace("gain.db", "dB");
    const row = document.createElement("div");
    row.className = "fader";
    const label = document.createElement("label");
    label.htmlFor = "fader-" + name;
    label.textContent = name;
    const input = document.createElement("input");
    input.type = "range";
    input.id = "fader-" + name;
    input.min = 0; input.max = STEPS; input.step = 1;
    input.setAttribute("aria-label", name + " (" + unit + ")");
    const out = document.createElement("output");
    out.htmlFor = input.id;
    out.id = "value-" + name;
    row.append(label, input, out);
    box.append(row);
    const f = { name, unit, input, out, heldUntil: 0, pending: null, min: node.RANGE[0].MIN, max: node.RANGE[0].MAX,
                log: (node.TAGS || []).includes("logarithmic") };
    faders[name] = f;
    input.addEventListener("input", () => {
      f.heldUntil = performance.now() + HOLD_MS;
      f.pending = valueAt(f, input.value / STEPS);
      showValue(name, f.pending, true);
      requestAnimationFrame(() => {
        if (f.pending === null) return;
        send(node.FULL_PATH, ["f", f.pending]);
        f.pending = null;
      });
    });
    if (node.VALUE) showValue(name, node.VALUE[0]);
  }
}

/** Shows a parameter's value; moves the knob too unless the user is holding it. */
function showValue(name, value, fromUser) {
  const f = faders[name];
  if (!f || typeof value !== "number") return;
  f.out.value = format(value, f.unit);
  f.input.setAttribute("aria-valuetext", f.out.value);
  if (!fromUser && performance.now() >= f.heldUntil) f.input.value = Math.round(position(f, value) * STEPS);
}

function fillSelect(select, values, current) {
  const keep = current ?? select.value;
  select.textContent = "";
  for (const v of values) {
    const o = document.createElement("option");
    o.value = o.textContent = v;
    select.append(o);
  }
  if (values.includes(keep)) select.value = keep;
}

async function loadPresets() {
  const r = await fetch("/rack/preset", { cache: "no-store" });
  if (!r.ok) return;
  const node = await r.json();
  fillSelect($("preset"), node.RANGE[0].VALS);
}

function showMeter(id, db) {
  $(id).value = Math.max(-60, db);
  $(id + "-text").value = db <= -120 ? "−∞" : db.toFixed(1).replace("-", "−");
}

/** A message from rack: a pushed value, or a reply to something this page sent. */
function received(message) {
  const { address, args } = message;
  const parts = address.split("/");
  if (parts.length === 3 && parts[1] === "rack" && faders[parts[2]]) {
    showValue(parts[2], args[0]);
    return;
  }
  switch (address) {
    case "/rack/room": $("room").value = args[0]; break;
    case "/rack/preset": if (args[0]) $("preset").value = args[0]; break;
    case "/rack/meter":
      showMeter("peak-l", args[0]); showMeter("peak-r", args[1]);
      showMeter("rms-l", args[2]); showMeter("rms-r", args[3]);
      $("dsp").value = args[4].toFixed(1) + " %";
      $("xruns").value = String(args[5]);
      break;
    case "/rack/status":
      $("position").value = args[4].toFixed(1) + " s";
      $("jack").value = "JACK " + args[5] + " · " + args[0] + " Hz · " + args[1] + " frames";
      if (args[7]) $("message").textContent = "/rack/player: " + args[7];
      break;
    case "/rack/error": $("message").textContent = (args[0] ? args[0] + ": " : "") + args[1]; break;
  }
}

function connect() {
  socket = new WebSocket("ws://" + location.host + "/");
  socket.binaryType = "arraybuffer";
  socket.addEventListener("open", () => {
    $("connection").textContent = "connected";
    $("connection").className = "live";
    for (const name of Object.keys(faders)) listen("/rack/" + name);
    for (const path of ["/rack/room", "/rack/preset", "/rack/meter", "/rack/status"]) listen(path);
  });
  socket.addEventListener("message", event => {
    if (typeof event.data === "string") return;
    const m = OSC.decode(event.data);
    if (m) received(m);
  });
  socket.addEventListener("close", () => {
    $("connection").textContent = "disconnected, retrying…";
    $("connection").className = "";
    setTimeout(connect, 1000);
  });
}

async function start() {
  const r = await fetch("/", { cache: "no-store" });
  namespace = await r.json();
  const rack = namespace.CONTENTS.rack;
  const info = await (await fetch("/?HOST_INFO", { cache: "no-store" })).json();
  $("title").textContent = info.NAME || "rack";
  document.title = info.NAME || "rack";
  buildFaders(rack);
  fillSelect($("room"), rack.CONTENTS.room.RANGE[0].VALS, rack.CONTENTS.room.VALUE[0]);
  fillSelect($("preset"), rack.CONTENTS.preset.RANGE[0].VALS);
  $("room").addEventListener("change", () => send("/rack/room", ["s", $("room").value]));
  $("recall").addEventListener("click", () => { if ($("preset").value) send("/rack/preset", ["s", $("preset").value]); });
  $("save").addEventListener("click", () => {
    const name = $("preset-name").value.trim();
    if (!name) { $("message").textContent = "give the preset a name first"; return; }
    $("message").textContent = "";
    send("/rack/preset/save", ["s", name]);
    setTimeout(loadPresets, 300);
  });
  $("play").addEventListener("click", () => send("/rack/player/play"));
  $("stop").addEventListener("click", () => send("/rack/player/stop"));
  $("loop").addEventListener("change", () => send("/rack/player/loop", ["i", $("loop").checked ? 1 : 0]));
  connect();
}

start().catch(e => { $("message").textContent = "cannot load the namespace: " + e; });
"""#
