import MQTTClient
import Service
import Vocabulary
import DeviceLink
import FoundationEssentials
import UCI
import YAMLCoding

/// The agent's configuration file (cli-and-config.md, "Configuration file"): every key with the
/// default the spec shows, unknown keys rejected with line and column (by `YAMLDecoder`), and
/// values checked so that a typo never silently changes behaviour.
public struct AgentConfiguration: Sendable, Decodable {
    public struct Gateway: Sendable, Decodable {
        public var id: String
        public var position: SitePoint?
        public var headingDegrees: Double

        enum CodingKeys: String, CodingKey { case id, position, headingDegrees = "heading_deg" }

        public init(id: String = AgentConfiguration.defaultGatewayID, position: SitePoint? = nil, headingDegrees: Double = 90) {
            self.id = id
            self.position = position
            self.headingDegrees = headingDegrees
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decodeIfPresent(String.self, forKey: .id) ?? AgentConfiguration.defaultGatewayID
            position = try c.decodeIfPresent(SitePoint.self, forKey: .position)
            headingDegrees = try c.decodeIfPresent(Double.self, forKey: .headingDegrees) ?? 90
            if TopicSegment.sanitize(id).isEmpty || id.isEmpty {
                throw SourceError(at: SourceLocating.mark(of: decoder) ?? .unknown, "gateway.id must not be empty")
            }
            if TopicSegment.sanitize(id).count > TopicSegment.maximumLength {
                throw SourceError(at: SourceLocating.mark(of: decoder) ?? .unknown,
                                "gateway.id is at most \(TopicSegment.maximumLength) characters, found \(id.count)")
            }
        }
    }

    public struct Peer: Sendable, Decodable, Hashable {
        public var address: ShortAddress
        public var name: String?

        public init(address: UInt16, name: String? = nil) {
            self.address = ShortAddress(address)
            self.name = name
        }

        /// The name payloads carry: the configured name, or the address notation.
        public var displayName: String { name ?? address.description }
        /// The topic segment: the sanitized name, or the address in lower case.
        public var topicSegment: String { TopicSegment.sanitize(name ?? address.description.lowercased()) }
    }

    public struct Device: Sendable, Decodable {
        public var port = "auto"
        public var baud = 115_200
        public var channel: UInt8 = 9
        public var role: DeviceType = .controller
        public var sessionID: UInt32 = 42
        public var address = ShortAddress(0)
        /// Which peers the session is for; `air` and the default `rangingInterval` follow it.
        public var profile: RangingProfile = .qorvo
        public var rangingInterval = RangingProfile.qorvo.rangingInterval
        /// The profile's air parameters with the config's explicit keys applied.
        public var air = RangingProfile.qorvo.air
        /// May be empty: a gateway that only ranges with phones that ask (`phones:`) has no
        /// session of its own.
        public var peers: [Peer] = []

        enum CodingKeys: String, CodingKey {
            case port, baud, channel, role, address, peers, profile, hopping
            case sessionID = "session_id", rangingInterval = "ranging_interval"
            case preambleIndex = "preamble_index", slotsPerRound = "slots_per_round", slotDuration = "slot_duration"
            case rangingRoundControl = "ranging_round_control", sessionKeyInfo = "session_key_info"
        }

        /// FiRa allows more, but fewer than 4 slots cannot hold one DS-TWR exchange with its
        /// control and report messages, and more than 32 only lengthens the round.
        public static let slotsPerRound: ClosedRange<Int> = 4...32

