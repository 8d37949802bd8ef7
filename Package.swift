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

        // Pure-Swift DSP kernels: no dependencies, no Foundation.
        .target(name: "RackDSP", swiftSettings: realtimeFlags),
        // The graph, the parameter table, events, presets, automation, manual rendering.
        .target(name: "RackEngine", dependencies: ["RackDSP"], swiftSettings: realtimeFlags),
        // Audio files: libsndfile reading/writing, libsamplerate, the offline driver.
        .target(name: "RackIO", dependencies: ["RackEngine", "CSndfile"]),
        // The JACK client: process callback trampoline, ports, xruns, reconnection.
        .target(name: "RackJack", dependencies: ["RackEngine", "CJack"], swiftSettings: realtimeFlags),
        // The wire shared by OSC and HTTP: the one OSC codec (liblo), the one endpoint type and
        // its locality rule.
        .target(name: "RackWire", dependencies: ["CLibLo"]),
        // OSC: the UDP server, the address space, DNS-SD advertising.
        .target(name: "RackOSC", dependencies: ["RackWire", "RackEngine", "RackIO", "CAvahi"]),
        // OSCQuery over HTTP, its WebSocket and the web control surface; reaches the rest of rack
        // only through the `RackHTTPHost` protocol.
        .target(name: "RackHTTP", dependencies: [
            "RackWire", "RackEngine", "RackDSP",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ]),
        // `rack plot`: SVG drawings of automation timelines and filter responses.
        .target(name: "RackPlot", dependencies: ["RackEngine", "RackDSP"]),
        .executableTarget(name: "rack", dependencies: [
            "RackWire", "RackEngine", "RackIO", "RackJack", "RackOSC", "RackHTTP", "CJack", "RackPlot",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "RackDSPTests", dependencies: ["RackDSP"]),
        .testTarget(name: "RackEngineTests", dependencies: ["RackEngine", "RackDSP"]),
        .testTarget(name: "RackIOTests", dependencies: ["RackIO", "RackEngine"]),
        .testTarget(name: "RackOSCTests", dependencies: ["RackWire", "RackOSC", "RackEngine", "RackIO", "RackDSP"]),
        .testTarget(name: "RackCLITests", dependencies: ["RackIO"]),
        .testTarget(name: "RackHTTPTests", dependencies: ["RackWire", "RackHTTP", "RackEngine"]),
        .testTarget(name: "RackPlotTests", dependencies: ["RackPlot", "RackEngine", "RackDSP"]),
    ]
)
