import Vocabulary
import Service
import SiteFusion

/// The decisions of `uwb2mqtt fuse` without its I/O: a message from the broker (topic, payload
/// bytes, the moment it arrived) or the passing of time in, what to publish and what to log out.
/// `FuseService` only moves bytes and time between this and the broker; the fuzzer (FuzzFuse)
/// drives the same code with hostile input.
///
/// Everything it reads comes from whoever can publish under `<base>/`: each payload is read
/// through `PayloadReader` (every number within the bounds its meaning allows), a range's `ts`
/// must be within `max_clock_skew` of the arrival, and what fails is refused
/// (``FuseRejection``), counted per cause and logged at most once per cause per 10 s. The
/// tracker dates every range by its arrival, so no gateway's clock can reorder the site's ranges.
///
/// Times are seconds since the epoch, from the wall clock at the moment the input happened: they
/// date what is published.
public struct FuseCore: Sendable {
    public let configuration: FuseConfiguration
    public let instanceID: String
    public private(set) var tracker: FusionTracker
    /// Whether this instance holds the site (and publishes).
    public private(set) var active = false
    /// The instance that holds the site, as far as this one knows.
    public private(set) var activeInstance: String?
    /// Messages refused, by ``FuseRejection/cause``.
    public private(set) var rejections: [String: Int] = [:]
    /// The site topic segment.
    public let site: String
    /// When to decide, after connecting, whether another instance holds the site.
    private var decideAt: Double?
    private var eventCounter = 0
    private var rejectionLog: [String: LogThrottle] = [:]
    /// Lines that a flood can cause once per message (made-up names, a status that flips the window).
    private var forgettingLog = LogThrottle()
    private var windowLog = LogThrottle()
    /// How far behind the fuse reads each gateway's ranges, and what it dropped for it.
    private var rangeLag = RangeLag()
    /// The lag of the last range read, seconds.
    public private(set) var lag = 0.0
    /// Ranges dropped because they came more than `max_lag` behind (`ranges_dropped`).
    public private(set) var rangesDropped = 0
    /// Whether the fuse is dropping ranges now; when the site status last said how far behind it is.
    private var shedding = false
    private var lagReportedAt = -Double.infinity
    private var sheddingLog = LogThrottle()
    private var caughtUpLog = LogThrottle()
    /// When the fuse last rested (``rested(at:)``): no range read since can be further behind.
    private var restedAt = -Double.infinity
    /// When each known gateway was last heard from (a status or a range), to make room for a
    /// new one when `maximumGateways` are known.
    private var gatewayHeardAt: [String: Double] = [:]
    private let base: String
    private let baseLevels: Int

    /// How long a newly connected instance waits for a retained site status before it takes the
    /// site: another instance may hold it.
    static let standbyWait = 1.0
    /// The most gateways the fuse knows (each status is looked at with every other's, for the
    /// slowest ranging interval) and the most peers it tracks at once (some 1.3 KB each, and a
    /// retained state on the broker until forgotten): a site has a few hundred gateways and a few
    /// thousand tags; names made up on the broker beyond that are refused, not kept.
    public static let maximumGateways = 1_000
    public static let maximumPeers = 20_000

    public init(configuration: FuseConfiguration, instanceID: String) {
        self.configuration = configuration
        self.instanceID = instanceID
        tracker = FusionTracker(settings: configuration.fusionSettings, zones: configuration.polygonZones)
        base = TopicSegment.base(configuration.mqtt.baseTopic)
        baseLevels = base.split(separator: "/", omittingEmptySubsequences: false).count
        site = TopicSegment.sanitize(configuration.site)
        statusTopic = configuration.shard.count > 1
            ? ChannelDeclaration.siteShardStatus.topic(base, site, String(configuration.shard.index))
            : ChannelDeclaration.siteStatus.topic(base, site)
    }

    public var siteRoot: String { "\(base)/site/\(site)" }
    /// The site status, or this shard's when the site is split (`shard`). Every message is
    /// compared with it first, so it is made once.
    public let statusTopic: String
    /// The subscriptions: every gateway's status, every peer's ranges.
    public var gatewayStatusFilter: String { "\(base)/+/status" }
    public var rangeFilter: String { "\(base)/+/peer/+/range" }
    /// The site status this instance's last will leaves.
    public var lastWill: [UInt8] { JSONBytes.object(Self.lastWillFields.members(instanceID)) }

