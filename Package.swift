// swift-tools-version:6.0
// uwb2mqtt — a UWB proximity gateway: Qorvo DWM3001C (FiRa UCI) in, MQTT out.
// Targets follow ../shared/design/architecture.md: a pure core (UCI, later Proximity), thin I/O
// around it, the C libraries as system-library targets, and one executable.
import PackageDescription

let package = Package(
    name: "uwb2mqtt",
    products: [
        .executable(name: "uwb2mqtt", targets: ["uwb2mqtt"]),
        .executable(name: "uwb2mqtt-bench", targets: ["UCIBench"]),
        .library(name: "UCI", targets: ["UCI"]),
    ],
    targets: [
        // C libraries from Debian packages, found through pkg-config.
        .systemLibrary(name: "CLibSerialPort", pkgConfig: "libserialport", providers: [.apt(["libserialport-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),

        // Pure core: the FiRa UCI codec. Standard library only.
        .target(name: "UCI"),

        // Glue: subcommands and their output formats.
        .target(name: "Gateway", dependencies: ["UCI", "CLibSerialPort", "CMosquitto"]),

        // libmosquitto wrapped for Swift 6: callbacks → AsyncStream, bounded QoS 1 queue, typed errors.
        .target(name: "MQTTClient", dependencies: ["CMosquitto"]),

        // Test-only helpers: child processes, a real mosquitto broker, subscriber, test CA.
        .target(name: "TestSupport", dependencies: []),

        // The executable: argument dispatch only.
        .executableTarget(name: "uwb2mqtt", dependencies: ["Gateway"]),

        // `make bench`: decode throughput of the UCI codec.
        .executableTarget(name: "UCIBench", dependencies: ["UCI"]),

        .testTarget(name: "UCITests", dependencies: ["UCI"]),
        .testTarget(name: "GatewayTests", dependencies: ["Gateway", "UCI"]),
        .testTarget(name: "MQTTClientTests", dependencies: ["MQTTClient", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
