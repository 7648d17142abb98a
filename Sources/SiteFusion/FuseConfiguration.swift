/// The `uwb2mqtt fuse --config FILE` configuration (mqtt-api.md, "Site positions"):
///
/// ```yaml
/// site: lobby
/// mqtt: {url: mqtt://broker:1883, base_topic: uwb2mqtt}
/// window: 150ms
/// tag_height: 1.0            # omit to solve z (needs 4 gateways)
/// position_lost_after: 2s
/// zones:
///   - {name: checkout, polygon: [[0, 0], [2, 0], [2, 1.5], [0, 1.5]], hysteresis: 0.2, dwell: 300ms}
/// ```
///
/// Decoding checks types and fills defaults; ``validate()`` checks values and names every problem
/// at once with its key path. Kept apart so that this target needs no YAML library: the service
/// decodes with the project's `YAMLDecoder` (which locates unknown keys and type errors) and then
/// calls `validate()`.
public struct FuseConfiguration: Hashable, Sendable, Decodable {
    /// The site name: the `<site>` topic segment.
    public var site: String
    public var mqtt: FuseMQTTSettings
    public var window: FuseDuration
    /// Metres; nil means solve z.
    public var tagHeight: Double?
    public var positionLostAfter: FuseDuration
    public var zones: [FuseZone]

    enum CodingKeys: String, CodingKey {
        case site, mqtt, window, zones
        case tagHeight = "tag_height", positionLostAfter = "position_lost_after"
    }

    public static let defaultWindow = FuseDuration(seconds: 0.15)
    public static let defaultPositionLostAfter = FuseDuration(seconds: 2)

    public init(site: String, mqtt: FuseMQTTSettings = FuseMQTTSettings(), window: FuseDuration = defaultWindow,
                tagHeight: Double? = nil, positionLostAfter: FuseDuration = defaultPositionLostAfter, zones: [FuseZone] = []) {
        self.site = site
        self.mqtt = mqtt
        self.window = window
        self.tagHeight = tagHeight
        self.positionLostAfter = positionLostAfter
        self.zones = zones
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        site = try c.decode(String.self, forKey: .site)
        mqtt = try c.decodeIfPresent(FuseMQTTSettings.self, forKey: .mqtt) ?? FuseMQTTSettings()
        window = try c.decodeIfPresent(FuseDuration.self, forKey: .window) ?? Self.defaultWindow
        tagHeight = try c.decodeIfPresent(Double.self, forKey: .tagHeight)
        positionLostAfter = try c.decodeIfPresent(FuseDuration.self, forKey: .positionLostAfter) ?? Self.defaultPositionLostAfter
        zones = try c.decodeIfPresent([FuseZone].self, forKey: .zones) ?? []
    }

    /// Checks every value; throws one error listing all problems, each with its key path
    /// (`zones[1].polygon: …`).
    public func validate() throws(FuseConfigurationError) {
        var problems: [FuseConfigurationError.Problem] = []
        func problem(_ path: String, _ message: String) { problems.append(.init(path: path, message: message)) }

        if site.isEmpty || site.contains(where: { "/+#".contains($0) }) {
            problem("site", "must be a non-empty name without '/', '+' or '#', found \"\(site)\"")
        }
        problems += mqtt.problems()
        if !(window.seconds > 0) || window.seconds > 10 {
            problem("window", "must be more than 0 and at most 10s, found \(window)")
        }
        if let tagHeight, !tagHeight.isFinite {
            problem("tag_height", "must be a finite number of metres")
        }
        if !(positionLostAfter.seconds > 0) {
            problem("position_lost_after", "must be more than 0, found \(positionLostAfter)")
        } else if positionLostAfter.seconds < window.seconds {
            problem("position_lost_after", "must be at least the window (\(window)), found \(positionLostAfter)")
        }
        var names: [String: Int] = [:]
        for (i, zone) in zones.enumerated() {
            problems += zone.problems(path: "zones[\(i)]")
            if let first = names[zone.name] {
                problem("zones[\(i)].name", "\"\(zone.name)\" is already the name of zones[\(first)]")
            } else {
                names[zone.name] = i
            }
        }
        if !problems.isEmpty { throw FuseConfigurationError(problems: problems) }
    }

    /// The tracker settings this configuration describes.
    public var fusionSettings: FusionSettings {
        FusionSettings(window: window.seconds, tagHeight: tagHeight, positionLostAfter: positionLostAfter.seconds)
    }

    /// The zones as the tracker uses them.
    public var polygonZones: [PolygonZone] { zones.map(\.polygonZone) }
}