    /// The last will: offline, and which instance left.
    static let lastWillFields = PayloadFields<String>([
        .init(.state, .constant("offline")) { _ in .string("offline") },
        .init(.instance, .string) { .string($0) },
    ])

    /// The next moment ``tick(at:)`` has something to do; nil when nothing can become due
    /// without a message.
    public var nextWake: Double? {
        switch (decideAt, tracker.nextDeadline) {
        case let (decide?, deadline?): min(decide, deadline)
        case let (decide, deadline): decide ?? deadline
        }
    }

    // MARK: inputs

    /// The connection to the broker is up (again).
    public mutating func connected(at time: Double) -> [FuseAction] {
        if !active { decideAt = time + Self.standbyWait }
        return []
    }

    /// Time has passed: decides on standing by, and lets the tracker fire what became due.
    public mutating func tick(at time: Double) -> [FuseAction] {
        var actions: [FuseAction] = []
        if let due = decideAt, time >= due {
            decideAt = nil
            if let holder = activeInstance {
                actions.append(.log(.info, "standing by: instance \(Self.printable(holder)) holds site \(site)"))
            } else {
                actions += becomeActive(at: time)
            }
        }
        return actions + publish(tracker.tick(at: time), at: time)
    }

    /// One message from the broker, received at `time`.
    public mutating func receive(topic: String, payload: some Collection<UInt8>, at time: Double) -> [FuseAction] {
        if topic == statusTopic { return siteStatus(payload, at: time) }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count > baseLevels, topic.hasPrefix(base + "/") else { return [] }
        let gateway = String(levels[baseLevels])
        if levels.count == baseLevels + 2, levels[baseLevels + 1] == "status" {
            return gatewayStatus(gateway, payload, at: time)
        }
        if levels.count == baseLevels + 4, levels[baseLevels + 1] == "peer", levels[baseLevels + 3] == "range" {
            // Another shard's tag: told by the topic, before its payload is read.
            guard configuration.shard.owns(peer: levels[baseLevels + 2].utf8) else { return [] }
            return range(from: gateway, peerSegment: levels[baseLevels + 2], payload, at: time)
        }
        return []
    }

    /// With `maximumGateways` known, the one heard from longest ago makes way for a new one once
    /// it has been silent for `forget_after`: statuses made up on the broker keep real gateways
    /// out only while their publisher keeps sending them.
    private mutating func makeRoomForGateway(at time: Double) -> Bool {
        guard let oldest = gatewayHeardAt.min(by: { $0.value < $1.value }),
              time - oldest.value >= configuration.forgetAfter.seconds else { return false }
        tracker.removeGateway(oldest.key)
        gatewayHeardAt[oldest.key] = nil
        return true
    }

    /// The fuse had read everything that had arrived and waited a while for more: whatever it
    /// reads next is not late on its account, whatever the `ts` of the ranges says. A range's
    /// `ts` is the gateway's word; a `ts` just inside `max_clock_skew` ahead (or a gateway's
    /// clock stepped back) would otherwise set that gateway's least age below its honest ranges
    /// for a minute and have them all dropped as late.
    public mutating func rested(at time: Double) {
        restedAt = time
    }

    /// Shutting down: the site status to leave, if this instance holds the site.
    public func stopping(at time: Double) -> [FuseAction] {
        active ? [publishStatus(online: false, at: time)] : []
    }

    // MARK: messages

