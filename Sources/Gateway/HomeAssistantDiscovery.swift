import Service
import Vocabulary
import UCI

/// Home Assistant MQTT discovery (mqtt-api.md): a device registry entry for the gateway, a
/// distance sensor per peer, availability from the retained `status`. Configs are retained
/// under `homeassistant/…`; a peer that left the config gets an empty retained payload.
struct HomeAssistantDiscovery {
    let topics: TopicTree
    let gatewayID: String

    var nodeID: String { "uwb2mqtt_\(topics.gateway)" }

    /// Retained discovery configs of this gateway, as published by any run of it.
    var ownConfigFilter: String { "homeassistant/+/\(nodeID)/+/config" }

    func distanceTopic(peerSegment: String) -> String {
        "homeassistant/sensor/\(nodeID)/\(TopicSegment.sanitize(peerSegment))_distance/config"
    }

    var deviceStateTopic: String { "homeassistant/sensor/\(nodeID)/device_state/config" }

    private var device: JSONValue {
        .object([JSONMember("identifiers", .list([.string(nodeID)])), JSONMember("name", .string("uwb2mqtt \(gatewayID)")),
                 JSONMember("manufacturer", .string("uwb2mqtt")), JSONMember("model", .string("DWM3001C UWB gateway")),
                 JSONMember("sw_version", .string(AgentVersion.agent))])
    }

    private var availability: [JSONMember] {
        [JSONMember("availability_topic", .string(topics.status)),
         JSONMember("availability_template", .string("{{ value_json.state }}")),
         JSONMember("payload_available", .string("online")), JSONMember("payload_not_available", .string("offline"))]
    }

    /// (topic, payload) of every config this gateway publishes for `peers` (display name, segment)
    /// and the rules' `zones`: a binary sensor per zone and peer, on while the peer is in it.
    func configs(peers: [(name: String, segment: String)], zones: [String] = []) -> [(String, [JSONMember])] {
        var result: [(String, [JSONMember])] = []
        result.append((deviceStateTopic, [
            JSONMember("name", .string("UWB device")), JSONMember("unique_id", .string("\(nodeID)_device_state")),
            JSONMember("state_topic", .string(topics.device)), JSONMember("value_template", .string("{{ value_json.state }}")),
            JSONMember("icon", .string("mdi:access-point")), JSONMember("device", device),
        ] + availability))
        for peer in peers {
            let segment = TopicSegment.sanitize(peer.segment)
            result.append((distanceTopic(peerSegment: segment), [
                JSONMember("name", .string("\(peer.name) distance")), JSONMember("unique_id", .string("\(nodeID)_\(segment)_distance")),
                JSONMember("state_topic", .string(topics.peer(segment, .peerRange))),
                JSONMember("value_template", .string("{{ value_json.distance_m }}")),
                JSONMember("unit_of_measurement", .string("m")), JSONMember("device_class", .string("distance")),
                JSONMember("state_class", .string("measurement")), JSONMember("device", device),
            ] + availability))
            for zone in zones {
                let zoneSegment = TopicSegment.sanitize(zone)
                // The zone name goes into a Jinja string literal: only sanitized characters reach it.
                result.append(("homeassistant/binary_sensor/\(nodeID)/\(segment)_\(zoneSegment)/config", [
                    JSONMember("name", .string("\(peer.name) in \(zone)")), JSONMember("unique_id", .string("\(nodeID)_\(segment)_zone_\(zoneSegment)")),
                    JSONMember("state_topic", .string(topics.peer(segment, .peerState))),
                    JSONMember("value_template", .string("{{ 'ON' if value_json.zones | map('lower') | map('regex_replace', '[^a-z0-9_-]', '_') | select('equalto', '\(zoneSegment)') | list | count > 0 else 'OFF' }}")),
                    JSONMember("payload_on", .string("ON")), JSONMember("payload_off", .string("OFF")),
                    JSONMember("device_class", .string("occupancy")), JSONMember("device", device),
                ] + availability))
            }
        }
        return result
    }
}