        public init(peers: [Peer]) { self.peers = peers }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            func mark(_ key: CodingKeys) -> SourceMark { AgentConfiguration.mark(of: decoder, key: key.stringValue) }
            port = try c.decodeIfPresent(String.self, forKey: .port) ?? "auto"
            baud = try c.decodeIfPresent(Int.self, forKey: .baud) ?? 115_200
            channel = try c.decodeIfPresent(UInt8.self, forKey: .channel) ?? 9
            guard channel == 5 || channel == 9 else { throw SourceError(at: mark(.channel), "device.channel must be 5 or 9 (the DWM3001C's channels), found \(channel)") }
            if let text = try c.decodeIfPresent(String.self, forKey: .role) {
                switch text {
                case "controller": role = .controller
                case "controlee": role = .controlee
                default: throw SourceError(at: mark(.role), "device.role must be controller or controlee, found \(Excerpt.quoted(text))")
                }
            }
            sessionID = try c.decodeIfPresent(UInt32.self, forKey: .sessionID) ?? 42
            address = try c.decodeIfPresent(ShortAddress.self, forKey: .address) ?? ShortAddress(0)
            try decodeAir(c, mark: mark)
            peers = try c.decodeIfPresent([Peer].self, forKey: .peers) ?? []
            let limit = min(profile.maximumPeers, role == .controller ? RangingSessionConfiguration.maximumPeers : 1)
            guard peers.count <= limit else {
                throw SourceError(at: mark(.peers), role == .controlee
                    ? "a controlee ranges with one peer (its controller), found \(peers.count)"
                    : profile == .android
                    ? "device.profile android ranges with one peer (Jetpack's unicast session), found \(peers.count); "
                      + "more phones join through the phone_session request instead"
                    : "device.peers lists at most \(limit) peers, found \(peers.count)")
            }
            var addresses: Set<UInt16> = []
            var segments: [String: String] = [:]
            for peer in peers {
                guard addresses.insert(peer.address.value).inserted else {
                    throw SourceError(at: mark(.peers), "peer address \(peer.address) is listed twice")
                }
                guard peer.address != address else {
                    throw SourceError(at: mark(.peers), "peer address \(peer.address) is this device's own address")
                }
                guard peer.topicSegment.count <= TopicSegment.maximumLength else {
                    throw SourceError(at: mark(.peers), "peer name \(Excerpt.quoted(peer.displayName)) is \(peer.displayName.count) characters; "
                                    + "a peer name is at most \(TopicSegment.maximumLength)")
                }
                if let other = segments[peer.topicSegment] {
                    throw SourceError(at: mark(.peers), "peer names \(Excerpt.quoted(other)) and \(Excerpt.quoted(peer.displayName)) both become the topic segment \(Excerpt.quoted(peer.topicSegment))")
                }
                segments[peer.topicSegment] = peer.displayName
            }
        }

