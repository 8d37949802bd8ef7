"use strict";
/** Steps of a fader: the 0…1 control position in thousandths. */
const STEPS = 1000;
/** After the user moves a fader, pushes for it are not applied for this long (ms), so the
    echo of an older position never pulls the knob back under the finger. */
const HOLD_MS = 400;
/** The controls by parameter name. */
const controls = {};

/** Numbers the way rack prints them: short, with the unit. */
function format(value, unit) {
  let text;
  if (unit === "Hz" && value >= 1000) text = (value / 1000).toFixed(value >= 10000 ? 1 : 2) + " kHz";
  else text = (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(1)) + (unit ? " " + unit : "");
  return text.replace("-", "−");
}

function element(tag, props, ...children) {
  const e = Object.assign(document.createElement(tag), props || {});
  e.append(...children);
  return e;
}

/** The section of a group, made when first needed (in the order the namespace lists them). */
function groupSection(group) {
  let section = $("group-" + group);
  if (section) return section;
  section = element("section", { id: "group-" + group, className: "group" });
  section.setAttribute("aria-labelledby", "h-" + group);
  section.append(element("h2", { id: "h-" + group, textContent: group }));
  $("groups").append(section);
  return section;
}

function unitOf(node) {
  return (node.UNIT && node.UNIT[0] || "").replace("time.hz", "Hz").replace("gain.db", "dB").replace("name", "");
}

/** A row: label, the control, the value and a note for errors about it. */
function controlRow(name, node, control, value) {
  control.id = "control-" + name;
  const note = element("span", { id: "note-" + name, className: "note" });
  note.dataset.noteFor = node.FULL_PATH;
  note.setAttribute("role", "status");
  const row = element("div", { className: "control" }, element("label", { htmlFor: control.id, textContent: name }), control);
  if (value) row.append(value);
  row.append(note);
  return row;
}

function buildFader(name, node) {
  const unit = unitOf(node);
  const input = element("input", { type: "range", min: 0, max: STEPS, step: 1 });
  input.setAttribute("aria-label", name + (unit ? " (" + unit + ")" : ""));
  const out = element("output", { id: "value-" + name });
  const c = { kind: "fader", name, unit, input, out, heldUntil: 0, pending: null };
  input.addEventListener("input", () => {
    c.heldUntil = performance.now() + HOLD_MS;
    c.pending = input.value / STEPS;
    requestAnimationFrame(() => {
      if (c.pending === null) return;
      send(node.FULL_PATH + "/norm", ["f", c.pending]);
      c.pending = null;
    });
  });
  controls[name] = c;
  const row = controlRow(name, node, input, out);
  out.htmlFor = input.id;
  return row;
}

function buildToggle(name, node) {
  const input = element("input", { type: "checkbox" });
  input.setAttribute("aria-label", name);
  input.addEventListener("change", () => send(node.FULL_PATH + "/norm", ["f", input.checked ? 1 : 0]));
  controls[name] = { kind: "toggle", name, input };
  return controlRow(name, node, input, null);
}

function buildChoice(name, node) {
  const select = element("select");
  select.setAttribute("aria-label", name);
  for (const v of node.RANGE[0].VALS) select.append(element("option", { value: v, textContent: v }));
  select.addEventListener("change", () => send(node.FULL_PATH, ["s", select.value]));
  controls[name] = { kind: "choice", name, input: select };
  return controlRow(name, node, select, null);
}

/** The parameter sections and their pictures, from the namespace's /rack node. */
function buildControls(rack, pictures) {
  $("groups").textContent = "";
  for (const key of Object.keys(controls)) delete controls[key];
  for (const [name, node] of Object.entries(rack.CONTENTS)) {
    if (!node.GROUP || node.ACCESS !== 3) continue;
    const tags = node.TAGS || [];
    const row = tags.includes("toggle") ? buildToggle(name, node)
      : tags.includes("choice") ? buildChoice(name, node) : buildFader(name, node);
    groupSection(node.GROUP).append(row);
    listen(node.FULL_PATH);
    if (!tags.includes("choice")) listen(node.FULL_PATH + "/norm");
    handlers[node.FULL_PATH] = args => showValue(name, args[0]);
    handlers[node.FULL_PATH + "/norm"] = args => showPosition(name, args[0]);
  }
  buildPictures(pictures);
}

/** The value rack holds, as rack pushed it. */
function showValue(name, value) {
  const c = controls[name];
  if (!c) return;
  if (c.kind === "choice") { c.input.value = value; return; }
  if (c.kind !== "fader" || typeof value !== "number") return;
  c.out.value = format(value, c.unit);
  c.input.setAttribute("aria-valuetext", c.out.value);
}

/** The 0…1 control position rack pushed: the knob follows unless the user is holding it. */
function showPosition(name, position) {
  const c = controls[name];
  if (!c || typeof position !== "number") return;
  if (c.kind === "toggle") c.input.checked = position >= 0.5;
  else if (c.kind === "fader" && performance.now() >= c.heldUntil) c.input.value = Math.round(position * STEPS);
}

/** Each picture in its group's section. rack draws a picture off its event loop whenever what
    it is drawn from changes, and pushes its version (`i`, with the seconds it took) at the
    picture's version address; the page then asks for it: one request at a time, the latest
    version last. The image tells the version it shows in `data-version`. */
function buildPictures(pictures) {
  for (const p of pictures) {
    const img = element("img", { id: "picture-" + p.name, alt: p.title, className: "picture" });
    img.width = 1000; img.height = 600;   // room kept before the first drawing arrives
    const state = { wanted: 0, requested: 0, loading: false };
    const refresh = () => {
      if (state.loading || state.wanted === state.requested) return;
      state.loading = true;
      state.requested = state.wanted;
      img.src = p.url + "?v=" + state.requested;
    };
    const settled = ok => {
      state.loading = false;
      if (ok) img.dataset.version = String(state.requested);
      refresh();
    };
    img.addEventListener("load", () => settled(true));
    img.addEventListener("error", () => settled(false));
    groupSection(p.group).append(element("figure", {}, img));
    listen(p.version);
    handlers[p.version] = args => {
      if (typeof args[0] !== "number" || args[0] === state.wanted) return;
      state.wanted = args[0];
      refresh();
    };
  }
}

builders.push(buildControls);