    /// A gateway's retained status: where it stands, whether it is online, how often it ranges.
    /// An empty payload is the status cleared: the gateway is forgotten.
    private mutating func gatewayStatus(_ gateway: String, _ payload: some Collection<UInt8>, at time: Double) -> [FuseAction] {
        guard !payload.isEmpty else {
            tracker.removeGateway(gateway)
            gatewayHeardAt[gateway] = nil
            return [.log(.debug, "gateway \(Self.printable(gateway)) removed: its status was cleared")]
        }
        let what = "status of gateway \(Self.printable(gateway))"
        let online: Bool, placed: Bool, x: Double?, y: Double?, z: Double?, interval: Double?
        do throws(PayloadRejection) {
            let reader = try PayloadReader(bytes: payload)
            online = try reader.string(.state) == "online"
            let place = try reader.object(.position)
            placed = place != nil
            x = try place?.number(.x, in: .siteMetres)
            y = try place?.number(.y, in: .siteMetres)
            z = try place?.number(.z, in: .siteMetres)
            interval = try reader.number(.rangingIntervalMs, in: .rangingIntervalMilliseconds)
        } catch {
            return refuse(.payload(error), what, at: time)
        }
        var position: SitePoint?
        if placed {
            guard let x, let y, let z else { return refuse(.incompletePosition, what, at: time) }
            position = SitePoint(x: x, y: y, z: z)
        }
        // Last: a status refused for its content makes no room.
        guard tracker.gateways.entries[gateway] != nil || tracker.gateways.entries.count < Self.maximumGateways
                || makeRoomForGateway(at: time) else {
            return refuse(.tooManyGateways(Self.maximumGateways), what, at: time)
        }
        let before = tracker.window
        tracker.updateGateway(gateway, position: position, online: online, rangingInterval: interval.map { $0 / 1000 })
        gatewayHeardAt[gateway] = time
        var actions: [FuseAction] = []
        if tracker.window != before {
            let line = "window \(TimeSpan(seconds: tracker.window)): 1.25 × the slowest ranging interval the gateways report"
            actions += windowLog.lines(for: line, at: time).map { .log(.info, $0) }
        }
        actions.append(.log(.debug, "gateway \(Self.printable(gateway)) \(online ? "online" : "offline")\(position.map { " at \($0)" } ?? " without a position")"))
        return actions
    }

    /// A gateway's range of a peer: fused when it succeeded with a distance, dated by its arrival.
    private mutating func range(from gateway: String, peerSegment: Substring, _ payload: some Collection<UInt8>, at time: Double) -> [FuseAction] {
        let what = "range from gateway \(Self.printable(gateway))"
        let status: String?, distance: Double?, peer: String?, ts: String?, nlos: Bool?
        do throws(PayloadRejection) {
            let reader = try PayloadReader(bytes: payload)
            status = try reader.string(.status)
            distance = try reader.number(.rawDistanceM, in: .distanceMetres)
            peer = try reader.string(.peer)
            ts = try reader.string(.ts)
            nlos = try reader.bool(.nlos)
        } catch {
            return refuse(.payload(error), what, at: time)
        }
        // A failed measurement says nothing of where the tag is.
        guard status == "ok", let distance else { return [] }
        guard let peer, !peer.isEmpty, peer.count <= TopicSegment.maximumLength else { return refuse(.unusablePeer, what, at: time) }
        let about = "range of \(Self.printable(peer)) from gateway \(Self.printable(gateway))"
        // The shard that owns a tag is told by the topic: a payload naming another tag would have
        // the wrong shard fuse it, or two publish it.
        guard TopicSegment.sanitize(peer) == peerSegment else { return refuse(.peerNotTheTopics, about, at: time) }
        guard tracker.gateways.entries[gateway] != nil else { return refuse(.unknownGateway, about, at: time) }
        gatewayHeardAt[gateway] = time
        guard tracker.peerCount < Self.maximumPeers || tracker.tracks(peer) else { return refuse(.tooManyPeers(Self.maximumPeers), about, at: time) }
        guard let ts else { return refuse(.missingTime, about, at: time) }
        guard let measured = Timestamp.parse(ts) else { return refuse(.unreadableTime, about, at: time) }
        let skew = measured - time
        guard abs(skew) <= configuration.maxClockSkew.seconds else {
            return refuse(.clockSkew(seconds: skew, limit: configuration.maxClockSkew), about, at: time)
        }
        lag = min(rangeLag.lag(of: gateway, age: -skew, at: time), max(0, time - restedAt))
        var actions = followLag(at: time)
        if shedding && lag > configuration.maxLag.seconds {
            rangesDropped += 1
            return actions
        }
        actions += publish(tracker.ingest(GatewayRange(peer: peer, gateway: gateway, distanceM: distance, nlos: nlos ?? false, time: time)), at: time)
        return actions
    }