        /// The profile, then the keys that override single values of it, each checked against
        /// what both the DWM3001C and Jetpack accept, and the interval against the round length.
        private mutating func decodeAir(_ c: KeyedDecodingContainer<CodingKeys>, mark: (CodingKeys) -> SourceMark) throws {
            if let text = try c.decodeIfPresent(String.self, forKey: .profile) {
                guard let known = RangingProfile(rawValue: text) else {
                    throw SourceError(at: mark(.profile), "device.profile must be qorvo or android, found \(Excerpt.quoted(text))")
                }
                profile = known
            }
            air = profile.air
            if let index = try c.decodeIfPresent(Int.self, forKey: .preambleIndex) {
                let allowed = AirParameters.preambleCodeIndices
                guard allowed.contains(where: { Int($0) == index }) else {
                    throw SourceError(at: mark(.preambleIndex), "device.preamble_index must be \(allowed.lowerBound) to \(allowed.upperBound) "
                                    + "(the BPRF codes both the DWM3001C and phones use), found \(index)")
                }
                air.preambleCodeIndex = UInt8(index)
            }
            if let slots = try c.decodeIfPresent(Int.self, forKey: .slotsPerRound) {
                guard Self.slotsPerRound.contains(slots) else {
                    throw SourceError(at: mark(.slotsPerRound), "device.slots_per_round must be \(Self.slotsPerRound.lowerBound) "
                                    + "to \(Self.slotsPerRound.upperBound), found \(slots)")
                }
                air.slotsPerRound = UInt8(slots)
            }
            if let span = try c.decodeIfPresent(TimeSpan.self, forKey: .slotDuration) {
                let milliseconds = span.seconds * 1000
                switch milliseconds {
                case 0.999_999...1.000_001: air.slotDurationRSTU = 1200
                case 1.999_999...2.000_001: air.slotDurationRSTU = 2400
                default:
                    let found = abs(milliseconds - milliseconds.rounded()) < 1e-6 ? span.description : "\(milliseconds)ms"
                    throw SourceError(at: mark(.slotDuration), "device.slot_duration must be 1ms or 2ms (the slot lengths phones use), found \(found)")
                }
            }
            if let hopping = try c.decodeIfPresent(Bool.self, forKey: .hopping) { air.hopping = hopping }
            if let control = try c.decodeIfPresent(Int.self, forKey: .rangingRoundControl) {
                guard (0...255).contains(control) else {
                    throw SourceError(at: mark(.rangingRoundControl), "device.ranging_round_control must be 0 to 255 (one byte of flags), found \(control)")
                }
                air.rangingRoundControl = UInt8(control)
            }
            if let text = try c.decodeIfPresent(String.self, forKey: .sessionKeyInfo) {
                air.sessionKeyInfo = try AgentConfiguration.sessionKeyInfo(text, key: "device.session_key_info", at: mark(.sessionKeyInfo))
            }
            rangingInterval = try c.decodeIfPresent(TimeSpan.self, forKey: .rangingInterval) ?? profile.rangingInterval
            guard (0.05...10).contains(rangingInterval.seconds) else {
                throw SourceError(at: mark(.rangingInterval), "device.ranging_interval must be between 50ms and 10s, found \(rangingInterval)")
            }
            let round = TimeSpan(seconds: Double(air.slotsPerRound) * Double(air.slotDurationRSTU) / 1_200_000)
            guard round.seconds <= rangingInterval.seconds + 1e-9 else {
                throw SourceError(at: mark(.rangingInterval), "device.ranging_interval (\(rangingInterval)) is shorter than one ranging round "
                                + "(\(air.slotsPerRound) slots of \(air.slotDurationRSTU / 1200)ms = \(round)); lengthen it or use fewer slots")
            }
        }

