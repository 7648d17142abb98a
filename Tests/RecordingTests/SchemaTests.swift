import Foundation
import Testing
import TestSupport
@testable import Gateway
@testable import OfflineTools
import Vocabulary

/// The editor schemas accept the example files and reject known-bad ones, and for the config they
/// agree with the agent's own loader on every case.
@Suite struct SchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func problems(_ yaml: String, _ schema: String) throws -> [String] {
        let root = try JSONReader.value(Array(schema.utf8))
        return JSONSchemaValidator(root: root).problems(try YAMLInstance.parse(yaml), against: root)
    }

    /// Whether `AgentConfiguration.load` accepts the text (written to a temporary file).
    static func loaderAccepts(_ yaml: String) throws -> Bool {
        let path = NSTemporaryDirectory() + "schema-test-\(UUID().uuidString).yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return (try? AgentConfiguration.load(path: path)) != nil
    }

    @Test func schemasAreJSONOfTheSupportedSubset() throws {
        for schema in [Schemas.config, Schemas.rules] {
            let value = try JSONReader.value(Array(schema.utf8))
            #expect(value["$schema"] == .string("http://json-schema.org/draft-07/schema#"))
            // An empty object exercises nothing; walking every keyword is done by the cases below,
            // and the validator fails on any keyword it does not implement.
            _ = JSONSchemaValidator(root: value).problems(.object([]), against: value)
        }
    }

    @Test func exampleFilesAreValid() throws {
        let config = try String(contentsOf: Self.root.appendingPathComponent("deploy/config.yaml"), encoding: .utf8)
        let rules = try String(contentsOf: Self.root.appendingPathComponent("deploy/rules.yaml"), encoding: .utf8)
        #expect(try Self.problems(config, Schemas.config) == [])
        #expect(try Self.problems(rules, Schemas.rules) == [])
        #expect(try Self.loaderAccepts(config))
    }

    static let goodConfigs = [
        SpecExample.config,
        "device: {peers: [{address: 1}]}",
        "device: {ranging_interval: 0.5, address: \"0x00AB\", peers: [{address: \"0x0001\"}, {address: 65535, name: x}]}",
        "device: {role: controlee, channel: 5, peers: [{address: 0x0001}]}\nmqtt: {url: \"mqtts://broker:8883\", keepalive: 60, spool_max_bytes: 65536, cert_file: a, key_file: b}",
        "device: {ranging_interval: 10s, peers: [{address: 2}]}\nmqtt: {spool_max_bytes: 1 GiB, metrics_interval: 1m, state_interval: 0.5, base_topic: site/uwb}",
        "device: {port: auto}",
        "device: {peers: []}",
        "device: {profile: android, peers: [{address: 1}]}",
        "device: {profile: qorvo, preamble_index: 12, slots_per_round: 20, slot_duration: 1ms, hopping: true, ranging_round_control: 0, session_key_info: \"5a1c93e07b2d4f68\", peers: [{address: 1}]}",
        "device: {session_key_info: \"5a:1c:93:e0:7b:2d:4f:68\", slot_duration: 0.002}\nphones: {enabled: false, session_key_info: random, no_ranging_timeout: 30s, max: 1}",
        "device: {peers: [{address: 1}]}\nphones: {session_key_info: \"0807010203040506\"}",
    ]

    static let badConfigs: [(String, String)] = [
        ("unknown top-level key", "recrod: /tmp/x\ndevice: {peers: [{address: 1}]}"),
        ("unknown device key", "device: {prot: auto, peers: [{address: 1}]}"),
        ("no device", "log_level: info"),
        ("nine peers", "device: {peers: [{address: 1}, {address: 2}, {address: 3}, {address: 4}, {address: 5}, {address: 6}, {address: 7}, {address: 8}, {address: 9}]}"),
        ("peer without address", "device: {peers: [{name: cart}]}"),
        ("unknown peer key", "device: {peers: [{address: 1, nmae: cart}]}"),
        ("address too large", "device: {peers: [{address: 0x10000}]}"),
        ("address not hex", "device: {peers: [{address: \"0xZZ\"}]}"),
        ("channel 7", "device: {channel: 7, peers: [{address: 1}]}"),
        ("role", "device: {role: master, peers: [{address: 1}]}"),
        ("android with two peers", "device: {profile: android, peers: [{address: 1}, {address: 2}]}"),
        ("unknown profile", "device: {profile: apple}"),
        ("preamble 13", "device: {preamble_index: 13}"),
        ("slots 3", "device: {slots_per_round: 3}"),
        ("slot 3ms", "device: {slot_duration: 3ms}"),
        ("hopping text", "device: {hopping: \"on\"}"),
        ("round control 256", "device: {ranging_round_control: 256}"),
        ("key of 7 bytes", "device: {session_key_info: \"08070102030405\"}"),
        ("key not hex", "device: {session_key_info: \"080701020304050g\"}"),
        ("phones key", "device: {}\nphones: {session_key_info: randomly}"),
        ("phones max 9", "device: {}\nphones: {max: 9}"),
        ("phones timeout", "device: {}\nphones: {no_ranging_timeout: 0.5}"),
        ("phones unknown key", "device: {}\nphones: {maximum: 2}"),
        ("controlee with two peers", "device: {role: controlee, peers: [{address: 1}, {address: 2}]}"),
        ("duration unit", "device: {ranging_interval: 200 msec, peers: [{address: 1}]}"),
        ("interval too short", "device: {ranging_interval: 0.01, peers: [{address: 1}]}"),
        ("session id negative", "device: {session_id: -1, peers: [{address: 1}]}"),
        ("url scheme", "device: {peers: [{address: 1}]}\nmqtt: {url: \"tcp://broker:1883\"}"),
        ("base topic wildcard", "device: {peers: [{address: 1}]}\nmqtt: {base_topic: \"a/#\"}"),
        ("base topic trailing slash", "device: {peers: [{address: 1}]}\nmqtt: {base_topic: \"a/\"}"),
        ("spool too small", "device: {peers: [{address: 1}]}\nmqtt: {spool_max_bytes: 1000}"),
        ("spool unit", "device: {peers: [{address: 1}]}\nmqtt: {spool_max_bytes: 64 megs}"),
        ("keepalive too short", "device: {peers: [{address: 1}]}\nmqtt: {keepalive: 2}"),
        ("qos 2", "device: {peers: [{address: 1}]}\nmqtt: {qos_ranges: 2}"),
        ("cert without key", "device: {peers: [{address: 1}]}\nmqtt: {cert_file: /etc/c.crt}"),
        ("home assistant text", "device: {peers: [{address: 1}]}\nmqtt: {home_assistant: \"yes\"}"),
        ("log level", "device: {peers: [{address: 1}]}\nlog_level: verbose"),
        ("position incomplete", "gateway: {position: {x: 1, y: 2}}\ndevice: {peers: [{address: 1}]}"),
        ("empty gateway id", "gateway: {id: \"\"}\ndevice: {peers: [{address: 1}]}"),
        ("gateway id too long", "gateway: {id: \(String(repeating: "g", count: 65))}\ndevice: {peers: [{address: 1}]}"),
        ("peer name too long", "device: {peers: [{address: 1, name: \(String(repeating: "p", count: 65))}]}"),
        ("base topic too long", "device: {peers: [{address: 1}]}\nmqtt: {base_topic: \(String(repeating: "b", count: 257))}"),
    ]

    @Test(arguments: goodConfigs)
    func goodConfigIsAcceptedByBoth(_ yaml: String) throws {
        #expect(try Self.problems(yaml, Schemas.config) == [])
        #expect(try Self.loaderAccepts(yaml))
    }

    @Test(arguments: badConfigs)
    func badConfigIsRejectedByBoth(_ name: String, _ yaml: String) throws {
        #expect(try !Self.problems(yaml, Schemas.config).isEmpty, "\(name)")
        #expect(try !Self.loaderAccepts(yaml), "\(name)")
    }

    static let goodRules = [
        "version: 1",
        "version: 1\nsignal_lost_after: 1.5\nfilter: {kind: none}\ndirection: {min_fom: 0, max_age: 1s}",
        "version: 1\nzones: [{name: desk, peers: [\"0x0001\", \"cart-*\", \"phone-?\", anna], enter_within: 60cm, exit_beyond: \"1.2 m\", dwell: 0.3}]",
        "version: 1\napproaches: [{name: h, start_within: 600mm, confirm_within: 0.1, cancel_beyond: 1}]\nfacing: {tolerance_deg: 45, cues: {lost: null, gained: {sound: x}}}",
        "version: 1\nrankings: [{name: r, base_scores: {a: -1, b: 2.5}, facing_bonus: 0}]\nstages: {bands: [{name: only}]}",
        "version: 1\nzones: [{name: z, peers: [0x00AB000000000001], enter_within: 1, exit_beyond: 2}]",
    ]

    static let badRules: [(String, String)] = [
        ("no version", "zones: []"),
        ("version 2", "version: 2"),
        ("unknown key", "version: 1\nzone: []"),
        ("zone without exit", "version: 1\nzones: [{name: z, enter_within: 1}]"),
        ("zone without name", "version: 1\nzones: [{enter_within: 1, exit_beyond: 2}]"),
        ("distance unit", "version: 1\nzones: [{name: z, enter_within: 1.2 meters, exit_beyond: 2}]"),
        ("negative distance", "version: 1\nzones: [{name: z, enter_within: -1, exit_beyond: 2}]"),
        ("quoted number distance", "version: 1\nzones: [{name: z, enter_within: \"1\", exit_beyond: 2}]"),
        ("hours in rules", "version: 1\nsignal_lost_after: 1h"),
        ("dwell unit", "version: 1\nzones: [{name: z, enter_within: 1, exit_beyond: 2, dwell: 3sec}]"),
        ("filter kind", "version: 1\nfilter: {kind: median}"),
        ("max speed zero", "version: 1\nfilter: {max_speed: 0}"),
        ("min fom", "version: 1\ndirection: {min_fom: 101}"),
        ("empty peers", "version: 1\nzones: [{name: z, peers: [], enter_within: 1, exit_beyond: 2}]"),
        ("bracket glob", "version: 1\nzones: [{name: z, peers: [\"cart-[1]\"], enter_within: 1, exit_beyond: 2}]"),
        ("short address", "version: 1\nzones: [{name: z, peers: [\"0x12\"], enter_within: 1, exit_beyond: 2}]"),
        ("band key", "version: 1\nstages: {bands: [{name: a, beyound: 2}, {name: b}]}"),
        ("no bands", "version: 1\nstages: {hysteresis: 0.2}"),
        ("empty bands", "version: 1\nstages: {bands: []}"),
        ("band tolerance", "version: 1\nstages: {bands: [{name: a, attributes: {facing_tolerance_deg: 0}}]}"),
        ("approach incomplete", "version: 1\napproaches: [{name: h, start_within: 1, confirm_within: 0.1}]"),
        ("tolerance text", "version: 1\nfacing: {tolerance_deg: sometimes}"),
        ("tolerance range", "version: 1\nfacing: {tolerance_deg: 200}"),
        ("cue text", "version: 1\nfacing: {cues: {gained: loud}}"),
        ("cue key", "version: 1\nfacing: {cues: {won: {a: 1}}}"),
        ("negative bonus", "version: 1\nrankings: [{name: r, nearby_bonus: -1}]"),
        ("score text", "version: 1\nrankings: [{name: r, base_scores: {a: high}}]"),
    ]

    @Test(arguments: goodRules)
    func goodRulesAreAccepted(_ yaml: String) throws {
        #expect(try Self.problems(yaml, Schemas.rules) == [])
    }

    @Test(arguments: badRules)
    func badRulesAreRejected(_ name: String, _ yaml: String) throws {
        #expect(try !Self.problems(yaml, Schemas.rules).isEmpty, "\(name)")
    }
}
