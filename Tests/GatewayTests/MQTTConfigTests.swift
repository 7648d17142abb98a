import Foundation
import Gateway
import Testing
import YAMLCoding

/// The MQTT 5 and rules-over-MQTT keys of the config (docs/mqtt-api.md, "MQTT 5" and "Rules over
/// MQTT"): their defaults, and the `file:line:column` errors a user sees for bad values.
@Suite struct MQTTConfigTests {
    static let device = "device: {peers: [{address: 1}]}\n"

    @Test func defaults() throws {
        let configuration = try ConfigText.load(Self.device)
        #expect(configuration.mqtt.broker.messageExpiry.seconds == 5)
        #expect(configuration.mqtt.broker.willDelay.seconds == 10)
        #expect(configuration.mqtt.responseTopicPrefixes.isEmpty)
        #expect(configuration.rulesTopic == nil)
        let set = try ConfigText.load(Self.device + "mqtt: {message_expiry: 0s, will_delay: 1m, response_topic_prefixes: [clients/, apps]}\n"
                                + "rules_topic: uwb2mqtt-fleet/rules\n")
        #expect(set.mqtt.broker.messageExpiry.seconds == 0 && set.mqtt.broker.willDelay.seconds == 60)
        #expect(set.mqtt.responseTopicPrefixes == ["clients/", "apps"] && set.rulesTopic == "uwb2mqtt-fleet/rules")
    }

    @Test(arguments: [
        ("mqtt: {message_expiry: 1.5s}", "c.yaml:2:24: mqtt.message_expiry is whole seconds from 0s to 1d"),
        ("mqtt: {will_delay: 25h}", "c.yaml:2:20: mqtt.will_delay is whole seconds from 0s to 1d"),
        ("mqtt: {response_topic_prefixes: [\"a/#\"]}", "c.yaml:2:33: mqtt.response_topic_prefixes holds topic prefixes"),
        ("mqtt: {response_topic_prefixes: [\"\"]}", "c.yaml:2:33: mqtt.response_topic_prefixes holds topic prefixes"),
        ("rules_topic: \"site/+/rules\"", "c.yaml:2:14: rules_topic must be one topic"),
        ("gateway: {id: lobby}\nrules_topic: uwb2mqtt/lobby/rules", "c.yaml:3:14: rules_topic must lie outside the gateway's own tree uwb2mqtt/lobby/"),
    ])
    func badValuesSayWhere(_ yaml: String, _ message: String) {
        let text = ConfigText.failure(Self.device + yaml)
        #expect(text.hasPrefix(message), "\(text)")
    }
}