        /// The ranging session this section describes.
        public var session: RangingSessionConfiguration {
            RangingSessionConfiguration(role: role, sessionID: sessionID, ownAddress: address.value, peers: peers.map(\.address.value),
                                        channel: channel, rangingIntervalMilliseconds: UInt32((rangingInterval.seconds * 1000).rounded()),
                                        air: air)
        }
    }

    public struct MQTT: Sendable, Decodable {
        /// How to reach the broker: the keys the fuse's `mqtt` section has too.
        public var broker = BrokerSettings()
        public var qosRanges = 0
        public var stateInterval = TimeSpan(seconds: 1)
        public var metricsInterval = TimeSpan(seconds: 30)
        public var homeAssistant = false
        public var spoolDir = "/var/lib/uwb2mqtt"
        public var spoolMaxBytes = ByteSize(bytes: 64 << 20)
        /// Where MQTT 5 requesters may have answers sent besides `<base>/<gw>/response/…`
        /// (`ResponseTopicPolicy`): topic prefixes such as `clients/`.
        public var responseTopicPrefixes: [String] = []

        /// The agent's own keys, beside the broker's (`BrokerSettings`).
        enum CodingKeys: String, CodingKey {
            case qosRanges = "qos_ranges", stateInterval = "state_interval"
            case metricsInterval = "metrics_interval", homeAssistant = "home_assistant", spoolDir = "spool_dir"
            case spoolMaxBytes = "spool_max_bytes", responseTopicPrefixes = "response_topic_prefixes"
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            func mark(_ key: CodingKeys) -> SourceMark { AgentConfiguration.mark(of: decoder, key: key.stringValue) }
            broker = try BrokerSettings(from: decoder)
            qosRanges = try c.decodeIfPresent(Int.self, forKey: .qosRanges) ?? 0
            guard (0...1).contains(qosRanges) else { throw SourceError(at: mark(.qosRanges), "mqtt.qos_ranges must be 0 or 1, found \(qosRanges)") }
            stateInterval = try c.decodeIfPresent(TimeSpan.self, forKey: .stateInterval) ?? stateInterval
            metricsInterval = try c.decodeIfPresent(TimeSpan.self, forKey: .metricsInterval) ?? metricsInterval
            guard metricsInterval.seconds >= 1 else { throw SourceError(at: mark(.metricsInterval), "mqtt.metrics_interval must be at least 1s") }
            homeAssistant = try c.decodeIfPresent(Bool.self, forKey: .homeAssistant) ?? false
            spoolDir = try c.decodeIfPresent(String.self, forKey: .spoolDir) ?? spoolDir
            spoolMaxBytes = try c.decodeIfPresent(ByteSize.self, forKey: .spoolMaxBytes) ?? spoolMaxBytes
            guard spoolMaxBytes.bytes >= 64 << 10 else { throw SourceError(at: mark(.spoolMaxBytes), "mqtt.spool_max_bytes must be at least 64KiB") }
            responseTopicPrefixes = try c.decodeIfPresent([String].self, forKey: .responseTopicPrefixes) ?? []
            for prefix in responseTopicPrefixes {
                guard !prefix.isEmpty, prefix != "/", prefix.utf8.count <= 256,
                      !prefix.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 < 0x20 }) else {
                    throw SourceError(at: mark(.responseTopicPrefixes), "mqtt.response_topic_prefixes holds topic prefixes such as "
                                      + "\"clients/\": not empty, at most 256 bytes, without wildcards; found \(Excerpt.quoted(prefix))")
                }
            }
        }
    }

    public var gateway = Gateway()
    public var device: Device
    public var mqtt = MQTT()
    /// Phones that ask for a ranging session over MQTT (`phones:`).
    public var phones = PhoneSettings()
    public var rules = "/etc/uwb2mqtt/rules.yaml"
    /// `rules_topic: TOPIC`: a site-wide topic whose (retained) rules file this gateway follows,
    /// validated, written to `rules` and loaded as `rules_set`'s. Absent by default.
    public var rulesTopic: String?
    /// `record: PATH`: every UCI packet received is also written to PATH (rotated at 16 MiB,
    /// four files), so that a field problem can be captured and replayed. Absent by default.
    public var record: String?
    public var logLevel: LogLevel = .info
    /// The file this configuration came from, for messages.
    public var source = "<defaults>"

    enum CodingKeys: String, CodingKey { case gateway, device, mqtt, phones, rules, record, logLevel = "log_level", rulesTopic = "rules_topic" }

    public init(device: Device) { self.device = device }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        gateway = try c.decodeIfPresent(Gateway.self, forKey: .gateway) ?? Gateway()
        device = try c.decode(Device.self, forKey: .device)
        mqtt = try c.decodeIfPresent(MQTT.self, forKey: .mqtt) ?? MQTT()
        phones = try c.decodeIfPresent(PhoneSettings.self, forKey: .phones) ?? PhoneSettings()
        rules = try c.decodeIfPresent(String.self, forKey: .rules) ?? rules
        rulesTopic = try c.decodeIfPresent(String.self, forKey: .rulesTopic)
        if let rulesTopic, let problem = MQTTTopic.publishProblem(rulesTopic) ?? (rulesTopic.utf8.count > 512 ? "it is longer than 512 bytes" : nil) {
            throw SourceError(at: Self.mark(of: decoder, key: CodingKeys.rulesTopic.stringValue), "rules_topic must be one topic: \(problem)")
        }
        // The gateway publishes its own tree, `rules` among it: following a topic there, it would
        // read its own messages as rules.
        if let rulesTopic, rulesTopic == topics.root || rulesTopic.hasPrefix(topics.root + "/") {
            throw SourceError(at: Self.mark(of: decoder, key: CodingKeys.rulesTopic.stringValue),
                              "rules_topic must lie outside the gateway's own tree \(topics.root)/…, e.g. uwb2mqtt-fleet/rules")
        }
        record = try c.decodeIfPresent(String.self, forKey: .record)
        if let level = try c.decodeIfPresent(String.self, forKey: .logLevel) {
            switch level {
            case "error": logLevel = .error
            case "warning": logLevel = .warning
            case "info": logLevel = .info
            case "debug": logLevel = .debug
            default:
                throw SourceError(at: Self.mark(of: decoder, key: "log_level"), "log_level must be error, warning, info or debug, found \(Excerpt.quoted(level))")
            }
        }
    }

    /// What is valid but unwise in this configuration: `check` prints these, `doctor` reports
    /// them and the agent logs them at start.
    public var warnings: [ConfigurationWarning] {
        var warnings: [ConfigurationWarning] = []
        // The device key only matters when the device has a session of its own.
        if !device.peers.isEmpty, device.air.sessionKeyInfo.isWellKnown {
            warnings.append(.wellKnownKey(device.air.sessionKeyInfo, keyPath: ["device", "session_key_info"], sessions: "these sessions",
                                          advice: "set a random one (openssl rand -hex 8) on every gateway and tag"))
        }
        if phones.enabled, let key = phones.sessionKeyInfo, key.isWellKnown {
            warnings.append(.wellKnownKey(key, keyPath: ["phones", "session_key_info"], sessions: "the phones' sessions",
                                          advice: "leave it at random"))
        }
        return warnings
    }

    /// The MQTT client id: configured, else `uwb2mqtt-<gateway id>`.
    public var clientID: String { mqtt.broker.clientID ?? "uwb2mqtt-\(TopicSegment.sanitize(gateway.id))" }

    public var topics: TopicTree { TopicTree(base: mqtt.broker.baseTopic, gatewayID: gateway.id) }

    public static let defaultPath = "/etc/uwb2mqtt/config.yaml"

    /// The host name, lower-cased and sanitized (the default `gateway.id`).
    public static var defaultGatewayID: String {
        TopicSegment.sanitize(ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "gateway")
    }

    /// Reads and validates a config file; errors are `file:line:column: message`.
    public static func load(path: String) throws -> AgentConfiguration {
        let bytes: [UInt8]
        switch FileSystem.readTextFile(at: path) {
        case let .success(read): bytes = read
        case let .failure(problem): throw ConfigurationError("cannot read \(path): \(problem)")
        }
        var config = try YAMLDecoder().decode(AgentConfiguration.self, from: Data(bytes), file: path)
        config.source = path
        return config
    }

    /// Sixteen hex digits, VENDOR_ID then STATIC_STS_IV (spaces or colons between bytes allowed).
    /// The message never repeats the text: it may be a real key, and secrets are never printed.
    static func sessionKeyInfo(_ text: String, key: String, orRandom: Bool = false, at mark: SourceMark) throws -> SessionKeyInfo {
        let digits = text.filter { $0 != " " && $0 != ":" }
        let allowed = "\(key) must be \(orRandom ? "random or " : "")16 hex digits (8 bytes: VENDOR_ID, then STATIC_STS_IV; openssl rand -hex 8 makes one)"
        guard digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
            throw SourceError(at: mark, "\(allowed), found a character that is not a hex digit")
        }
        guard digits.count == 2 * SessionKeyInfo.size, let info = SessionKeyInfo(hex: digits) else {
            throw SourceError(at: mark, "\(allowed), found \(digits.count) digit\(digits.count == 1 ? "" : "s")")
        }
        return info
    }

    /// The mark of a key's value within the mapping `decoder` is at, for validation errors.
    static func mark(of decoder: any Decoder, key: String) -> SourceMark {
        if case let .mapping(entries)? = YAMLDecoder.node(of: decoder)?.content,
           let entry = entries.first(where: { $0.key == key }) {
            return entry.value.mark
        }
        return SourceLocating.mark(of: decoder) ?? .unknown
    }
}


extension SourceMark {
    static let unknown = SourceMark(file: "<config>", line: 0, column: 0)
}
