import Foundation
import Testing
import TestSupport
import Vocabulary
import YAMLCoding

/// The agent's configuration file as docs/spec/cli-and-config.md shows it, decoded into local structs
/// that have exactly the spec's keys (the real config types live in the Gateway module).
@Suite struct ConfigFileTests {
    struct Config: Decodable {
        var gateway: Gateway?
        var device: DeviceSection
        var mqtt: MQTT?
        var rules: String?
        var logLevel: LogLevel?
        enum CodingKeys: String, CodingKey { case gateway, device, mqtt, rules, logLevel = "log_level" }
    }

    struct Gateway: Decodable {
        var id: String?
        var position: Position?
        var headingDeg: Double?
        enum CodingKeys: String, CodingKey { case id, position, headingDeg = "heading_deg" }
    }

    struct Position: Decodable, Equatable { var x: Double, y: Double, z: Double }

    struct DeviceSection: Decodable {
        var port: String?
        var baud: Int?
        var channel: Int?
        var role: Role?
        var sessionID: UInt32?
        var address: String?
        var rangingInterval: String?
        var peers: [PeerEntry]
        enum CodingKeys: String, CodingKey {
            case port, baud, channel, role, address, peers
            case sessionID = "session_id", rangingInterval = "ranging_interval"
        }
    }

    enum Role: String, Decodable, CaseIterable { case controller, controlee }
    enum LogLevel: String, Decodable, CaseIterable { case error, warning, info, debug }

    struct PeerEntry: Decodable, Equatable {
        var address: String
        var name: String
    }

    struct MQTT: Decodable {
        var url: String?
        var clientID: String?
        var username: String?
        var passwordFile: String?
        var caFile: String?
        var certFile: String?
        var keyFile: String?
        var baseTopic: String?
        var keepalive: String?
        var qosRanges: Int?
        var stateInterval: String?
        var metricsInterval: String?
        var homeAssistant: Bool?
        var spoolDir: String?
        var spoolMaxBytes: String?
        enum CodingKeys: String, CodingKey {
            case url, username, keepalive
            case clientID = "client_id", passwordFile = "password_file", caFile = "ca_file"
            case certFile = "cert_file", keyFile = "key_file", baseTopic = "base_topic", qosRanges = "qos_ranges"
            case stateInterval = "state_interval", metricsInterval = "metrics_interval"
            case homeAssistant = "home_assistant", spoolDir = "spool_dir", spoolMaxBytes = "spool_max_bytes"
        }
    }

    @Test func specExampleDecodes() throws {
        let config = try YAMLDecoder().decode(Config.self, from: SpecExample.config, file: "config.yaml")
        #expect(config.gateway?.id == "lobby")
        #expect(config.gateway?.position == Position(x: 0, y: 0, z: 2.4))
        #expect(config.gateway?.headingDeg == 90)
        #expect(config.device.port == "auto")
        #expect(config.device.baud == 115200)
        #expect(config.device.channel == 9)
        #expect(config.device.role == .controller)
        #expect(config.device.sessionID == 42)
        #expect(config.device.address == "0x0000")
        #expect(config.device.rangingInterval == "200ms")
        #expect(config.device.peers == [PeerEntry(address: "0x0001", name: "tool-cart"),
                                        PeerEntry(address: "0x0002", name: "phone-anna")])
        let mqtt = try #require(config.mqtt)
        #expect(mqtt.url == "mqtt://127.0.0.1:1883")
        #expect(mqtt.clientID == "uwb2mqtt-lobby")
        #expect(mqtt.username == "gateway")
        #expect(mqtt.passwordFile == "/etc/uwb2mqtt/mqtt.password")
        #expect(mqtt.caFile == nil && mqtt.certFile == nil && mqtt.keyFile == nil)
        #expect(mqtt.baseTopic == "uwb2mqtt")
        #expect(mqtt.keepalive == "30s")
        #expect(mqtt.qosRanges == 0)
        #expect(mqtt.stateInterval == "1s" && mqtt.metricsInterval == "30s")
        #expect(mqtt.homeAssistant == false)
        #expect(mqtt.spoolDir == "/var/lib/uwb2mqtt")
        #expect(mqtt.spoolMaxBytes == "64MiB")
        #expect(config.rules == "/etc/uwb2mqtt/rules.yaml")
        #expect(config.logLevel == .info)
    }

    @Test func minimalConfig() throws {
        let config = try YAMLDecoder().decode(Config.self, from: "device: {peers: [{address: 1, name: a}]}\n", file: "config.yaml")
        #expect(config.device.peers == [PeerEntry(address: "1", name: "a")])
        #expect(config.gateway == nil && config.mqtt == nil && config.rules == nil)
    }

    /// A typo anywhere in the example is reported at the misspelt key.
    @Test(arguments: [
        ("  heading_deg: 90", "  heading_degs: 90",
         "config.yaml:4:3: unknown key \"heading_degs\" (expected one of: heading_deg, id, position)"),
        ("    - {address: 0x0002, name: phone-anna}", "    - {address: 0x0002, nme: phone-anna}",
         "config.yaml:16:7: missing key \"name\""),
        ("  keepalive: 30s", "  keep_alive: 30s",
         "config.yaml:26:3: unknown key \"keep_alive\" (expected one of: base_topic, ca_file, cert_file, client_id, home_assistant, keepalive, key_file, metrics_interval, password_file, qos_ranges, spool_dir, spool_max_bytes, state_interval, url, username)"),
        ("log_level: info", "log_level: verbose",
         "config.yaml:35:12: invalid value \"verbose\" (expected one of: error, warning, info, debug)"),
        ("  role: controller", "  role: initiator",
         "config.yaml:10:9: invalid value \"initiator\" (expected one of: controller, controlee)"),
        ("  session_id: 42", "  session_id: -42",
         "config.yaml:11:15: expected a whole number from 0 to 4294967295, found \"-42\""),
        ("  home_assistant: false", "  home_assistant: no",
         "config.yaml:30:19: expected true or false, found \"no\""),
        ("  baud: 115200", "\tbaud: 115200",
         "config.yaml:8:1: tab characters cannot be used for indentation, use spaces (found character that cannot start any token while scanning for the next token)"),
    ])
    func typosAreLocated(original: String, replacement: String, message: String) {
        let text = SpecExample.config.replacingOccurrences(of: original, with: replacement)
        #expect(text != SpecExample.config)
        do {
            _ = try YAMLDecoder().decode(Config.self, from: text, file: "config.yaml")
            Issue.record("decoded without error")
        } catch {
            #expect("\(error)" == message)
        }
    }
}
