// swift-tools-version:6.0
// libFuzzer harnesses (`make fuzz`): the UCI reassembler and decoder, the config loader, the
// rules loader (and the engine on accepted rules), the agent's core on device bytes, requests
// through the agent's core, the fuse's message handling (FuseCore) on broker messages, and
// what `watch` reads and draws.
//
// A separate package on purpose: an executable target built for libFuzzer has no `main` of its
// own, and inside the root package it would break `swift test` at link time
// (../../../shared/design/swift-linux-notes.md §4.4). The root package does not declare this
// directory, so `swift build`/`swift test` there never see it.
import PackageDescription

let package = Package(
    name: "UCIFuzz",
    dependencies: [
        .package(name: "uwb2mqtt", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "FuzzUCI",
            dependencies: [.product(name: "UCI", package: "uwb2mqtt")],
            // libFuzzer provides main(); the harness is a library-style file with @_cdecl.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzConfig",
            dependencies: [.product(name: "Gateway", package: "uwb2mqtt"), .product(name: "YAMLCoding", package: "uwb2mqtt")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzRules",
            dependencies: [.product(name: "Proximity", package: "uwb2mqtt"), .product(name: "RulesReading", package: "uwb2mqtt"),
                           .product(name: "UCI", package: "uwb2mqtt"),
                           .product(name: "YAMLCoding", package: "uwb2mqtt"), .product(name: "Vocabulary", package: "uwb2mqtt")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzCore",
            dependencies: [.product(name: "Gateway", package: "uwb2mqtt"), .product(name: "DeviceLink", package: "uwb2mqtt"),
                           .product(name: "Proximity", package: "uwb2mqtt"), .product(name: "RulesReading", package: "uwb2mqtt"),
                           .product(name: "UCI", package: "uwb2mqtt")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzFuse",
            dependencies: [.product(name: "Fuse", package: "uwb2mqtt"), .product(name: "Vocabulary", package: "uwb2mqtt")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzRequest",
            dependencies: [.product(name: "Gateway", package: "uwb2mqtt")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzWatch",
            dependencies: [.product(name: "Watch", package: "uwb2mqtt"), .product(name: "Vocabulary", package: "uwb2mqtt")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
