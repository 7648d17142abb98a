import Proximity
import Vocabulary

/// What `uwb2mqtt watch` knows of the gateways it follows, built only from the messages of the v1
/// tree (mqtt-api.md): per gateway its header and its peers' rows, and the latest events. Pure:
/// the command feeds it each message and prints or draws what it returns; time comes in as a value.
///
/// A message it cannot read — not JSON, a key of the wrong type, a topic outside the tree — is a
/// `note` change naming the topic, never a crash, and leaves what was known as it was.
public struct WatchModel: Sendable {
    public let base: String
    public private(set) var gateways: [String: GatewayHeader] = [:]
    /// The most gateways, and peers of one gateway, that are kept and drawn: a site has a few
    /// hundred gateways; names made up on the broker beyond these are not followed.
    public static let maximumGateways = 1_000
    public static let maximumPeersPerGateway = 1_000

    /// Whether a message about `peer` is followed: one known, or a new one below the bound.
    private static func follows(_ peer: String, in header: GatewayHeader) -> Bool {
        header.peers[peer] != nil || header.peers.count < maximumPeersPerGateway
    }
    /// Newest last, at most `eventLimit`.
    public private(set) var events: [WatchEvent] = []
    public let eventLimit: Int

    /// The fuse's site that `watch --site` follows; nil: the site tree is not read.
    public internal(set) var site: SiteView?

    public init(base: String = "uwb2mqtt", eventLimit: Int = 50, site: SiteView? = nil) {
        self.base = base
        self.eventLimit = eventLimit
        self.site = site
    }

    /// Takes one message; `receivedAt` (seconds since 1970) dates what carries no `ts`. Returns
    /// what a person should hear about, in order. `retained` does not change what is shown: a
    /// retained message is the topic's current value, dated by its own `ts`, and one the broker
    /// delivers again after a reconnect is no new line because it equals what is known.
    public mutating func receive(topic: String, payload: [UInt8], retained: Bool, receivedAt: Double) -> [WatchChange] {
        let changes = read(topic: topic, payload: payload, receivedAt: receivedAt)
        // The drawn view shows the newest unreadable message under its gateway (or the site).
        for change in changes {
            guard case let .note(topic, problem) = change.kind else { continue }
            let text = "\(change.clock) \(topic): \(problem)"
            if let site, change.gateway == Self.siteLabel(site.name) {
                self.site?.problem = text
                self.site?.problemCount += 1
            } else {
                gateways[change.gateway]?.problem = text
                gateways[change.gateway]?.problemCount += 1
            }
        }
        return changes
    }

    /// How lines name the site: `site/lobby`, after its topic.
    public static func siteLabel(_ site: String) -> String { "site/" + site }

    mutating func read(topic: String, payload: [UInt8], receivedAt: Double) -> [WatchChange] {
        let prefix = base + "/"
        guard topic.hasPrefix(prefix) else { return [] }
        let levels = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // `<base>/site/…` is the fuse's tree, read only for the site asked for; requests and
        // responses are conversations, and phones' reports what phones tell the gateway (with
        // their tokens), not state.
        if levels.first == "site" {
            guard let site, levels.count > 2, levels[1] == site.name else { return [] }
            return readSite(Array(levels.dropFirst(2)), payload: payload, receivedAt: receivedAt)
        }
        guard let gateway = levels.first, !gateway.isEmpty else { return [] }
        let path = Array(levels.dropFirst())
        if let kind = path.first, kind == "request" || kind == "response" || kind == "phone" { return [] }
        let subtopic = path.joined(separator: "/")
        let fallbackClock = WallClock.clock(secondsSince1970: receivedAt)
        func note(_ problem: String, clock: String = fallbackClock) -> [WatchChange] {
            [WatchChange(clock: clock, gateway: gateway, kind: .note(topic: subtopic, problem: problem))]
        }

        guard gateways[gateway] != nil || gateways.count < Self.maximumGateways else { return [] }
        var header = gateways[gateway] ?? GatewayHeader(id: gateway)
        defer { gateways[gateway] = header }

        if payload.isEmpty {
            // An empty retained message clears a topic: a removed peer's state, or a gateway's
            // retained topics being cleaned up.
            if path.count == 3, path[0] == "peer", path[2] == "state" {
                guard let row = header.peers.removeValue(forKey: path[1]) else { return [] }
                return [WatchChange(clock: fallbackClock, gateway: gateway, kind: .peerRemoved(peer: row.name))]
            }
            return path.count == 1 && ["status", "device", "rules"].contains(path[0]) ? [] : note("empty payload")
        }
        let object: PayloadReader
        do { object = try PayloadReader(bytes: payload) } catch {
            return note(error.field == nil ? "not a JSON object: " + Self.excerpt(payload) : "\(error): " + Self.excerpt(payload))
        }
        let clock = ((try? object.string(.ts)) ?? nil).flatMap(WallClock.clock(ts:)) ?? fallbackClock
        do {
            var read = header
            let changes = try self.read(gateway: gateway, path: path, subtopic: subtopic, object, payload: payload, clock: clock, into: &read)
            header = read
            return changes
        } catch {
            // A field out of its bounds or of the wrong type: the message is not taken, whatever
            // else it says, and what was known stays as it was.
            return note("\(error): " + Self.excerpt(payload), clock: clock)
        }
    }

