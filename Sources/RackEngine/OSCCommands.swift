/// Every command of the address space, declared once, by the name its handler is registered
/// under (`RackController`'s command modules) and `OSCAddressSpace.commands` lists it by.
extension OSCCommandDeclaration {
    public static let presetRecall = Self(
        "/rack/preset",
        .arguments([.required(.stringOrNumber, else: "expects a preset name or index"),
                    .optional(.number, else: OSCAddressSpace.rampRefusal)],
                   else: "expects a preset name or index and an optional ramp time"),
        "recall a preset by name (every parameter ramps); LISTEN here for each recall", automation: .presetRecall,
        query: .init(type: "s", range: .presetNames))
    public static let presetSave = Self(
        "/rack/preset/save", .arguments([.required(.string)], else: "expects one string: the preset name"),
        "save the current targets as a user preset; answers /rack/preset/saved s:name i:number", query: .init(type: "s"))
    public static let presetDelete = Self(
        "/rack/preset/delete", .arguments([.required(.string)], else: "expects one string: the preset name"),
        "delete a user preset", query: .init(type: "s"))
    public static let presetList = Self(
        "/rack/preset/list", .arguments([.optional(.number)], else: "expects an optional page number"),
        "replies /rack/preset/list s… (every preset, factory first, user presets in number order); a list "
            + "over 16 KiB comes as pages /rack/preset/list/page i:page i:pages s… of at most 2 KiB; "
            + "with i PAGE: that page", isQuery: true, query: .init(type: "i", range: .minimum(0)))

    public static let playerLoad = Self(
        "/rack/player/load", .arguments([.required(.string)], else: "expects one string: a file path"),
        "stream a file (crossfades from the previous one)", query: .init(type: "s"))
    public static let playerPlay = Self(
        "/rack/player/play", .none, "start (5 ms fade)", automation: .play, query: .init())
    public static let playerStop = Self(
        "/rack/player/stop", .none, "stop (5 ms fade)", automation: .stop, query: .init())
    public static let playerLoop = Self(
        "/rack/player/loop", .arguments([.required(.number)], else: "expects 0 or 1"),
        "loop the file: 1 on (default), 0 off", automation: .loop,
        query: .init(type: "i", range: .minimumMaximum(0, 1), clipMode: ["none"]))
    public static let playerSeek = Self(
        "/rack/player/seek", .arguments([.required(.number)], else: "expects seconds"),
        "jump to a position in the file, crossfading", automation: .seek,
        query: .init(type: "f", range: .minimum(0), unit: ["time.second"], clipMode: ["both"]))
    public static let playerState = Self(
        "/rack/player/state", .none,
        "replies /rack/player/state s:file i:playing i:loop (the file loaded, empty if none; 1 while the "
            + "transport plays; 1 while it loops); LISTEN for each change", isQuery: true,
        query: .init(type: "sii", access: 1))
    public static let playerMedia = Self(
        "/rack/player/media", .none,
        "replies /rack/player/media s… (the audio files under --media-dir, which any sender may load; "
            + "none without it)", isQuery: true, query: .init())

