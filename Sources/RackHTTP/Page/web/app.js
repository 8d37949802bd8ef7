"use strict";
const $ = id => document.getElementById(id);
/** Reconnection delays (ms): doubled after each failed try, up to the last. */
const RETRY_MS = { first: 500, longest: 5000 };
/** rack closes a WebSocket that says nothing for a while: an open page says "{}" this often (ms). */
const KEEPALIVE_MS = __RACK_KEEPALIVE_MS__;
let socket = null;
let retryMs = RETRY_MS.first;
let retryTimer = null;
/** Handlers of pushed messages by address (controls.js, panels.js add theirs). */
const handlers = {};
/** Called with the namespace's /rack node, the pictures and the graphs' facts after every
    (re)load (controls.js, panels.js, graph.js). */
const builders = [];
/** Addresses listened to on every connection (beyond what builders ask for). */
const listened = new Set();
/** Actions waiting for their outcome, oldest first: rack answers each in order. */
const pending = [];

function send(address, ...args) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(OSC.encode(address, args));
}

/** Sends several changes as one datagram (a bundle when more than one), so a control that
    moves two parameters sends one message an animation frame; messages are [address, args]. */
function sendAll(messages) {
  if (messages.length === 1) { send(messages[0][0], ...messages[0][1]); return; }
  if (messages.length > 1 && socket && socket.readyState === WebSocket.OPEN) socket.send(OSC.bundle(messages));
}

function listen(path) {
  listened.add(path);
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ COMMAND: "LISTEN", DATA: path }));
}

/** Shows `text` in a note element: "ok" (a confirmation), "error", or plain. */
function note(element, text, kind) {
  if (!element) element = $("message");
  element.textContent = text;
  element.className = element.className.replace(/\b(ok|error)\b/g, "").trim() + (kind ? " " + kind : "");
}

/** Sends a command and tells its outcome in `noteElement`: rack's error for it, or `okText`
    once rack has answered the /ping sent after it (replies come back in order). */
function act(address, args, noteElement, okText) {
  if (!socket || socket.readyState !== WebSocket.OPEN) { note(noteElement, "not connected to rack", "error"); return; }
  const entry = { address, noteElement, okText, failed: false };
  pending.push(entry);
  note(noteElement, "…");
  send(address, ...args);
  send("/ping");
  return entry;
}

/** `/rack/error s:address s:reason`: beside the control of the action it answers, else beside
    a control registered for the address, else at the top of the page. */
function showError(address, reason) {
  const entry = pending.find(e => e.address === address && !e.failed);
  if (entry) { entry.failed = true; note(entry.noteElement, reason, "error"); return; }
  const element = document.querySelector(`[data-note-for="${CSS.escape(address)}"]`);
  note(element, (element ? "" : address + ": ") + reason, "error");
}

function received(message) {
  const { address, args } = message;
  if (address === "/pong") {
    const entry = pending.shift();
    if (!entry || entry.failed) return;
    note(entry.noteElement, entry.okText || "", entry.okText ? "ok" : "");
    if (entry.onDone) entry.onDone();
    return;
  }
  if (address === "/rack/error") { showError(args[0], args[1]); return; }
  const handler = handlers[address];
  if (handler) handler(args, address);
}

/** Online: controls enabled, the page in colour. Offline: greyed out, controls disabled, and
    the reason said at the top. */
function setOnline(online, text) {
  document.body.classList.toggle("offline", !online);
  for (const control of $("surface").querySelectorAll("input, select, button")) control.disabled = !online;
  $("connection").textContent = text;
  $("connection").className = online ? "live" : "";
  if (online) note($("message"), "");
}

/** Loads the namespace and the pictures, rebuilds the page from them, then opens the socket. */
async function session() {
  retryTimer = null;
  try {
    const namespace = await (await fetch("/", { cache: "no-store" })).json();
    const info = await (await fetch("/?HOST_INFO", { cache: "no-store" })).json();
    const pictures = await (await fetch("/ui/pictures.json", { cache: "no-store" })).json();
    const graphs = await (await fetch("/ui/graphs.json", { cache: "no-store" })).json();
    $("title").textContent = document.title = info.NAME || "rack";
    listened.clear();
    for (const build of builders) build(namespace.CONTENTS.rack, pictures, graphs);
    openSocket();
  } catch (e) {
    offline("rack is not reachable");
  }
}

function openSocket() {
  socket = new WebSocket("ws://" + location.host + "/");
  socket.binaryType = "arraybuffer";
  socket.addEventListener("open", () => {
    retryMs = RETRY_MS.first;
    pending.length = 0;
    for (const path of listened) socket.send(JSON.stringify({ COMMAND: "LISTEN", DATA: path }));
    setOnline(true, "connected");
    for (const hook of connectedHooks) hook();
  });
  socket.addEventListener("message", event => {
    if (typeof event.data === "string") return;
    const m = OSC.decode(event.data);
    if (m) received(m);
  });
  socket.addEventListener("close", () => offline("disconnected from rack"));
}
setInterval(() => { if (socket && socket.readyState === WebSocket.OPEN) socket.send("{}"); }, KEEPALIVE_MS);

/** Called once the socket is open (after the LISTENs): queries that are answered, not pushed. */
const connectedHooks = [];

/** Greys the page out and tries again after the current delay, doubling it. */
function offline(why) {
  socket = null;
  for (const e of pending.splice(0)) note(e.noteElement, "no answer: " + why, "error");
  if (retryTimer) return;
  setOnline(false, why + " — retrying in " + (retryMs / 1000).toFixed(1) + " s");
  $("jack").value = "rack not reachable";
  retryTimer = setTimeout(session, retryMs);
  retryMs = Math.min(retryMs * 2, RETRY_MS.longest);
}

document.addEventListener("DOMContentLoaded", () => {
  setOnline(false, "connecting…");
  session();
});