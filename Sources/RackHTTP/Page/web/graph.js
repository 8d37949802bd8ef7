"use strict";
/** The filter's response as a control: the low-pass magnitude drawn live from the filter's own
    formula (FilterResponse.magnitudeDecibels in rack, the curve of `rack plot --response`), on
    the same axes, with a handle at (cutoff, resonance). Dragging it (mouse, finger or pen) sends
    /rack/cutoff and /rack/resonance without a ramp (rack's default ramp, as the faders), at most
    one of each per animation frame and always the last position; arrow keys move it; a double
    click or tap returns both to their defaults. Changes from anywhere move it when rack pushes
    them. The facts that are rack's own (axes, the highest cutoff, defaults) come from
    /ui/graphs.json, the ranges from the namespace, the sample rate from /rack/status. */
const Graph = (() => {
  const NS = "http://www.w3.org/2000/svg";
  /** Room around the plot for the labels, CSS px. */
  const MARGIN = { left: 58, right: 16, top: 12, bottom: 30 };
  /** Height as a share of the width, and its bounds (CSS px). */
  const ASPECT = 0.6, MIN_HEIGHT = 220, MAX_HEIGHT = 380;
  /** Narrower plots (CSS px) label only the decades. */
  const FEW_LABELS_BELOW = 420;
  /** Arrow keys: left/right move the cutoff by 1/KEY_STEPS of its range's ratio, up/down the
      resonance by KEY_DB dB. */
  const KEY_STEPS = 100, KEY_DB = 0.5;
  /** Two presses this close in time (ms) and space (CSS px) are a double tap. */
  const DOUBLE_TAP_MS = 350, DOUBLE_TAP_PX = 24;
  /** Curve points: one per this many CSS px. */
  const PX_PER_POINT = 2;

  let facts = null, svg = null, parts = null, size = null;
  /** What is shown, what rack pushed last, and the ranges from the namespace. */
  const state = { cutoff: NaN, resonance: NaN, rate: NaN, pushed: {}, range: {}, address: {}, dragging: null,
                  heldUntil: 0, holdTimer: 0, pending: null, sent: {}, frame: 0, lastTap: null };

  /** |H(f)| in dB of rack's low-pass: the SVF's 1/(s² + s/Q + 1) through the bilinear transform
      prewarped at the cutoff, Q = 10^(resonance/20); the cutoff limited below Nyquist as the
      kernel limits it. */
  function lowPassDb(f, cutoff, resonance, rate) {
    const fc = Math.min(Math.max(cutoff, 1), facts.response.highestCutoffRatio * rate);
    const w = Math.tan(Math.PI * f / rate) / Math.tan(Math.PI * fc / rate);
    const k = Math.pow(10, -resonance / 20);
    return -10 * Math.log10((1 - w * w) * (1 - w * w) + (w * k) * (w * k));
  }

  const r = () => facts.response;
  function x(f) { return size.left + (size.right - size.left) * Math.log(f / r().minimumFrequency) / Math.log(r().maximumFrequency / r().minimumFrequency); }
  function y(db) { return size.bottom - (size.bottom - size.top) * (db - r().minimumDecibels) / (r().maximumDecibels - r().minimumDecibels); }
  function frequencyAt(px) { return r().minimumFrequency * Math.pow(r().maximumFrequency / r().minimumFrequency, (px - size.left) / (size.right - size.left)); }
  function decibelsAt(py) { return r().minimumDecibels + (r().maximumDecibels - r().minimumDecibels) * (size.bottom - py) / (size.bottom - size.top); }
  const clamp = (v, range) => Math.min(range.max, Math.max(range.min, v));

  function make(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.append(e);
    return e;
  }

  function label(text) {
    return text >= 1000 ? text / 1000 + "k" : String(text);
  }

  /** Frame, grid and labels for the current size. */
  function drawGrid() {
    const g = parts.grid;
    g.textContent = "";
    make("rect", { width: size.width, height: size.height, rx: 6, class: "graph-back" }, g);
    make("rect", { x: size.left, y: size.top, width: size.right - size.left, height: size.bottom - size.top, class: "graph-frame" }, g);
    for (const k of ["x", "y", "width", "height"]) parts.clip.setAttribute(k, g.lastChild.getAttribute(k));
    const mantissas = size.right - size.left < FEW_LABELS_BELOW ? [1] : [1, 2, 5];
    for (let decade = 1; decade <= r().maximumFrequency; decade *= 10) {
      for (let m = 1; m < 10; m++) {
        const f = m * decade;
        if (f < r().minimumFrequency || f > r().maximumFrequency) continue;
        const major = mantissas.includes(m);
        make("line", { x1: x(f), x2: x(f), y1: size.top, y2: size.bottom, class: major ? "graph-grid major" : "graph-grid" }, g);
        if (major) make("text", { x: x(f), y: size.bottom + 18, "text-anchor": "middle", class: "graph-text" }, g).textContent = label(f);
      }
    }
    for (let db = Math.ceil(r().minimumDecibels / 10) * 10; db <= r().maximumDecibels; db += 10) {
      make("line", { x1: size.left, x2: size.right, y1: y(db), y2: y(db), class: db === 0 ? "graph-grid zero" : "graph-grid major" }, g);
      make("text", { x: size.left - 6, y: y(db) + 4, "text-anchor": "end", class: "graph-text" }, g).textContent = (db > 0 ? "+" : "") + String(db).replace("-", "−") + " dB";
    }
  }

  /** The curve and the handle for what is shown now. */
  function drawCurve() {
    const { cutoff, resonance, rate } = state;
    if (!size || !Number.isFinite(cutoff + resonance + rate)) return;
    const top = Math.min(r().maximumFrequency, 0.499 * rate);
    const count = Math.max(2, Math.round((size.right - size.left) / PX_PER_POINT));
    let d = "", peak = { f: 0, db: -Infinity };
    for (let i = 0; i <= count; i++) {
      const f = r().minimumFrequency * Math.pow(top / r().minimumFrequency, i / count);
      const db = lowPassDb(f, cutoff, resonance, rate);
      if (db > peak.db) peak = { f, db };
      d += (i ? " L" : "M") + x(f).toFixed(2) + " " + y(Math.max(r().minimumDecibels - 20, db)).toFixed(2);
    }
    parts.curve.setAttribute("d", d);
    parts.curve.dataset.peakHz = peak.f.toPrecision(6);
    parts.curve.dataset.peakDb = peak.db.toFixed(3);
    const hx = x(cutoff), hy = y(clamp(resonance, { min: r().minimumDecibels, max: r().maximumDecibels }));
    parts.handle.setAttribute("transform", `translate(${hx.toFixed(2)} ${hy.toFixed(2)})`);
    parts.marker.setAttribute("x1", hx); parts.marker.setAttribute("x2", hx);
    const text = "cutoff " + format(cutoff, "Hz") + ", resonance " + (resonance > 0 ? "+" : "") + format(resonance, "dB");
    parts.handle.setAttribute("aria-valuenow", cutoff.toFixed(1));
    parts.handle.setAttribute("aria-valuetext", text);
    parts.readout.textContent = text;
    svg.dataset.cutoff = String(cutoff);
    svg.dataset.resonance = String(resonance);
  }

  /** Sizes the drawing to its box in CSS px (1 unit = 1 px, so text keeps its CSS size). */
  function layout() {
    const width = Math.max(1, Math.round(svg.parentElement.clientWidth));
    const height = Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, width * ASPECT)));
    if (size && size.width === width && size.height === height) return;
    size = { width, height, left: MARGIN.left, right: width - MARGIN.right, top: MARGIN.top, bottom: height - MARGIN.bottom };
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", width); svg.setAttribute("height", height);
    for (const k of ["left", "right", "top", "bottom"]) svg.dataset[k] = String(size[k]);
    parts.marker.setAttribute("y1", size.top); parts.marker.setAttribute("y2", size.bottom);
    drawGrid();
    drawCurve();
  }

  /** Shows a value moved here (drag, keys, double tap) and sends it at the next frame. */
  function move(cutoff, resonance) {
    state.cutoff = clamp(cutoff, state.range.cutoff);
    state.resonance = clamp(resonance, state.range.resonance);
    drawCurve();
    state.pending = { cutoff: state.cutoff, resonance: state.resonance };
    if (!state.frame) state.frame = requestAnimationFrame(flush);
    hold();
  }

  /** Sends what is pending (in an animation frame, the only place anything is sent): each
      parameter that changed since it was last sent, together in one datagram. */
  function flush() {
    state.frame = 0;
    const p = state.pending;
    state.pending = null;
    if (!p) return;
    const messages = [];
    for (const name of ["cutoff", "resonance"]) {
      if (state.sent[name] === p[name]) continue;
      state.sent[name] = p[name];
      messages.push([state.address[name], [["f", p[name]]]]);
    }
    sendAll(messages);
  }

  /** Pushes are not shown while the user moves the handle and for HOLD_MS after (controls.js),
      so an echo of an older position never pulls it back; then the last push is shown. */
  function hold() {
    state.heldUntil = performance.now() + HOLD_MS;
    clearTimeout(state.holdTimer);
    state.holdTimer = setTimeout(release, HOLD_MS);
  }
  function release() {
    if (state.dragging || performance.now() < state.heldUntil) return;
    state.sent = {};
    show(state.pushed);
  }

  /** A value rack pushed. */
  function pushed(name, value) {
    if (typeof value !== "number") return;
    state.pushed[name] = value;
    if (!state.dragging && performance.now() >= state.heldUntil) show({ [name]: value });
  }
  function show(values) {
    for (const [k, v] of Object.entries(values)) if (typeof v === "number") state[k] = v;
    drawCurve();
  }

  function pointerValue(event) {
    const box = svg.getBoundingClientRect();
    const d = state.dragging;
    const f = frequencyAt(event.clientX - box.left - d.dx), db = decibelsAt(event.clientY - box.top - d.dy);
    return [f, db];
  }

  function onPointerDown(event) {
    if (event.button !== 0) return;
    event.preventDefault();
    parts.handle.focus();
    const now = performance.now(), t = state.lastTap;
    if (t && now - t.time < DOUBLE_TAP_MS && Math.hypot(event.clientX - t.x, event.clientY - t.y) < DOUBLE_TAP_PX) {
      state.lastTap = null;
      move(facts.response.cutoffDefault, facts.response.resonanceDefault);
      return;
    }
    state.lastTap = { time: now, x: event.clientX, y: event.clientY };
    const box = svg.getBoundingClientRect();
    state.dragging = { id: event.pointerId,
                       dx: event.clientX - box.left - x(state.cutoff), dy: event.clientY - box.top - y(state.resonance) };
    parts.handle.setPointerCapture(event.pointerId);
    svg.classList.add("dragging");
  }
  function onPointerMove(event) {
    if (!state.dragging || event.pointerId !== state.dragging.id) return;
    const events = event.getCoalescedEvents ? event.getCoalescedEvents() : [];
    move(...pointerValue(events.length ? events[events.length - 1] : event));
  }
  /** The end of a drag: what is pending goes at the next frame, as every move does. */
  function onPointerUp(event) {
    if (!state.dragging || event.pointerId !== state.dragging.id) return;
    state.dragging = null;
    svg.classList.remove("dragging");
    hold();
  }

  function onKey(event) {
    const c = state.range.cutoff, ratio = Math.pow(c.max / c.min, 1 / KEY_STEPS);
    const step = { ArrowLeft: [1 / ratio, 0], ArrowRight: [ratio, 0], ArrowDown: [1, -KEY_DB], ArrowUp: [1, KEY_DB] }[event.key];
    if (!step || !Number.isFinite(state.cutoff + state.resonance)) return;
    event.preventDefault();
    move(state.cutoff * step[0], state.resonance + step[1]);
  }

  /** The figure in the filter's section: built once, its grid redrawn when its width changes. */
  function build(rack, pictures, graphs) {
    facts = graphs;
    for (const name of ["cutoff", "resonance"]) {
      const range = rack.CONTENTS[name].RANGE[0];
      state.range[name] = { min: range.MIN, max: range.MAX };
      const address = rack.CONTENTS[name].FULL_PATH, shown = handlers[address];
      state.address[name] = address;
      handlers[address] = (args, a) => { shown(args, a); pushed(name, args[0]); };
    }
    watchRate(rack.CONTENTS.status.FULL_PATH);
    const figure = element("figure", { id: "response-graph", className: "graph" });
    svg = make("svg", { id: "response-svg", role: "group", "aria-label": "the low-pass filter's response: drag the handle to set cutoff and resonance" }, figure);
    svg.dataset.fmin = r().minimumFrequency; svg.dataset.fmax = r().maximumFrequency;
    svg.dataset.dbmin = r().minimumDecibels; svg.dataset.dbmax = r().maximumDecibels;
    const grid = make("g", {}, svg);
    const marker = make("line", { class: "graph-marker" }, svg);
    const clip = make("rect", {}, make("clipPath", { id: "response-clip" }, make("defs", {}, svg)));
    const curve = make("path", { id: "response-curve", class: "graph-curve", "clip-path": "url(#response-clip)" }, svg);
    const handle = make("g", { id: "response-handle", class: "graph-handle", tabindex: "0", role: "slider",
                               "aria-label": "cutoff and resonance: left and right arrows move the cutoff, up and down the resonance",
                               "aria-valuemin": state.range.cutoff.min, "aria-valuemax": state.range.cutoff.max }, svg);
    handle.dataset.keyRatio = String(Math.pow(state.range.cutoff.max / state.range.cutoff.min, 1 / KEY_STEPS));
    handle.dataset.keyDb = String(KEY_DB);
    make("circle", { r: 24, class: "graph-hit" }, handle);
    make("circle", { r: 9, class: "graph-dot" }, handle);
    const readout = element("figcaption", { id: "response-readout", className: "graph-readout" });
    readout.setAttribute("aria-hidden", "true");
    figure.append(readout);
    parts = { grid, clip, marker, curve, handle, readout };
    handle.addEventListener("pointerdown", onPointerDown);
    handle.addEventListener("pointermove", onPointerMove);
    handle.addEventListener("pointerup", onPointerUp);
    handle.addEventListener("pointercancel", onPointerUp);
    handle.addEventListener("keydown", onKey);
    const section = groupSection("filter");
    section.insertBefore(figure, section.querySelector("figure"));
    size = null;
    new ResizeObserver(layout).observe(figure);
    layout();
  }

  /** The sample rate, from the status at `address` (panels.js shows the rest of it). */
  function watchRate(address) {
    const status = handlers[address];
    handlers[address] = (args, a) => {
      status(args, a);
      if (typeof args[0] === "number" && args[0] !== state.rate) { state.rate = args[0]; drawCurve(); }
    };
  }

  return { build, lowPassDb };
})();
builders.push(Graph.build);
