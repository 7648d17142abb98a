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

    private var device: FieldValue {
        .object([Field("identifiers", .list([.string(nodeID)])), Field("name", .string("uwb2mqtt \(gatewayID)")),
                 Field("manufacturer", .string("uwb2mqtt")), Field("model", .string("DWM3001C UWB gateway")),
                 Field("sw_version", .string(AgentVersion.agent))])
    }

    private var availability: [Field] {
        [Field("availability_topic", .string(topics.status)),
         Field("availability_template", .string("{{ value_json.state }}")),
         Field("payload_available", .string("online")), Field("payload_not_available", .string("offline"))]
    }

    /// (topic, payload) of every config this gateway publishes for `peers` (display name, segment)
    /// and the rules' `zones`: a binary sensor per zone and peer, on while the peer is in it.
    func configs(peers: [(name: String, segment: String)], zones: [String] = []) -> [(String, [Field])] {
        var result: [(String, [Field])] = []
        result.append((deviceStateTopic, [
            Field("name", .string("UWB device")), Field("unique_id", .string("\(nodeID)_device_state")),
            Field("state_topic", .string(topics.device)), Field("value_template", .string("{{ value_json.state }}")),
            Field("icon", .string("mdi:access-point")), Field("device", device),
        ] + availability))
        for peer in peers {
            let segment = TopicSegment.sanitize(peer.segment)
            result.append((distanceTopic(peerSegment: segment), [
                Field("name", .string("\(peer.name) distance")), Field("unique_id", .string("\(nodeID)_\(segment)_distance")),
                Field("state_topic", .string(topics.peer(segment, "range"))),
                Field("value_template", .string("{{ value_json.distance_m }}")),
                Field("unit_of_measurement", .string("m")), Field("device_class", .string("distance")),
                Field("state_class", .string("measurement")), Field("device", device),
            ] + availability))
            for zone in zones {
                let zoneSegment = TopicSegment.sanitize(zone)
                // The zone name goes into a Jinja string literal: only sanitized characters reach it.
                result.append(("homeassistant/binary_sensor/\(nodeID)/\(segment)_\(zoneSegment)/config", [
                    Field("name", .string("\(peer.name) in \(zone)")), Field("unique_id", .string("\(nodeID)_\(segment)_zone_\(zoneSegment)")),
                    Field("state_topic", .string(topics.peer(segment, "state"))),
                    Field("value_template", .string("{{ 'ON' if value_json.zones | map('lower') | map('regex_replace', '[^a-z0-9_-]', '_') | select('equalto', '\(zoneSegment)') | list | count > 0 else 'OFF' }}")),
                    Field("payload_on", .string("ON")), Field("payload_off", .string("OFF")),
                    Field("device_class", .string("occupancy")), Field("device", device),
                ] + availability))
            }
        }
        return result
    }
}
