"use strict";
(() => {
  const list = document.getElementById("racks");
  const note = document.getElementById("racks-note");

  /** Shows the list pushed by rack: {browsing, daemon, capacity, racks: [{name, host, url}]}. */
  function show(data) {
    list.textContent = "";
    for (const rack of data.racks || []) {
      if (typeof rack.url !== "string" || !rack.url.startsWith("http://")) continue;
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = rack.url;
      link.textContent = rack.name;
      link.className = "rack-link";
      const host = document.createElement("span");
      host.className = "rack-host";
      host.textContent = rack.host + " · " + rack.address + ":" + rack.port;
      item.append(link, " ", host);
      list.append(item);
    }
    const count = list.children.length;
    if (!data.browsing) note.textContent = "not browsing DNS-SD (rack runs with --no-browse, or without Avahi)";
    else if (!data.daemon) note.textContent = "discovery cannot work: no avahi-daemon answers on this machine";
    else if (count === 0) note.textContent = "no other rack found on the network yet";
    else if (count >= data.capacity) note.textContent = "the first " + data.capacity + " racks found (the list holds no more)";
    else note.textContent = count === 1 ? "1 other rack" : count + " other racks";
  }

  function connect() {
    const socket = new WebSocket("ws://" + location.host + "/");
    socket.addEventListener("open", () => socket.send(JSON.stringify({ COMMAND: "LISTEN", DATA: "/studio" })));
    socket.addEventListener("message", event => {
      if (typeof event.data !== "string") return;
      let message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      if (message && message.COMMAND === "RACKS" && message.DATA) show(message.DATA);
    });
    // rack closes a WebSocket that says nothing for a while: say "{}" now and then.
    const keepAlive = setInterval(() => { if (socket.readyState === WebSocket.OPEN) socket.send("{}"); }, __RACK_KEEPALIVE_MS__);
    socket.addEventListener("close", () => { clearInterval(keepAlive); setTimeout(connect, 1000); });
  }

  connect();
})();