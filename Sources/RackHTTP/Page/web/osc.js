"use strict";
const OSC = {
  /** The wire form of a message; args are [tag, value] pairs with tag "f", "i" or "s". */
  encode(address, args) {
    const parts = [OSC.str(address), OSC.str("," + args.map(a => a[0]).join(""))];
    for (const [tag, value] of args) {
      if (tag === "s") { parts.push(OSC.str(value)); continue; }
      const b = new DataView(new ArrayBuffer(4));
      if (tag === "f") b.setFloat32(0, value); else b.setInt32(0, value);
      parts.push(new Uint8Array(b.buffer));
    }
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  },
  /** The wire form of several messages as one bundle, to be applied together, at once
      (timetag 1: "immediately"); messages are [address, args] pairs. */
  bundle(messages) {
    const parts = [OSC.str("#bundle"), new Uint8Array([0, 0, 0, 0, 0, 0, 0, 1])];
    for (const [address, args] of messages) {
      const message = OSC.encode(address, args);
      const size = new DataView(new ArrayBuffer(4));
      size.setInt32(0, message.length);
      parts.push(new Uint8Array(size.buffer), message);
    }
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  },
  /** A NUL-terminated, 4-byte padded UTF-8 string. */
  str(s) {
    const bytes = new TextEncoder().encode(s);
    const out = new Uint8Array((bytes.length + 4) & ~3);
    out.set(bytes);
    return out;
  },
  /** {address, args} of a message (bundles are not pushed by rack); null when unreadable. */
  decode(buffer) {
    const view = new DataView(buffer);
    const bytes = new Uint8Array(buffer);
    let at = 0;
    const readString = () => {
      let end = at;
      while (end < bytes.length && bytes[end] !== 0) end++;
      if (end >= bytes.length) throw new Error("unterminated string");
      const s = new TextDecoder().decode(bytes.subarray(at, end));
      at = (end + 4) & ~3;
      return s;
    };
    try {
      const address = readString();
      const tags = readString();
      if (!tags.startsWith(",")) return null;
      const args = [];
      for (const tag of tags.slice(1)) {
        if (tag === "f") { args.push(view.getFloat32(at)); at += 4; }
        else if (tag === "i") { args.push(view.getInt32(at)); at += 4; }
        else if (tag === "s") { args.push(readString()); }
        else return null;
      }
      return { address, args };
    } catch (e) {
      return null;
    }
  },
};