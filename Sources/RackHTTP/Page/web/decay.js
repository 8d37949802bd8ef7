"use strict";
/** The reverb's decay as a control: the set decay (mid-band RT60) flat up to the damping
    frequency and falling above it (at twice it, half), the low and high cuts marked, on a
    logarithmic frequency axis (the response graph's) and a logarithmic time axis (the decay's
    range). Handles move decay (up and down, at 500 Hz, the lowest damping, so always on the flat
    part), damping, lowcut and highcut (sideways); dragging sends each changed parameter at most
    once per animation frame, arrow keys move the focused handle. Freeze shows the decay as
    infinite. Changes from anywhere move the handles when rack pushes them. */
const DecayGraph = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const MARGIN = { left: 58, right: 16, top: 12, bottom: 30 };
  const ASPECT = 0.6, MIN_HEIGHT = 220, MAX_HEIGHT = 380, FEW_LABELS_BELOW = 420;
  /** Arrow keys move a handle by 1/KEY_STEPS of its parameter's range's ratio. */
  const KEY_STEPS = 100;
  /** Where the decay handle sits (Hz): the lowest damping, so on the flat part whatever it is. */
  const DECAY_HZ = 500;
  /** The handles: the parameter each moves and along which axis. */
  const HANDLES = [
    { name: "decay", axis: "y", label: "decay (mid-band RT60): up and down arrows" },
    { name: "damping", axis: "x", label: "damping frequency: left and right arrows" },
    { name: "lowcut", axis: "x", label: "low cut: left and right arrows" },
    { name: "highcut", axis: "x", label: "high cut: left and right arrows" },
  ];
  const state = { values: {}, pushed: {}, range: {}, address: {}, dragging: null, heldUntil: 0, holdTimer: 0,
                  pending: {}, sent: {}, frame: 0, freeze: false };
  let facts = null, svg = null, parts = null, size = null;

  const fmin = () => facts.response.minimumFrequency, fmax = () => facts.response.maximumFrequency;
  const smin = () => state.range.decay.min, smax = () => state.range.decay.max;
  const share = (v, lo, hi) => Math.log(v / lo) / Math.log(hi / lo);
  function x(f) { return size.left + (size.right - size.left) * share(f, fmin(), fmax()); }
  function y(s) { return size.bottom - (size.bottom - size.top) * share(s, smin(), smax()); }
  function frequencyAt(px) { return fmin() * Math.pow(fmax() / fmin(), (px - size.left) / (size.right - size.left)); }
  function secondsAt(py) { return smin() * Math.pow(smax() / smin(), (size.bottom - py) / (size.bottom - size.top)); }
  const clamp = (v, range) => Math.min(range.max, Math.max(range.min, v));

  function make(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.append(e);
    return e;
  }

  function drawGrid() {
    const g = parts.grid;
    g.textContent = "";
    make("rect", { width: size.width, height: size.height, rx: 6, class: "graph-back" }, g);
    make("rect", { x: size.left, y: size.top, width: size.right - size.left, height: size.bottom - size.top, class: "graph-frame" }, g);
    for (const k of ["x", "y", "width", "height"]) parts.clip.setAttribute(k, g.lastChild.getAttribute(k));
    const mantissas = size.right - size.left < FEW_LABELS_BELOW ? [1] : [1, 2, 5];
    for (let decade = 1; decade <= fmax(); decade *= 10) {
      for (let m = 1; m < 10; m++) {
        const f = m * decade;
        if (f < fmin() || f > fmax()) continue;
        const major = mantissas.includes(m);
        make("line", { x1: x(f), x2: x(f), y1: size.top, y2: size.bottom, class: major ? "graph-grid major" : "graph-grid" }, g);
        if (major) make("text", { x: x(f), y: size.bottom + 18, "text-anchor": "middle", class: "graph-text" }, g).textContent = f >= 1000 ? f / 1000 + "k" : String(f);
      }
    }
    for (const s of [0.1, 0.3, 1, 3, 10, 30]) {
      if (s < smin() || s > smax()) continue;
      make("line", { x1: size.left, x2: size.right, y1: y(s), y2: y(s), class: "graph-grid major" }, g);
      make("text", { x: size.left - 6, y: y(s) + 4, "text-anchor": "end", class: "graph-text" }, g).textContent = s + " s";
    }
  }

  /** The shape, the cuts and the handles for what is shown now. */
  function draw() {
    const v = state.values;
    if (!size || !["decay", "damping", "lowcut", "highcut"].every(n => Number.isFinite(v[n]))) return;
    const damped = v.damping < state.range.damping.max;
    const top = size.top;
    const points = state.freeze ? [[fmin(), top], [fmax(), top]]
      : [[fmin(), y(v.decay)], [damped ? v.damping : fmax(), y(v.decay)]].map(([f, py]) => [x(f), py]);
    if (!state.freeze && damped) points.push([x(fmax()), y(v.decay * v.damping / fmax())]);
    parts.shape.setAttribute("d", points.map(([px, py], i) => (i ? "L" : "M") + px.toFixed(2) + " " + py.toFixed(2)).join(" "));
    parts.frozen.setAttribute("visibility", state.freeze ? "visible" : "hidden");
    parts.frozen.setAttribute("x", (size.left + size.right) / 2);
    parts.frozen.setAttribute("y", top + 16);
    setCut(parts.cuts.low, size.left, x(v.lowcut));
    setCut(parts.cuts.high, x(v.highcut), size.right);
    const at = { decay: [x(DECAY_HZ), state.freeze ? top : y(v.decay)], damping: [x(v.damping), state.freeze ? top : y(v.decay)],
                 lowcut: [x(v.lowcut), size.bottom - 14], highcut: [x(v.highcut), size.bottom - 14] };
    for (const h of HANDLES) {
      const e = parts.handles[h.name];
      e.setAttribute("transform", `translate(${at[h.name][0].toFixed(2)} ${at[h.name][1].toFixed(2)})`);
      const text = h.name + " " + (h.name === "decay" && state.freeze ? "infinite (freeze)" : format(v[h.name], h.name === "decay" ? "s" : "Hz"));
      e.setAttribute("aria-valuenow", String(v[h.name]));
      e.setAttribute("aria-valuetext", text);
      svg.dataset[h.name] = String(v[h.name]);
    }
    svg.dataset.freeze = String(state.freeze);
  }
  function setCut(rect, from, to) {
    rect.setAttribute("x", from); rect.setAttribute("width", Math.max(0, to - from));
    rect.setAttribute("y", size.top); rect.setAttribute("height", size.bottom - size.top);
  }

  function layout() {
    const width = Math.max(1, Math.round(svg.parentElement.clientWidth));
    const height = Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, width * ASPECT)));
    if (size && size.width === width && size.height === height) return;
    size = { width, height, left: MARGIN.left, right: width - MARGIN.right, top: MARGIN.top, bottom: height - MARGIN.bottom };
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", width); svg.setAttribute("height", height);
    for (const k of ["left", "right", "top", "bottom"]) svg.dataset[k] = String(size[k]);
    drawGrid();
    draw();
  }

  /** A value moved here: shown at once, sent at the next frame. */
  function move(name, value) {
    state.values[name] = clamp(value, state.range[name]);
    draw();
    state.pending[name] = state.values[name];
    if (!state.frame) state.frame = requestAnimationFrame(flush);
    state.heldUntil = performance.now() + HOLD_MS;
    clearTimeout(state.holdTimer);
    state.holdTimer = setTimeout(release, HOLD_MS);
  }
  function flush() {
    state.frame = 0;
    const messages = [];
    for (const [name, value] of Object.entries(state.pending)) {
      if (state.sent[name] !== value) messages.push([state.address[name], [["f", value]]]);
      state.sent[name] = value;
    }
    state.pending = {};
    sendAll(messages);
  }
  function release() {
    if (state.dragging || performance.now() < state.heldUntil) return;
    state.sent = {};
    Object.assign(state.values, state.pushed);
    draw();
  }
  function pushed(name, value) {
    if (typeof value !== "number") return;
    if (name === "freeze") { state.freeze = value >= 0.5; draw(); return; }
    state.pushed[name] = value;
    if (!state.dragging && performance.now() >= state.heldUntil) { state.values[name] = value; draw(); }
  }

  function pointerValue(h, event) {
    const box = svg.getBoundingClientRect(), d = state.dragging;
    return h.axis === "x" ? frequencyAt(event.clientX - box.left - d.dx) : secondsAt(event.clientY - box.top - d.dy);
  }
  function addHandle(h) {
    const e = make("g", { class: "graph-handle", tabindex: "0", role: "slider", id: "decay-handle-" + h.name,
                          "aria-label": h.label, "aria-valuemin": state.range[h.name].min, "aria-valuemax": state.range[h.name].max }, svg);
    const range = state.range[h.name];
    e.dataset.keyRatio = String(Math.pow(range.max / range.min, 1 / KEY_STEPS));
    make("circle", { r: 22, class: "graph-hit" }, e);
    make("circle", { r: h.axis === "x" ? 7 : 9, class: h.axis === "x" ? "graph-dot sideways" : "graph-dot" }, e);
    e.addEventListener("pointerdown", event => {
      if (event.button !== 0) return;
      event.preventDefault();
      e.focus();
      const box = svg.getBoundingClientRect(), m = e.transform.baseVal.consolidate().matrix;
      state.dragging = { id: event.pointerId, dx: event.clientX - box.left - m.e, dy: event.clientY - box.top - m.f };
      e.setPointerCapture(event.pointerId);
      svg.classList.add("dragging");
    });
    e.addEventListener("pointermove", event => {
      if (state.dragging && event.pointerId === state.dragging.id) move(h.name, pointerValue(h, event));
    });
    const end = event => {
      if (!state.dragging || event.pointerId !== state.dragging.id) return;
      state.dragging = null;
      svg.classList.remove("dragging");
    };
    e.addEventListener("pointerup", end);
    e.addEventListener("pointercancel", end);
    e.addEventListener("keydown", event => {
      const ratio = +e.dataset.keyRatio;
      const by = h.axis === "x" ? { ArrowLeft: 1 / ratio, ArrowRight: ratio } : { ArrowDown: 1 / ratio, ArrowUp: ratio };
      if (!by[event.key] || !Number.isFinite(state.values[h.name])) return;
      event.preventDefault();
      move(h.name, state.values[h.name] * by[event.key]);
    });
    return e;
  }

  function build(rack, pictures, graphs) {
    facts = graphs;
    for (const name of ["decay", "damping", "lowcut", "highcut", "freeze"]) {
      const node = rack.CONTENTS[name], range = node.RANGE[0], address = node.FULL_PATH, shown = handlers[address];
      state.range[name] = { min: range.MIN, max: range.MAX };
      state.address[name] = address;
      handlers[address] = (args, a) => { shown(args, a); pushed(name, args[0]); };
    }
    const figure = element("figure", { id: "decay-graph", className: "graph" });
    svg = make("svg", { id: "decay-svg", role: "group", "aria-label": "the reverb's decay: drag the handles to set decay, damping, low and high cut" }, figure);
    Object.assign(svg.dataset, { fmin: fmin(), fmax: fmax(), smin: smin(), smax: smax() });
    const grid = make("g", {}, svg);
    const clip = make("rect", {}, make("clipPath", { id: "decay-clip" }, make("defs", {}, svg)));
    const cuts = { low: make("rect", { class: "graph-cut" }, svg), high: make("rect", { class: "graph-cut" }, svg) };
    const shape = make("path", { id: "decay-shape", class: "graph-curve", "clip-path": "url(#decay-clip)" }, svg);
    const frozen = make("text", { "text-anchor": "middle", class: "graph-text", visibility: "hidden" }, svg);
    frozen.textContent = "frozen: the decay is infinite";
    parts = { grid, clip, cuts, shape, frozen, handles: {} };
    for (const h of HANDLES) parts.handles[h.name] = addHandle(h);
    const section = groupSection("reverb");
    section.insertBefore(figure, section.querySelector("figure"));
    size = null;
    new ResizeObserver(layout).observe(figure);
    layout();
  }

  return { build };
})();
builders.push(DecayGraph.build);