    /// The message of one gateway's topic `path`, read into `header` only once every field it
    /// takes has been read.
    private mutating func read(gateway: String, path: [String], subtopic: String, _ object: PayloadReader, payload: [UInt8],
                               clock: String, into header: inout GatewayHeader) throws(PayloadRejection) -> [WatchChange] {
        func change(_ kind: WatchChange.Kind) -> [WatchChange] { [WatchChange(clock: clock, gateway: gateway, kind: kind)] }
        func note(_ problem: String) -> [WatchChange] {
            [WatchChange(clock: clock, gateway: gateway, kind: .note(topic: subtopic, problem: problem))]
        }
        func missing(_ key: String) -> [WatchChange] { note("no \(key) in \(Self.excerpt(payload))") }

        switch path.count == 3 && path[0] == "peer" ? "peer/" + path[2] : subtopic {
        case "status":
            guard let state = try object.string(.state) else { return missing("\"state\"") }
            let version = try object.string(.version)
            // A gateway without a configured pose says `null`: it stays off the site map.
            header.position = try Self.point(object.object(.position))
            guard state != header.status || (version != nil && version != header.version) else { return [] }
            header.status = state
            if let version { header.version = version }
            return change(.status(state: state, version: version))
        case "device":
            guard let state = try object.string(.state) else { return missing("\"state\"") }
            let firmware = try object.string(.firmware)
            let error = try object.string(.error)
            guard state != header.deviceState || error != header.deviceError else { return [] }
            header.deviceState = state
            header.firmware = firmware ?? header.firmware
            header.deviceError = error
            return change(.device(state: state, firmware: firmware, error: error))
        case "rules":
            guard let ok = try object.bool(.ok) else { return missing("\"ok\"") }
            let sha = try object.string(.sha256)
            let error = try Self.rulesError(object)
            var thresholds: [RuleThreshold] = []
            for entry in try object.objects(.thresholds) ?? [] { if let threshold = try Self.threshold(entry) { thresholds.append(threshold) } }
            header.thresholds = thresholds
            guard ok != header.rulesOK || sha != header.rulesSHA || error != header.rulesError else { return [] }
            header.rulesOK = ok
            header.rulesSHA = sha
            header.rulesError = error
            return change(.rules(ok: ok, sha: sha, error: error))
        case "metrics":
            guard let uptime = try object.number(.uptimeS, in: .durationSeconds),
                  let measurements = try object.number(.measurements, in: .count) else {
                return missing("\"uptime_s\" and \"measurements\"")
            }
            let dropped = try object.integer(.dropped, in: .count)
            if let last = header.lastMetrics, uptime > last.uptime {
                header.measurementRate = (measurements - last.measurements) / (uptime - last.uptime)
            } else if uptime > 0 {
                header.measurementRate = measurements / uptime
            }
            header.lastMetrics = (uptime, measurements)
            guard let dropped else { return [] }
            let grew = dropped > (header.dropped ?? 0)
            header.dropped = dropped
            return grew ? change(.dropped(total: dropped)) : []
        case "peer/state":
            guard let link = try object.string(.link) else { return missing("\"link\"") }
            let name = try object.string(.peer) ?? path[1]
            guard Self.follows(path[1], in: header) else { return [] }
            var row = header.peers[path[1]] ?? PeerRow(name: name)
            let first = row.link == nil
            row.link = link
            row.distance = try object.number(.distanceM, in: .distanceMetres)
            row.stage = try object.string(.stage)
            row.zones = try object.strings(.zones) ?? []
            row.approaches = try Self.approaches(object.object(.approaches))
            row.facing = try object.bool(.facing)
            // Two values are defined; anything else is shown as what it is not, never as text.
            row.directionSource = try object.string(.directionSource).map { ["gateway", "phone"].contains($0) ? $0 : "unknown" }
            row.azimuth = row.directionSource == nil ? nil : try object.number(.azimuthDeg, in: .degrees)
            if let ts = try object.string(.ts), row.lastMeasurement.map({ $0 < ts }) ?? true { row.lastMeasurement = ts }
            header.peers[path[1]] = row
            return first ? change(.peerSeen(row)) : []
        case "peer/range":
            let name = try object.string(.peer) ?? path[1]
            guard Self.follows(path[1], in: header) else { return [] }
            var row = header.peers[path[1]] ?? PeerRow(name: name)
            row.mac = try object.string(.mac) ?? row.mac
            let distance = try object.number(.distanceM, in: .distanceMetres)
            if try object.string(.status) == "ok", let distance {
                row.distance = distance
                row.lastMeasurement = try object.string(.ts) ?? row.lastMeasurement
            }
            header.peers[path[1]] = row
            return []
        case "peer/feedback":
            let name = try object.string(.peer) ?? path[1]
            guard Self.follows(path[1], in: header) else { return [] }
            var row = header.peers[path[1]] ?? PeerRow(name: name)
            row.progress = try object.number(.progress, in: .fraction)
            header.peers[path[1]] = row
            return []
        case "peer/position":
            return []
        case "peer/event":
            guard let type = try object.string(.type) else { return missing("\"type\"") }
            guard Self.eventTypes.contains(type) else { return note("unknown event type \"\(type)\"") }
            let event = try Self.event(object, gateway: gateway, peer: object.string(.peer) ?? path[1], clock: clock, type: type)
            remember(event)
            return change(.event(event))
        default:
            if path.count == 2, path[0] == "ranking" {
                guard let entries = try object.objects(.peers) else { return missing("\"peers\"") }
                var peers: [String] = []
                for entry in entries { if let peer = try entry.string(.peer) { peers.append(peer) } }
                guard header.rankings[path[1]] != peers else { return [] }
                header.rankings[path[1]] = peers
                return change(.ranking(rule: try object.string(.rule) ?? path[1], peers: peers))
            }
            return note("not a topic of the v1 tree")
        }
    }