    /// A fuse that reads ranges more than `max_lag` behind cannot keep up: it drops those until it
    /// has caught up (half of `max_lag`), so that the positions it publishes are of now. It says so
    /// in its log and in the site status (`ranges_dropped`, `lag_ms`), when it starts, every 10 s
    /// while it goes on, and when it ends.
    private mutating func followLag(at time: Double) -> [FuseAction] {
        let limit = configuration.maxLag.seconds
        var actions: [FuseAction] = []
        let changed: Bool
        if !shedding, lag > limit {
            shedding = true
            changed = true
            let line = "falling behind: ranges arrive \(Int(lag * 1000)) ms late (max_lag \(configuration.maxLag)); "
                + "dropping the late ones until caught up (ranges_dropped in the site status)"
            actions += sheddingLog.lines(for: line, at: time).map { .log(.warning, $0) }
        } else if shedding, lag < limit / 2 {
            shedding = false
            changed = true
            actions += caughtUpLog.lines(for: "caught up: \(rangesDropped) ranges dropped so far", at: time).map { .log(.info, $0) }
        } else {
            changed = false
        }
        // Ranges of gateways that are late by different amounts can flip it at every range (both
        // lines are throttled like that): the retained status says so at most once a second.
        guard changed ? time - lagReportedAt >= 1 : shedding && time - lagReportedAt >= 10 else { return actions }
        lagReportedAt = time
        if active { actions.append(publishStatus(online: true, at: time)) }
        return actions
    }

    /// Another instance's status: stand by while it holds the site; take over when it is gone.
    private mutating func siteStatus(_ payload: some Collection<UInt8>, at time: Double) -> [FuseAction] {
        guard !payload.isEmpty else { return statusCleared(at: time) }
        let instance: String?, online: Bool
        do throws(PayloadRejection) {
            let reader = try PayloadReader(bytes: payload)
            instance = try reader.string(.instance)
            online = try reader.string(.state) == "online"
        } catch {
            return refuse(.payload(error), "site status", at: time)
        }
        guard let instance, instance != instanceID else { return [] }
        var actions: [FuseAction] = []
        if online {
            if active, instance < instanceID {
                // Two came up at once: the smaller id keeps the site.
                active = false
                actions.append(.log(.info, "instance \(Self.printable(instance)) also holds site \(site); standing by"))
            }
            if !active { activeInstance = instance }
        } else if instance == activeInstance || activeInstance == nil {
            activeInstance = nil
            actions.append(.log(.info, "instance \(Self.printable(instance)) is gone; taking over site \(site)"))
            actions += becomeActive(at: time)
        } else if active {
            // A stand-by instance's will overwrote the retained status: say again who holds the site.
            actions.append(publishStatus(online: true, at: time))
        }
        return actions
    }

    /// Someone cleared the retained site status (an operator freeing a site held by an instance
    /// that is gone, or anyone on the broker): the holder says it again; an instance standing by
    /// waits as it does after connecting for a holder to do so, and takes the site when none does.
    private mutating func statusCleared(at time: Double) -> [FuseAction] {
        if active { return [publishStatus(online: true, at: time)] }
        guard let holder = activeInstance else { return [] }
        activeInstance = nil
        decideAt = time + Self.standbyWait
        return [.log(.info, "the site status of instance \(Self.printable(holder)) was cleared; taking site \(site) unless it says it holds it")]
    }

    private mutating func becomeActive(at time: Double) -> [FuseAction] {
        guard !active else { return [] }
        active = true
        decideAt = nil
        activeInstance = instanceID
        return [.log(.info, "active for site \(site)"),
                publishStatus(online: true, at: time)]
    }

    /// Counts `rejection` and says so, at most once per cause per 10 s (with the count of the
    /// lines held back since).
    private mutating func refuse(_ rejection: FuseRejection, _ what: String, at time: Double) -> [FuseAction] {
        let cause = rejection.cause
        let count = (rejections[cause] ?? 0) + 1
        rejections[cause] = count
        var throttle = rejectionLog[cause] ?? LogThrottle()
        let lines = throttle.lines(for: "not taking the \(what): \(rejection) (\(count) refused for \(cause))", at: time)
        rejectionLog[cause] = throttle
        return lines.map { .log(.warning, $0) }
    }

    // MARK: output

