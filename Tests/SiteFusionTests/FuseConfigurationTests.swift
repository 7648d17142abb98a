import Foundation
import SiteFusion
import Testing

/// The fuse config model: the spec's example decodes, defaults fill in, and `validate()` names every
/// bad value with its key path. JSON stands in for YAML here (this target has no YAML dependency;
/// the service decodes with the project's `YAMLDecoder`).
@Suite struct FuseConfigurationTests {
    func decode(_ json: String) throws -> FuseConfiguration {
        try JSONDecoder().decode(FuseConfiguration.self, from: Data(json.utf8))
    }

    @Test func specExample() throws {
        let config = try decode("""
            {"site": "lobby", "mqtt": {"url": "mqtt://broker:1883", "base_topic": "uwb2mqtt"}, "window": "150ms",
             "tag_height": 1.0, "position_lost_after": "2s",
             "zones": [{"name": "checkout", "polygon": [[0, 0], [2, 0], [2, 1.5], [0, 1.5]], "hysteresis": 0.2, "dwell": "300ms"}]}
            """)
        try config.validate()
        #expect(config.site == "lobby")
        #expect(config.mqtt.url == "mqtt://broker:1883" && config.mqtt.baseTopic == "uwb2mqtt")
        #expect(config.window?.seconds == 0.15 && config.positionLostAfter.seconds == 2)
        #expect(config.tagHeight == 1.0)
        #expect(config.polygonZones == [PolygonZone(name: "checkout", vertices: [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 2, y: 0),
                                                                                 PlanarPoint(x: 2, y: 1.5), PlanarPoint(x: 0, y: 1.5)],
                                                    hysteresis: 0.2, dwell: 0.3)])
        #expect(config.fusionSettings == FusionSettings(window: 0.15, tagHeight: 1, positionLostAfter: 2))
    }

    @Test func defaults() throws {
        let config = try decode(#"{"site": "lobby"}"#)
        try config.validate()
        #expect(config.mqtt.url == "mqtt://127.0.0.1:1883" && config.mqtt.baseTopic == "uwb2mqtt")
        #expect(config.rangingInterval == nil && config.window == nil && config.positionLostAfter.seconds == 2)
        #expect(config.tagHeight == nil && config.zones.isEmpty)
        #expect(config.warnings.isEmpty)
        #expect(config.mqtt.keepalive.seconds == 30)
    }

    /// With default settings the window follows the agent's default ranging interval, so every
    /// round of every gateway finds the other gateways' newest ranges inside it.
    @Test func windowFollowsTheRangingInterval() throws {
        let defaults = try decode(#"{"site": "lobby"}"#)
        #expect(defaults.fusionSettings.window == 0.25)
        #expect(defaults.fusionSettings == FusionSettings(windowFollowsGateways: true))
        #expect(!FusionSettings().windowFollowsGateways)
        let fast = try decode(#"{"site": "lobby", "ranging_interval": "100ms"}"#)
        try fast.validate()
        #expect(fast.fusionSettings.window == 0.125 && !fast.fusionSettings.windowFollowsGateways)
        let explicit = try decode(#"{"site": "lobby", "ranging_interval": "200ms", "window": "150ms"}"#)
        #expect(explicit.fusionSettings.window == 0.15)
        #expect(explicit.warnings.count == 1 && explicit.warnings[0].contains("shorter than the ranging_interval"))
        let bad = try decode(#"{"site": "lobby", "ranging_interval": "10ms"}"#)
        #expect(throws: FuseConfigurationError.self) { try bad.validate() }
    }

    @Test func mqttKeys() throws {
        let config = try decode("""
            {"site": "s", "mqtt": {"url": "mqtts://b:8883", "client_id": "fuse-1", "username": "fuse",
             "password_file": "/etc/uwb2mqtt/pw", "ca_file": "/ca.pem", "cert_file": "/c.pem", "key_file": "/k.pem", "keepalive": 20}}
            """)
        try config.validate()
        #expect(config.mqtt.clientID == "fuse-1" && config.mqtt.username == "fuse" && config.mqtt.passwordFile == "/etc/uwb2mqtt/pw")
        #expect(config.mqtt.caFile == "/ca.pem" && config.mqtt.certFile == "/c.pem" && config.mqtt.keyFile == "/k.pem")
        #expect(config.mqtt.keepalive.seconds == 20)
    }

    /// The fuse reads durations as the agent's config and rules files do (`TimeSpan`).
    @Test func durationsAreTheSharedGrammar() throws {
        let config = try decode(#"{"site": "s", "ranging_interval": "100 ms", "position_lost_after": "1.5min"}"#)
        #expect(config.rangingInterval?.seconds == 0.1 && config.positionLostAfter.seconds == 90)
        #expect(throws: DecodingError.self) { try decode(#"{"site": "s", "position_lost_after": "-2s"}"#) }
    }

    @Test func typeErrorsFailDecoding() {
        #expect(throws: DecodingError.self) { try decode(#"{"site": "s", "window": "soon"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"site": "s", "zones": [{"name": "z", "polygon": [[0, 0, 1], [1, 0], [1, 1]]}]}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"window": "1s"}"#) }
    }

    /// The `mqtt` section is the agent's `BrokerSettings`: checked as it is decoded, at its key.
    @Test(arguments: [(#"{"url": "http://x"}"#, "mqtt.url must start with mqtt:// or mqtts://"),
                      (#"{"base_topic": "a/#"}"#, "mqtt.base_topic must be a topic without wildcards"),
                      (#"{"cert_file": "/c.pem"}"#, "mqtt.cert_file and mqtt.key_file go together"),
                      (#"{"keepalive": "1s"}"#, "mqtt.keepalive must be between 5s and 65535s")])
    func brokerProblemsAreDecodingErrorsAtTheirKey(section: String, message: String) {
        do {
            _ = try decode(#"{"site": "s", "mqtt": \#(section)}"#)
            Issue.record("decoded \(section)")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.hasPrefix(message), "\(context.debugDescription)")
            #expect(context.codingPath.first?.stringValue == "mqtt" && context.codingPath.count == 2)
        } catch {
            Issue.record("\(error)")
        }
    }

    /// How far a range's `ts` may be off this clock before the range is refused.
    @Test func clockSkew() throws {
        let defaults = try decode(#"{"site": "lobby"}"#)
        try defaults.validate()
        #expect(defaults.maxClockSkew.seconds == 2)
        let set = try decode(#"{"site": "lobby", "max_clock_skew": "500ms"}"#)
        try set.validate()
        #expect(set.maxClockSkew.seconds == 0.5)
        let zero = try decode(#"{"site": "lobby", "max_clock_skew": 0}"#)
        do {
            try zero.validate()
            Issue.record("accepted max_clock_skew 0")
        } catch {
            #expect(error.problems.map(\.path) == ["max_clock_skew"], "\(error)")
            #expect(error.description.contains("must be more than 0"), "\(error)")
        }
    }

    /// How long an unseen peer is kept: more than position_lost_after, so that its loss comes first.
    @Test func forgetting() throws {
        let defaults = try decode(#"{"site": "lobby"}"#)
        #expect(defaults.forgetAfter.seconds == 60 && defaults.fusionSettings.forgetAfter == 60)
        let set = try decode(#"{"site": "lobby", "forget_after": "5min"}"#)
        try set.validate()
        #expect(set.fusionSettings.forgetAfter == 300)
        for (json, message) in [(#""forget_after": "2s""#, "must be more than position_lost_after (2s), found 2s"),
                                (#""position_lost_after": "90s""#, "must be more than position_lost_after (90s)"),
                                (#""forget_after": "1e308min""#, "must be a finite duration")] {
            let config = try decode(#"{"site": "lobby", \#(json)}"#)
            do {
                try config.validate()
                Issue.record("accepted \(json)")
            } catch {
                #expect(error.problems.map(\.path) == ["forget_after"], "\(error)")
                #expect(error.description.contains(message), "\(error)")
            }
        }
    }

    @Test func validationNamesEveryProblem() throws {
        let config = try decode("""
            {"site": "lo/bby",
             "window": "0s", "position_lost_after": 0,
             "zones": [{"name": "a", "polygon": [[0, 0], [1, 0]]},
                       {"name": "a", "polygon": [[0, 0], [1, 0], [1, 1]], "hysteresis": -0.1},
                       {"name": "bow", "polygon": [[0, 0], [1, 1], [1, 0], [0, 1]]},
                       {"name": "flat", "polygon": [[0, 0], [1, 0], [2, 0]]}]}
            """)
        do {
            try config.validate()
            Issue.record("validate() accepted an invalid configuration")
        } catch {
            let paths = error.problems.map(\.path)
            print(error.description)
            #expect(paths == ["site", "window", "position_lost_after",
                              "zones[0].polygon", "zones[1].hysteresis", "zones[1].name",
                              "zones[2].polygon", "zones[3].polygon"])
            #expect(error.description.contains("zones[0].polygon: needs at least 3 points, found 2"))
            #expect(error.description.contains("zones[1].name: \"a\" is already the name of zones[0]"))
            #expect(error.description.contains("zones[2].polygon: crosses itself"))
            #expect(error.description.contains("zones[3].polygon: has no area"))
        }
    }
}