    /// An `event` payload as the list shows it.
    static func event(_ object: PayloadReader, gateway: String, peer: String, clock: String, type: String) throws(PayloadRejection) -> WatchEvent {
        var event = WatchEvent(gateway: gateway, peer: peer, clock: clock, type: type)
        event.rule = try object.string(.rule)
        // A zone's, stage's or direction's states are text; facing's are true, false or null.
        event.from = Self.state(object.value[PayloadKey.from.text])
        event.to = Self.state(object.value[PayloadKey.to.text])
        event.distance = try object.number(.distanceM, in: .distanceMetres)
        let reason = try object.object(.reason)
        event.threshold = try reason?.number(.thresholdM, in: .distanceMetres)
        event.dwellMs = try reason?.integer(.dwellMs, in: .durationMilliseconds)
        event.cause = try reason?.string(.cause)
        event.lastSeen = try reason?.string(.lastSeen).flatMap(WallClock.clock(ts:))
        return event
    }

    /// An event's `from` or `to` as the list writes it; nil for null or what is no state.
    static func state(_ value: JSONValue?) -> String? {
        switch value {
        case let .string(text)?: text
        case let .bool(flag)?: flag ? "true" : "false"
        default: nil
        }
    }

    mutating func remember(_ event: WatchEvent) {
        events.append(event)
        if events.count > eventLimit { events.removeFirst(events.count - eventLimit) }
    }

    /// One entry of `rules.thresholds`; nil for one without a rule, kind or distance.
    static func threshold(_ entry: PayloadReader) throws(PayloadRejection) -> RuleThreshold? {
        guard let rule = try entry.string(.rule), let kind = try entry.string(.kind),
              let metres = try entry.number(.distanceM, in: .distanceMetres) else { return nil }
        return RuleThreshold(rule: rule, kind: kind, metres: metres, peers: try entry.strings(.peers) ?? ["*"])
    }

    /// `{"x", "y", …}` → a point; nil for `null` or anything without both numbers.
    static func point(_ object: PayloadReader?) throws(PayloadRejection) -> MapPoint? {
        guard let object, let x = try object.number(.x, in: .siteMetres), let y = try object.number(.y, in: .siteMetres) else { return nil }
        return MapPoint(x: x, y: y)
    }

    /// The event types of mqtt-api.md, as the rule kinds and the engine declare them; another
    /// is a newer agent's, shown as a note.
    static let eventTypes = Set(RuleKinds.events.map(\.type.rawValue))

    /// `rules.error` as `line:column: message`.
    static func rulesError(_ rules: PayloadReader) throws(PayloadRejection) -> String? {
        if case .string(let text)? = rules.value[PayloadKey.error.text] { return text }
        guard let error = try rules.object(.error), let message = try error.string(.message) else { return nil }
        guard let line = try error.integer(.line, in: .count), let column = try error.integer(.column, in: .count) else { return message }
        return "\(line):\(column): \(message)"
    }

    static func approaches(_ object: PayloadReader?) throws(PayloadRejection) -> [PeerRow.Approach] {
        guard case let .object(members)? = object?.value else { return [] }
        var approaches: [PeerRow.Approach] = []
        for member in members {
            guard let approach = try object?.object(member.key), let phase = try approach.string(.phase) else { continue }
            approaches.append(PeerRow.Approach(rule: member.key, phase: phase, progress: try approach.number(.progress, in: .fraction)))
        }
        return approaches.sorted { $0.rule < $1.rule }
    }

    /// The start of a payload, printable, for a note.
    static func excerpt(_ payload: [UInt8]) -> String {
        let text = String(decoding: payload.prefix(60), as: UTF8.self)
        let printable = String(text.map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7f) ? "?" : $0 })
        return payload.count > 60 ? printable + "…" : printable
    }
}