    /// The retained site status. `zones` (beyond mqtt-api.md) gives each zone's outline, so that
    /// a viewer (`watch --site`) draws the site as the fuse decides on it.
    public func status(online: Bool, at time: Double) -> [UInt8] {
        JSONBytes.object(Self.statusFields.members(StatusSource(core: self, online: online, time: time)))
    }

    struct StatusSource {
        let core: FuseCore
        let online: Bool
        let time: Double
    }

    static let statusFields = PayloadFields<StatusSource>([
        .init(.state, .enumeration(["online", "offline"])) { .string($0.online ? "online" : "offline") },
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.time)) },
        .init(.version, JSONSchema.string.described("the fuse's version")) { _ in .string(AgentVersion.agent) },
        .init(.instance, JSONSchema.string.described("the instance that holds the site")) { .string($0.core.instanceID) },
        .optional(.shard, JSONSchema.string.described("which of the processes that split the site's tags this is: index/count")) {
            $0.core.configuration.shard.count > 1 ? .string("\($0.core.configuration.shard.index)/\($0.core.configuration.shard.count)") : .none
        },
        .init(.rangesDropped, JSONSchema.count.described("ranges dropped because they arrived more than max_lag behind")) {
            .int(Int64($0.core.rangesDropped))
        },
        .init(.lagMs, JSONSchema.count.described("how far behind the ranges read last arrived, milliseconds")) {
            .int(Int64(($0.core.lag * 1000).rounded()))
        },
        .init(.zones, JSONSchema.list(of: zoneFields.schema).described("the site's zones, as the fuse's config outlines them")) {
            .list($0.core.configuration.zones.map { .object(zoneFields.members($0)) })
        },
    ])

    static let zoneFields = PayloadFields<FuseZone>([
        .init(.name, .string) { .string($0.name) },
        .init(.polygon, JSONSchema.list(of: JSONSchema.list(of: .number).with("minItems", 2).with("maxItems", 2))
                .described("the outline's corners, [x, y] in metres of the site frame")) {
            .list($0.polygon.map { .list([millimetres($0.x), millimetres($0.y)]) })
        },
    ])

    /// `status` as a subscriber sees it: the holder's, or an instance's last will.
    public static var statusSchema: JSONSchema { .oneOf([statusFields.schema, lastWillFields.schema]) }

    static let positionFields = PayloadFields<SiteFix>([
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.ts)) },
        .init(.peer, .string) { .string($0.peer) },
        .init(.frame, .constant("site")) { _ in .string("site") },
        .init(.x, JSONSchema.number.described("metres")) { millimetres($0.x) },
        .init(.y, JSONSchema.number.described("metres")) { millimetres($0.y) },
        .init(.z, JSONSchema.number.described("metres")) { millimetres($0.z) },
        .init(.accuracyM, JSONSchema.number.minimum(0).described("metres, from the fit's residuals and geometry")) { millimetres($0.accuracyM) },
        .init(.gateways, JSONSchema.list(of: .string).described("the gateways whose ranges made the fix")) { .list($0.gateways.map(JSONValue.string)) },
        .init(.method, .constant(.string(SiteFix.method))) { _ in .string(SiteFix.method) },
    ])

    static let statePositionFields = PayloadFields<SiteFix>([
        .init(.x, .number) { millimetres($0.x) }, .init(.y, .number) { millimetres($0.y) }, .init(.z, .number) { millimetres($0.z) },
        .init(.accuracyM, JSONSchema.number.minimum(0)) { millimetres($0.accuracyM) },
    ])

    static let stateFields = PayloadFields<SitePeerState>([
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.ts)) },
        .init(.peer, .string) { .string($0.peer) },
        .init(.position, statePositionFields.schema.orNull().described("the last fix, metres; null without one")) {
            $0.position.map { .object(statePositionFields.members($0)) } ?? .null
        },
        .init(.zones, JSONSchema.list(of: .string).described("the site zones the peer is in")) { .list($0.zones.map(JSONValue.string)) },
        .init(.gatewaysInRange, .count) { .int(Int64($0.gatewaysInRange)) },
    ])

    struct EventSource {
        let event: SiteEvent
        let id: String
    }

    static let eventFields = PayloadFields<EventSource>([
        .init(.id, JSONSchema.string.described("site-<site>:<instance>:<counter>")) { .string($0.id) },
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.event.ts)) },
        .init(.peer, .string) { .string($0.event.peer) },
        .init(.type, .enumeration(SiteEvent.Kind.allCases.map(\.rawValue))) { .string($0.event.type.rawValue) },
        .init(.rule, JSONSchema.string.orNull().described("the site zone")) { $0.event.zone.map(JSONValue.string) ?? .null },
        .init(.from, .string) { .string($0.event.from) },
        .init(.to, .string) { .string($0.event.to) },
        .init(.distanceM, JSONSchema.constant(.null).described("always null: a site event is about a position")) { _ in .null },
        .init(.reason, reasonFields.schema) { .object(reasonFields.members($0.event.reason)) },
        .init(.cue, JSONSchema.constant(.null)) { _ in .null },
    ])

    static let reasonFields = PayloadFields<SiteEventReason>([
        .optional(.thresholdM, JSONSchema.number.described("the zone's hysteresis, metres")) { $0.thresholdM.map(JSONValue.double) },
        .optional(.dwellMs, .count) { $0.dwellMs.map { .int(Int64($0)) } },
        .optional(.crossedAt, .timestamp) { $0.crossedAt.map { .string(Timestamp.rfc3339($0)) } },
        .optional(.cause, JSONSchema.string.described("why the position was lost (timeout, too_few_gateways, …)")) { $0.cause.map(JSONValue.string) },
        .optional(.lastSeen, .timestamp) { $0.lastSeen.map { .string(Timestamp.rfc3339($0)) } },
    ])

    private mutating func publish(_ outputs: [FusionOutput], at time: Double) -> [FuseAction] {
        var actions: [FuseAction] = []
        var forgotten = 0
        for output in outputs {
            if case .forgotten = output { forgotten += 1 }
            guard active else { continue }
            switch output {
            case let .position(p):
                actions.append(publish(.sitePosition, of: p.peer, JSONBytes.object(Self.positionFields.members(p))))
            case let .state(s):
                actions.append(publish(.siteState, of: s.peer, JSONBytes.object(Self.stateFields.members(s))))
            case let .event(e):
                eventCounter += 1
                let fields = Self.eventFields.members(EventSource(event: e, id: "site-\(site):\(instanceID):\(eventCounter)"))
                actions.append(.log(.info, "site event \(e.type.rawValue) \(Self.printable(e.peer))\(e.zone.map { " " + $0 } ?? "")"))
                actions.append(publish(.siteEvent, of: e.peer, JSONBytes.object(fields)))
            case let .forgotten(peer):
                // An empty retained message clears the state topic on the broker.
                actions.append(publish(.siteState, of: peer, []))
            }
        }
        if forgotten > 0 {
            let left = tracker.peerCount
            let line = "forgot \(forgotten) peer\(forgotten == 1 ? "" : "s") not seen for \(configuration.forgetAfter); \(left) tracked"
            actions += forgettingLog.lines(for: line, at: time).map { .log(.info, $0) }
            // Said every time, past the throttle: once no peer is left it takes forget_after of
            // silence before it can be said again.
            if left == 0 { actions.append(.log(.info, "no peer left to track")) }
        }
        return actions
    }

    /// `payload` on one of `peer`'s channels, retained and at the QoS the channel declares.
    private func publish(_ channel: ChannelDeclaration, of peer: String, _ payload: [UInt8]) -> FuseAction {
        .publish(topic: channel.topic(base, site, TopicSegment.sanitize(peer)), payload: payload, qos: channel.qos, retain: channel.retained)
    }

    private func publishStatus(online: Bool, at time: Double) -> FuseAction {
        let channel = configuration.shard.count > 1 ? ChannelDeclaration.siteShardStatus : ChannelDeclaration.siteStatus
        return .publish(topic: statusTopic, payload: status(online: online, at: time), qos: channel.qos, retain: channel.retained)
    }

    private static func millimetres(_ value: Double) -> JSONValue { .double((value * 1000).rounded() / 1000) }

    /// A name from the network as a log line may show it: escaped, at most a topic segment long.
    static func printable(_ name: String) -> String {
        Excerpt.of(name, limit: TopicSegment.maximumLength)
    }
}
