// swift-tools-version:6.1
import PackageDescription

/// Flags for the realtime modules: `-enforce-exclusivity=unchecked` removes the dynamic
/// exclusivity checks, which call into the runtime and so fail the `@_noLocks` checker.
/// (The checker runs in debug builds too; there it sees only the current file, so every
/// function the render path calls in another file carries `@_noLocks` itself.)
let realtimeFlags: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

let package = Package(
    name: "rack",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "rack", targets: ["rack"]),
        .library(name: "RackEngine", targets: ["RackEngine"]),
        // The plugins' shared objects (librack-lv2.so, rack.clap) are built by
        // scripts/build-plugins, as Embedded Swift, from RackLV2Plugin, RackCLAPPlugin and the
        // modules they depend on.
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // HTTP and WebSocket for OSCQuery and the web page (SwiftNIO underneath). Traits off:
        // rack needs neither swift-configuration support nor the full-Foundation extras.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // C shims: headers and non-variadic wrappers for the system libraries.
        .target(name: "CJack", linkerSettings: [.linkedLibrary("jack")]),
        .target(name: "CLibLo", linkerSettings: [.linkedLibrary("lo")]),
        .target(name: "CSndfile", linkerSettings: [.linkedLibrary("sndfile"), .linkedLibrary("samplerate")]),
        // DNS-SD through the Avahi daemon (libavahi-client, pkg-config avahi-client).
        .target(name: "CAvahi", linkerSettings: [.linkedLibrary("avahi-client"), .linkedLibrary("avahi-common")]),
        // The LV2 C API (lv2-dev's headers) and the host-options parsing; embedded.c is what
        // the Embedded Swift standard library leaves to the platform (scripts/build-plugins only).
        .target(name: "CLV2", exclude: ["embedded.c"]),

        // File names as bytes held in strings (argv, OSC, every open): no dependencies.
        .target(name: "RackPathText"),
        // Pure-Swift DSP kernels: no dependencies, no Foundation.
        .target(name: "RackDSP", swiftSettings: realtimeFlags),
        // The graph, the parameter table, events, ramps, the render pipeline: the realtime core,
        // no Foundation (a test fails on any Foundation import here or in RackDSP).
        .target(name: "RackEngine", dependencies: ["RackDSP", "RackPathText"], swiftSettings: realtimeFlags),
        // What rack keeps in files, around the core and off the realtime path (Foundation):
        // presets and the preset store, automation files, atomic writes, the user's
        // directories, output destinations, the manual's generated sections.
        .target(name: "RackFiles", dependencies: ["RackEngine", "RackDSP", "RackPathText"]),
        // Audio files: libsndfile reading/writing, libsamplerate, the offline driver.
        .target(name: "RackIO", dependencies: ["RackEngine", "RackFiles", "RackPathText", "CSndfile"]),
        // The JACK client: process callback trampoline, ports, xruns, reconnection.
        .target(name: "RackJack", dependencies: ["RackEngine", "CJack"], swiftSettings: realtimeFlags),
        // The wire shared by OSC and HTTP: the one OSC codec (liblo), the one endpoint type and
        // its locality rule.
        .target(name: "RackWire", dependencies: ["CLibLo", "RackPathText"]),
        // OSC: the UDP server, the address space, DNS-SD advertising.
        .target(name: "RackOSC", dependencies: ["RackWire", "RackEngine", "RackFiles", "RackIO", "RackPathText", "CAvahi"]),
        // OSCQuery over HTTP, its WebSocket and the web control surface; reaches the rest of rack
        // only through the `RackHTTPHost` protocol.
        .target(name: "RackHTTP", dependencies: [
            "RackWire", "RackEngine", "RackFiles", "RackDSP", "RackPlot",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ], resources: [.embedInCode("Page/web")]),
        // The LV2 plugin's URI and port layout, shared by the plugin and the .ttl generator
        // (the meters' ports from RackPlugin's PluginMeter).
        .target(name: "RackLV2", dependencies: ["RackEngine", "RackPlugin"]),
        // The engine inside a plugin, whatever the standard: the engine, the host's parameter
        // values → engine events, unconnected audio. Shared by the LV2 and CLAP plugins.
        .target(name: "RackPlugin", dependencies: ["RackEngine", "RackDSP"], swiftSettings: realtimeFlags),
        // The LV2 plugin: the descriptor and its callbacks around the engine. SwiftPM builds
        // it as a module (compiled and checked with the rest); scripts/build-plugins links the
        // shared object, as Embedded Swift, exporting only `lv2_descriptor` (exports.map).
        .target(name: "RackLV2Plugin", dependencies: ["RackLV2", "RackPlugin", "RackEngine", "CLV2"],
                exclude: ["exports.map"],
                swiftSettings: realtimeFlags),
        // The CLAP plugin's C side: the entry, the factory, the plugin and its extensions, against
        // the CLAP headers of dpf-source (scripts/install-deps), as LV2's come from lv2-dev.
        .target(name: "CCLAP", cSettings: [.unsafeFlags(["-I/usr/share/dpf/distrho/src"])]),
        // The CLAP plugin's Swift side around the shared plugin engine. SwiftPM builds it as a
        // module; scripts/build-plugins links rack.clap, as Embedded Swift, exporting only
        // `clap_entry` (exports.map).
        .target(name: "RackCLAPPlugin", dependencies: ["RackPlugin", "RackEngine", "RackDSP", "CCLAP"],
                exclude: ["exports.map"],
                swiftSettings: realtimeFlags),
        // `rack plot`: SVG drawings of automation timelines and filter responses.
        .target(name: "RackPlot", dependencies: ["RackEngine", "RackFiles", "RackDSP"]),
        .executableTarget(name: "rack", dependencies: [
            "RackWire", "RackEngine", "RackFiles", "RackIO", "RackJack", "RackOSC", "RackHTTP", "CJack", "RackPlot", "RackLV2", "RackPathText",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // What several test targets share: temporary directories and test tones.
        .target(name: "RackTestSupport", dependencies: ["RackIO"], path: "Tests/RackTestSupport"),
        .testTarget(name: "RackDSPTests", dependencies: ["RackDSP", "RackTestSupport"]),
        .testTarget(name: "RackPathTextTests", dependencies: ["RackPathText"]),
        .testTarget(name: "RackEngineTests", dependencies: ["RackEngine", "RackFiles", "RackDSP", "RackPlugin", "RackTestSupport"]),
        .testTarget(name: "RackIOTests", dependencies: ["RackIO", "RackEngine", "RackFiles", "RackTestSupport"]),
        .testTarget(name: "RackOSCTests", dependencies: ["RackWire", "RackOSC", "RackEngine", "RackFiles", "RackIO", "RackDSP", "RackPathText", "RackTestSupport"]),
        .testTarget(name: "RackCLITests", dependencies: ["RackIO", "RackFiles", "RackPathText", "RackTestSupport"]),
        .testTarget(name: "RackHTTPTests", dependencies: ["RackWire", "RackHTTP", "RackEngine", "RackTestSupport"]),
        .testTarget(name: "RackPlotTests", dependencies: ["RackPlot", "RackEngine", "RackFiles", "RackDSP", "RackTestSupport"]),
    ]
)
