// swift-tools-version:6.1
import PackageDescription

/// The lock-free SPSC queues' stress tests (Tests/RackEngineTests/SPSCStressTests.swift, linked
/// here) under the thread sanitizer, as a package of their own: `swift build --sanitize=thread`
/// of it compiles only the modules the queues live in (RackEngine and what it imports), not the
/// whole rack with its network libraries. scripts/test runs it:
///   swift build --package-path Tests/ThreadSanitizer --build-tests --sanitize=thread
///   swift test --package-path Tests/ThreadSanitizer --skip-build --sanitize=thread
let package = Package(
    name: "rack-thread-sanitizer",
    dependencies: [.package(name: "rack", path: "../..")],
    targets: [
        .testTarget(name: "SPSCStressTests", dependencies: [.product(name: "RackEngine", package: "rack")]),
    ]
)
