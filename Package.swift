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
        .library(name: "Vocabulary", targets: ["Vocabulary"]),
        // For the fuzzers in Tests/Fuzz: the config, rules and request parsers, the device intake.
        .library(name: "Gateway", targets: ["Gateway"]),
        .library(name: "DeviceLink", targets: ["DeviceLink"]),
        .library(name: "Proximity", targets: ["Proximity"]),
        .library(name: "RulesReading", targets: ["RulesReading"]),
        .library(name: "YAMLCoding", targets: ["YAMLCoding"]),
        // For the fuzzers of the fuse's message handling (FuseCore) and of what `watch` reads.
        .library(name: "Fuse", targets: ["Fuse", "SiteFusion"]),
        .library(name: "Watch", targets: ["Watch"]),
    ],
    targets: [
        // C libraries from Debian packages, found through pkg-config.
        .systemLibrary(name: "CLibSerialPort", pkgConfig: "libserialport", providers: [.apt(["libserialport-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // libmicrohttpd is loaded by `watch --http` when it serves (CMicroHTTPD/shim.h), not linked.
        .systemLibrary(name: "CMicroHTTPD"),

        // libc calls the Glibc module hides (feature-gated: posix_openpt, ptsname_r, pipe2).
        .target(name: "CPty"),
        // Linux calls not in Glibc's module map: eventfd, signalfd, thread names, pipe2, adjtimex.
        .target(name: "CLinuxEvents"),

        // One thread's event loop: descriptors, timers in deadline order, signals, work posted
        // from other threads, in one poll. The agent's runtime.
        .target(name: "EventLoop", dependencies: ["CLinuxEvents"]),

        // Pure core: the FiRa UCI codec. Standard library only.
        .target(name: "UCI", dependencies: ["Vocabulary"]),

        // The values every file and log line writes the same way (durations, timestamps, topic
        // segments, JSON, log levels and throttles). Standard library only.
        .target(name: "Vocabulary"),

        // I/O: byte transports (serial, pseudo-terminal, TCP), port discovery, and the UCI
        // session state machine that brings the device up and keeps it ranging.
        .target(name: "DeviceLink", dependencies: ["Vocabulary", "UCI", "EventLoop", "CLibSerialPort", "CPty", "CLinuxEvents"]),

        // I/O: libmosquitto driven from the event loop (bounded QoS 1 queue, typed errors) and the
        // store-and-forward spool.
        .target(name: "MQTTClient", dependencies: ["CMosquitto", "EventLoop", "Vocabulary"]),

        // I/O: a read-only HTTP server (fixed resources, Server-Sent Events) over libmicrohttpd,
        // driven from the event loop: `watch --http`.
        .target(name: "WebServer", dependencies: ["CMicroHTTPD", "EventLoop"]),

        // YAML decoding over libyaml: config, rules and simulator scenario files. Vocabulary for the
        // one wording of what a message may quote of a file (Excerpt).
        .target(name: "YAMLCoding", dependencies: ["CYAML", "Vocabulary"]),

        // What every service process (the agent, `fuse`, `watch`) shares: its log, its version and
        // the broker connection made from the `mqtt` settings.
        .target(name: "Service", dependencies: ["Vocabulary", "MQTTClient", "CLibSerialPort", "CMosquitto"]),

        // The agent: its deterministic core, the shell on the event loop, the features as
        // components, payloads, topics and config.
        .target(name: "Gateway", dependencies: ["Service", "UCI", "DeviceLink", "MQTTClient", "YAMLCoding", "Proximity", "RulesReading", "Recording", "EventLoop", "CLibSerialPort", "CMosquitto", "Vocabulary"]),

        // The simulated DWM3001C hosted for `run --simulate`, `simulate` and the tests: on a
        // pseudo-terminal, its scenario read from YAML, its iPhones' apps asking over the broker.
        // Above the agent, which does not link the simulator.
        .target(name: "SimulatorHosting", dependencies: ["Simulator", "Gateway", "Service", "DeviceLink", "EventLoop", "MQTTClient", "YAMLCoding", "UCI", "Vocabulary"]),

        // `uwb2mqtt fuse`: the site-position service on the same event loop.
        .target(name: "Fuse", dependencies: ["Vocabulary", "Service", "SiteFusion", "MQTTClient", "EventLoop", "YAMLCoding"]),

        // The offline tools: replay (through the agent's core), its SVG plots, the JSON Schemas and
        // the AsyncAPI document of the agent's and the fuse's topic trees.
        .target(name: "OfflineTools", dependencies: ["Vocabulary", "Gateway", "Fuse", "Service", "DeviceLink", "Proximity", "Recording", "UCI"]),

        // Pure core of `uwb2mqtt watch`: what the v1 tree says about each gateway and peer, and
        // its plain-text lines. Vocabulary only.
        .target(name: "Watch", dependencies: ["Vocabulary", "Proximity"]),

        // The command line: one type per subcommand, argument parsing, help, shell completion and exit statuses.
        .target(name: "Commands", dependencies: ["Vocabulary", "Service", "Gateway", "SimulatorHosting", "Fuse", "Watch", "WebServer", "OfflineTools", "UCI", "DeviceLink", "MQTTClient", "YAMLCoding",
                                                 "Simulator", "Proximity", "Recording", "SiteFusion", "EventLoop", "CLibSerialPort", "CMosquitto", "CLinuxEvents"]),

        // Test-only helpers: child processes, a real mosquitto broker, subscriber, test CA, seeded noise.
        .target(name: "TestSupport", dependencies: ["Simulator"]),

        // The executable: argument dispatch only. A release build links with lld, relative
        // relocations packed (RELR: 8 KiB of them instead of 1 MiB, read at every start), and
        // the functions a running agent executes first in .text, hottest first (link.order,
        // `make profile`): the kernel maps code in blocks around each page touched, so that
        // without the order most of the agent's resident set is code it never runs. Nor does it
        // export its symbols (the driver exports all of an executable's, for dlsym): nothing
        // looks them up, and the table (7,500 names) was mapped and searched at every start.
        // The counts beside the order (agent.proftext) are what the Makefile's release builds
        // are optimized with (the Makefile, because SwiftPM would not see them change).
        .executableTarget(
            name: "uwb2mqtt", dependencies: ["Commands"], exclude: ["link.order", "agent.proftext"],
            linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/uwb2mqtt/link.order",
                                           "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "--no-export-dynamic"],
                                          .when(platforms: [.linux], configuration: .release))]),

        // `make bench`: UCI decode throughput, the real agent process measured end to end (CPU, latency, memory) beside a Python
        // baseline, and the journal at 64 MiB (append, open, drain through mosquitto, bytes written).
        .executableTarget(name: "UCIBench", dependencies: ["UCI", "DeviceLink", "EventLoop", "Gateway", "Simulator", "Proximity", "RulesReading", "TestSupport", "CMosquitto", "MQTTClient", "SiteFusion", "Vocabulary"]),

        // A simulated DWM3001C (device side of UCI) driven by a scenario. Pure core, no I/O.
        .target(name: "Simulator", dependencies: ["UCI", "Vocabulary"]),

        // Pure core: rules model and validation, distance filters, the per-peer rule engine,
        // rankings and positions. Time comes in as a value.
        .target(name: "Proximity", dependencies: ["UCI", "Vocabulary"]),
        // The rules file read: YAML text into Proximity's rules, with line and column in every message.
        .target(name: "RulesReading", dependencies: ["Proximity", "YAMLCoding", "Vocabulary"]),

        // Pure-ish: the UCI recording file format, its writer (append, fsync policy, rotation) and reader.
        .target(name: "Recording", dependencies: ["UCI", "Vocabulary"], exclude: ["FORMAT.md"]),
        // Pure core of `uwb2mqtt fuse`: multilateration, the range window, polygon zones, the
        // per-peer site tracker and the fuse config model. Standard library only.
        .target(name: "SiteFusion", dependencies: ["Vocabulary"]),

        .testTarget(name: "UCITests", dependencies: ["UCI"]),
        .testTarget(name: "GatewayTests", dependencies: ["SimulatorHosting", "Vocabulary", "Service", "Gateway", "DeviceLink", "Commands", "OfflineTools", "EventLoop", "Proximity", "RulesReading", "UCI", "Simulator", "YAMLCoding", "Recording", "MQTTClient", "TestSupport"]),
        .testTarget(name: "DeviceSessionTests", dependencies: ["DeviceLink", "UCI"]),
        .testTarget(name: "SpoolTests", dependencies: ["MQTTClient", "Vocabulary", "EventLoop"]),
        .testTarget(name: "DeviceLinkTests", dependencies: ["Vocabulary", "DeviceLink", "UCI", "CPty"]),
        .testTarget(name: "YAMLCodingTests", dependencies: ["YAMLCoding", "TestSupport", "Vocabulary"]),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "UCI", "Vocabulary"]),
        .testTarget(name: "DeviceLinkIntegrationTests", dependencies: ["SimulatorHosting", "DeviceLink", "EventLoop", "Gateway", "Simulator", "UCI"]),
        .testTarget(name: "MQTTClientTests", dependencies: ["MQTTClient", "EventLoop", "TestSupport"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"]),
        .testTarget(name: "AgentTests", dependencies: ["TestSupport", "MQTTClient", "EventLoop"]),
        .testTarget(name: "RecordingTests", dependencies: ["Vocabulary", "Recording", "Gateway", "OfflineTools", "DeviceLink", "UCI", "TestSupport"]),
        .testTarget(name: "SiteFusionTests", dependencies: ["Vocabulary", "SiteFusion", "Fuse", "TestSupport"]),
        .testTarget(name: "OperationsTests", dependencies: ["SimulatorHosting", "Service", "Gateway", "Commands", "TestSupport", "DeviceLink", "MQTTClient", "Simulator", "RulesReading",
                                                        "Fuse", "OfflineTools", "Vocabulary"]),
        .testTarget(name: "VocabularyTests", dependencies: ["Vocabulary"]),
        .testTarget(name: "WatchTests", dependencies: ["Watch"]),
        .testTarget(name: "WebServerTests", dependencies: ["WebServer"]),
        .testTarget(name: "ProximityTests", dependencies: ["Proximity", "RulesReading", "UCI", "YAMLCoding", "Vocabulary", "TestSupport"]),
        .testTarget(name: "BenchTests", dependencies: ["UCIBench", "DeviceLink", "EventLoop", "TestSupport", "UCI"]),
        .testTarget(name: "FaultTests", dependencies: ["SimulatorHosting", "TestSupport", "EventLoop", "MQTTClient", "DeviceLink", "Gateway", "Simulator", "UCI", "Vocabulary", "Proximity", "RulesReading"]),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds leave out the runtime exclusivity checks (a `swift_beginAccess` call on every
// access to a class's stored `var`, such as the MQTT client's state on every publish): 6 % of the
// agent's instructions per notification (`uwb2mqtt-bench instructions-only`: 192.1k → 180.7k).
// The compile-time checks stay, and the debug builds the tests run keep the runtime ones, so an
// overlapping access still fails the suite.
//
// They also compile every module for optimization across modules (`-cross-module-optimization`):
// the payload writers inline the JSON writer's appends and the byte buffer's, the engine the
// filters', the shell the MQTT client's packet writing, and generic code is specialized where it
// is used. 130.4k → 120.2k instructions per notification, for a binary 1 % larger.
//
// And each function into a section of its own (`-function-sections`): the link order
// (Sources/uwb2mqtt/link.order) moves sections, so that without it each source file's code moved
// as one block, and the agent's hot functions lay spread over 4 MB of `.text` instead of
// together in its first few hundred kilobytes.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? [])
        + [.unsafeFlags(["-enforce-exclusivity=unchecked", "-cross-module-optimization", "-Xfrontend", "-function-sections"], .when(configuration: .release))]
}
