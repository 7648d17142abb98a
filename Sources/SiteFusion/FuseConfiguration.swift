import Vocabulary

/// The `uwb2mqtt fuse --config FILE` configuration (mqtt-api.md, "Site positions"):
///
/// ```yaml
/// site: lobby
/// mqtt: {url: mqtt://broker:1883, base_topic: uwb2mqtt}
/// # ranging_interval: 200ms  # default: learned from the gateways' status (200ms until then)
/// # window: 250ms            # default: 1.25 × ranging_interval
/// tag_height: 1.0            # omit to solve z (needs 4 gateways)
/// position_lost_after: 2s
/// # max_clock_skew: 2s       # a range whose ts is further off this machine's clock is dropped
/// # forget_after: 60s        # a peer without a range for this long is forgotten
/// # max_lag: 500ms           # ranges that reach a fuse this far behind are dropped, not fused
/// # shard: {index: 0, count: 2}   # one of two processes that split the site's tags
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
    public var mqtt: BrokerSettings
    /// The gateways' ranging interval (their `device.ranging_interval`; the slowest, if they
    /// differ): each gateway measures a tag once per interval. nil: learned from the
    /// `ranging_interval_ms` of their retained status (`defaultRangingInterval` until then).
    public var rangingInterval: TimeSpan?
    /// Ranges within this of each other are combined; nil follows the ranging interval.
    public var window: TimeSpan?
    /// Metres; nil means solve z.
    public var tagHeight: Double?
    public var positionLostAfter: TimeSpan
    /// How far a range's `ts` may be from this machine's clock at its arrival. The fuse dates
    /// ranges by their arrival, so a gateway's clock cannot reorder them; this only drops what
    /// no honest gateway with a synchronised clock sends — a range from the future, or one held
    /// back (a replay, a backlog) that no longer says where the tag is.
    public var maxClockSkew: TimeSpan
    /// A peer without a range for this long is forgotten and its retained state cleared: peer
    /// names come from the network, and one never seen again must not be kept for ever. More
    /// than `position_lost_after`, so that the loss is announced first.
    public var forgetAfter: TimeSpan
    public var zones: [FuseZone]
    /// A range that reaches the fuse more than this behind the others of its gateway (`RangeLag`)
    /// is dropped: a fuse that falls behind sheds the oldest ranges rather than publish
    /// positions seconds late.
    public var maxLag: TimeSpan
    /// Which of the site's tags this process fuses (all of them by default).
    public var shard: FuseShard

    enum CodingKeys: String, CodingKey {
        case site, mqtt, window, zones, shard
        case rangingInterval = "ranging_interval"
        case tagHeight = "tag_height", positionLostAfter = "position_lost_after"
        case maxClockSkew = "max_clock_skew", forgetAfter = "forget_after", maxLag = "max_lag"
    }

    /// The agent's default `device.ranging_interval`.
    public static let defaultRangingInterval = TimeSpan(seconds: 0.2)
    /// The window as a multiple of the ranging interval. At the newest range every gateway's
    /// newest range is at most one interval old, so a window of one interval would keep every
    /// round; the quarter on top absorbs the jitter of the gateways' time stamps. A gateway that
    /// missed its round drops out rather than pulling the fix back to where the tag was.
    public static let windowPerRangingInterval = 1.25
    public static let defaultPositionLostAfter = TimeSpan(seconds: 2)
    /// NTP keeps gateways within milliseconds of each other; two seconds leave room for a
    /// gateway that has just booted and for delivery through a loaded broker or a bridge.
    public static let defaultMaxClockSkew = TimeSpan(seconds: 2)
    /// A minute: a tag out of range for longer comes back as a new peer (its state starts
    /// afresh), and a stream of made-up names holds memory for a minute at most.
    public static let defaultForgetAfter = TimeSpan(seconds: 60)
    /// Half a second: several rounds behind is already a position that lags the person walking.
    public static let defaultMaxLag = TimeSpan(seconds: 0.5)

    public init(site: String, mqtt: BrokerSettings = BrokerSettings(), rangingInterval: TimeSpan? = nil,
                window: TimeSpan? = nil, tagHeight: Double? = nil, positionLostAfter: TimeSpan = defaultPositionLostAfter,
                maxClockSkew: TimeSpan = defaultMaxClockSkew, forgetAfter: TimeSpan = defaultForgetAfter, zones: [FuseZone] = [],
                maxLag: TimeSpan = defaultMaxLag, shard: FuseShard = .whole) {
        self.site = site
        self.mqtt = mqtt
        self.rangingInterval = rangingInterval
        self.window = window
        self.tagHeight = tagHeight
        self.positionLostAfter = positionLostAfter
        self.maxClockSkew = maxClockSkew
        self.forgetAfter = forgetAfter
        self.zones = zones
        self.maxLag = maxLag
        self.shard = shard
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        site = try c.decode(String.self, forKey: .site)
        mqtt = try c.decodeIfPresent(BrokerSettings.self, forKey: .mqtt) ?? BrokerSettings()
        rangingInterval = try c.decodeIfPresent(TimeSpan.self, forKey: .rangingInterval)
        window = try c.decodeIfPresent(TimeSpan.self, forKey: .window)
        tagHeight = try c.decodeIfPresent(Double.self, forKey: .tagHeight)
        positionLostAfter = try c.decodeIfPresent(TimeSpan.self, forKey: .positionLostAfter) ?? Self.defaultPositionLostAfter
        maxClockSkew = try c.decodeIfPresent(TimeSpan.self, forKey: .maxClockSkew) ?? Self.defaultMaxClockSkew
        forgetAfter = try c.decodeIfPresent(TimeSpan.self, forKey: .forgetAfter) ?? Self.defaultForgetAfter
        zones = try c.decodeIfPresent([FuseZone].self, forKey: .zones) ?? []
        maxLag = try c.decodeIfPresent(TimeSpan.self, forKey: .maxLag) ?? Self.defaultMaxLag
        shard = try c.decodeIfPresent(FuseShard.self, forKey: .shard) ?? .whole
    }

    /// Checks every value; throws one error listing all problems, each with its key path
    /// (`zones[1].polygon: …`).
    public func validate() throws(FuseConfigurationError) {
        var problems: [FuseConfigurationError.Problem] = []
        func problem(_ path: String, _ message: String) { problems.append(.init(path: path, message: message)) }

        if site.isEmpty || site.contains(where: { "/+#".contains($0) }) {
            problem("site", "must be a non-empty name without '/', '+' or '#', found \"\(site)\"")
        }
        if let rangingInterval, !(0.05...10).contains(rangingInterval.seconds) {
            problem("ranging_interval", "must be between 50ms and 10s (as the gateways' device.ranging_interval), found \(rangingInterval)")
        }
        if let window, !(window.seconds > 0) || window.seconds > 10 {
            problem("window", "must be more than 0 and at most 10s, found \(window)")
        }
        if let tagHeight, !tagHeight.isFinite {
            problem("tag_height", "must be a finite number of metres")
        }
        if !(positionLostAfter.seconds > 0) {
            problem("position_lost_after", "must be more than 0, found \(positionLostAfter)")
        } else if positionLostAfter.seconds < effectiveWindow.seconds {
            problem("position_lost_after", "must be at least the window (\(effectiveWindow)), found \(positionLostAfter)")
        } else if !positionLostAfter.seconds.isFinite {
            problem("position_lost_after", "must be a finite duration")
        }
        if !(maxClockSkew.seconds > 0) || !maxClockSkew.seconds.isFinite {
            problem("max_clock_skew", "must be more than 0 and finite, found \(maxClockSkew)")
        }
        if !forgetAfter.seconds.isFinite {
            problem("forget_after", "must be a finite duration, found \(forgetAfter)")
        } else if !(forgetAfter.seconds > positionLostAfter.seconds) {
            problem("forget_after", "must be more than position_lost_after (\(positionLostAfter)), found \(forgetAfter)")
        }
        if !(maxLag.seconds > 0) || !maxLag.seconds.isFinite {
            problem("max_lag", "must be more than 0 and finite, found \(maxLag)")
        }
        if !(1...64).contains(shard.count) || !(0..<max(shard.count, 1)).contains(shard.index) {
            problem("shard", "needs 1 ≤ count ≤ 64 and 0 ≤ index < count, found index \(shard.index), count \(shard.count)")
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

    /// The window in use at the start: the configured one, else 1.25 × the ranging interval
    /// (configured or the default; a learned one changes it later).
    public var effectiveWindow: TimeSpan {
        window ?? TimeSpan(seconds: (rangingInterval ?? Self.defaultRangingInterval).seconds * Self.windowPerRangingInterval)
    }

    /// Settings that work against each other without being invalid, one sentence each.
    public var warnings: [String] {
        guard let window, let rangingInterval, window.seconds < rangingInterval.seconds else { return [] }
        return ["window \(window) is shorter than the ranging_interval \(rangingInterval): some ranges will never be part of a "
                + "position (leave window out to follow the ranging interval)"]
    }

    /// The tracker settings this configuration describes.
    public var fusionSettings: FusionSettings {
        FusionSettings(window: effectiveWindow.seconds, tagHeight: tagHeight, positionLostAfter: positionLostAfter.seconds,
                       forgetAfter: forgetAfter.seconds, windowFollowsGateways: window == nil && rangingInterval == nil)
    }

    /// The zones as the tracker uses them.
    public var polygonZones: [PolygonZone] { zones.map(\.polygonZone) }
}