    public static let get = Self(
        "/rack/get", .arguments([.required(.string)], else: "expects one string: a parameter name"),
        "replies /rack/<param> with the target value", isQuery: true, query: .init(type: "s", range: .parameterNames))
    public static let dump = Self(
        "/rack/dump", .any, "replies every parameter's target and the last preset", isQuery: true, query: .init())
    public static let subscribe = Self(
        "/rack/subscribe", OSCAddressSpace.portSignature, "every applied change, from any source, to the sender (optional port)",
        query: .init(type: "i", range: .minimumMaximum(1, 65535)))
    public static let unsubscribe = Self(
        "/rack/unsubscribe", OSCAddressSpace.portSignature, "ends changes and meters to the sender (optional port)",
        query: .init(type: "i", range: .minimumMaximum(1, 65535)))
    public static let meter = Self(
        "/rack/meter", OSCAddressSpace.portSignature,
        "peak L, peak R, RMS L, RMS R (dBFS, -120 for silence), DSP load, xruns, ramping parameters; "
            + "LISTEN for 15 updates a second (over UDP: send /rack/meter [i port])",
        query: .init(type: "fffffii", access: 1, unit: ["gain.db", "gain.db", "gain.db", "gain.db", "%", "", ""]))
    public static let status = Self(
        "/rack/status", .none,
        "sample rate, buffer frames, xruns, DSP load, player position, JACK state (running or "
            + "disconnected), input samples replaced by silence (not audio), why the player stopped by "
            + "itself (a truncated or corrupt file; empty otherwise)", isQuery: true,
        query: .init(type: "iiiffsis", access: 1, unit: ["time.hz", "", "", "%", "time.second", "", "", ""]))
    public static let params = Self(
        "/rack/params", .any, "replies /rack/params s:id s:unit f:min f:max f:default s:taper per parameter",
        isQuery: true, query: .init())
    public static let version = Self(
        "/rack/version", .any, "the OSC namespace version", isQuery: true, query: .init(type: "s", access: 1))
    public static let stats = Self(
        "/rack/stats", .any, "replies DSP time per JACK cycle since the last /rack/stats", isQuery: true, query: .init())
    public static let ping = Self(
        "/ping", .any, "replies /pong", isQuery: true, query: .init())
    public static let sync = Self(
        "/sync", .arguments([.optional(.number)], else: "expects an optional number: an id the reply carries"),
        "replies /synced [id] once the render thread has taken every change sent before it")
    public static let scheduleClear = Self(
        "/rack/schedule/clear", .none,
        "drop the timetagged changes the sender scheduled that wait for their time (only its own); "
            + "replies /rack/schedule/cleared i:count", query: .init())

    public static let midiLearn = Self(
        "/rack/midi/learn", .arguments([.optional(.string)], else: "expects an optional string: a parameter name"),
        "bind the next CC that moves to the parameter; no argument: cancel")
    public static let midiMap = Self(
        "/rack/midi/map", .none, "replies /rack/midi/map i:channel i:cc s:param per binding", isQuery: true)
    public static let midiUnmap = Self(
        "/rack/midi/unmap", .arguments([.required(.number)], else: "expects one controller number 0…127"),
        "remove the binding of a controller")

    public static let sessionSave = Self(
        "/nsm/client/save", .any, "the session manager asks for a save", sessionManagerOnly: true)
    // Acknowledgements; a second open (a switch) is not a declared capability.
    public static let sessionOpen = Self(
        "/nsm/client/open", .any, "the session manager opens a session", sessionManagerOnly: true)
    public static let sessionIsLoaded = Self(
        "/nsm/client/session_is_loaded", .any, "the session manager finished loading", sessionManagerOnly: true)
    public static let sessionReply = Self(
        "/reply", .any, "the session manager's acknowledgement", sessionManagerOnly: true)
    public static let sessionError = Self(
        "/error", .any, "the session manager's refusal", sessionManagerOnly: true)
}

/// The addresses rack sends that are no command it obeys (answers and notices), each written
/// once here; `all` lists them.
public enum OSCReplyAddress {
    /// `/rack/error ADDRESS REASON`: a refusal, or a problem that refused nothing (a value
    /// clamped, the player stopped).
    public static let error = "/rack/error"
    /// The answer to `/rack/preset/save`: `s:name i:number`.
    public static let presetSaved = "/rack/preset/saved"
    /// A page of `/rack/preset/list`: `i:page i:pages s…`.
    public static let presetListPage = "/rack/preset/list/page"
    /// The answer to `/rack/schedule/clear`: `i:count`.
    public static let scheduleCleared = "/rack/schedule/cleared"
    /// The answer to `/ping`.
    public static let pong = "/pong"
    /// The answer to `/sync [id]`: `[id]`.
    public static let synced = "/synced"

    public static let all = [error, presetSaved, presetListPage, scheduleCleared, pong, synced]
}
