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
        // responses are conversations, not state.
        if levels.first == "site" {
            guard let site, levels.count > 2, levels[1] == site.name else { return [] }
            return readSite(Array(levels.dropFirst(2)), payload: payload, receivedAt: receivedAt)
        }
        guard let gateway = levels.first, !gateway.isEmpty else { return [] }
        let path = Array(levels.dropFirst())
        if let kind = path.first, kind == "request" || kind == "response" { return [] }
        let subtopic = path.joined(separator: "/")
        let fallbackClock = WallClock.clock(secondsSince1970: receivedAt)
        func note(_ problem: String, clock: String = fallbackClock) -> [WatchChange] {
            [WatchChange(clock: clock, gateway: gateway, kind: .note(topic: subtopic, problem: problem))]
        }

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
        guard let object = try? JSONReader.value(payload), object.isObject else {
            return note("not a JSON object: " + Self.excerpt(payload))
        }
        let payloadClock = object["ts"]?.text.flatMap(WallClock.clock(ts:))
        let clock = payloadClock ?? fallbackClock
        func change(_ kind: WatchChange.Kind) -> [WatchChange] { [WatchChange(clock: clock, gateway: gateway, kind: kind)] }
        func missing(_ key: String) -> [WatchChange] { note("no \(key) in \(Self.excerpt(payload))", clock: clock) }

        switch path.count == 3 && path[0] == "peer" ? "peer/" + path[2] : subtopic {
        case "status":
            guard let state = object["state"]?.text else { return missing("\"state\"") }
            let version = object["version"]?.text
            // A gateway without a configured pose says `null`: it stays off the site map.
            header.position = Self.point(object["position"])
            guard state != header.status || (version != nil && version != header.version) else { return [] }
            header.status = state
            if let version { header.version = version }
            return change(.status(state: state, version: version))
        case "device":
            guard let state = object["state"]?.text else { return missing("\"state\"") }
            let firmware = object["firmware"]?.text
            let error = object["error"]?.text
            guard state != header.deviceState || error != header.deviceError else { return [] }
            header.deviceState = state
            header.firmware = firmware ?? header.firmware
            header.deviceError = error
            return change(.device(state: state, firmware: firmware, error: error))
        case "rules":
            guard case let .bool(ok)? = object["ok"] else { return missing("\"ok\"") }
            let sha = object["sha256"]?.text
            let error = object["error"].flatMap(Self.rulesError)
            header.thresholds = object["thresholds"]?.list?.compactMap(Self.threshold) ?? []
            guard ok != header.rulesOK || sha != header.rulesSHA || error != header.rulesError else { return [] }
            header.rulesOK = ok
            header.rulesSHA = sha
            header.rulesError = error
            return change(.rules(ok: ok, sha: sha, error: error))
        case "metrics":
            guard let uptime = object["uptime_s"]?.number, let measurements = object["measurements"]?.number else {
                return missing("\"uptime_s\" and \"measurements\"")
            }
            if let last = header.lastMetrics, uptime > last.uptime {
                header.measurementRate = (measurements - last.measurements) / (uptime - last.uptime)
            } else if uptime > 0 {
                header.measurementRate = measurements / uptime
            }
            header.lastMetrics = (uptime, measurements)
            guard let dropped = object["dropped"]?.number.map({ Int($0) }) else { return [] }
            let grew = dropped > (header.dropped ?? 0)
            header.dropped = dropped
            return grew ? change(.dropped(total: dropped)) : []
        case "peer/state":
            guard let link = object["link"]?.text else { return missing("\"link\"") }
            var row = header.peers[path[1]] ?? PeerRow(name: object["peer"]?.text ?? path[1])
            let first = row.link == nil
            row.link = link
            row.distance = object["distance_m"]?.number
            row.stage = object["stage"]?.text
            row.zones = object["zones"]?.list?.compactMap(\.text) ?? []
            row.approaches = Self.approaches(object["approaches"])
            if case let .bool(facing)? = object["facing"] { row.facing = facing } else { row.facing = nil }
            if let ts = object["ts"]?.text, row.lastMeasurement.map({ $0 < ts }) ?? true { row.lastMeasurement = ts }
            header.peers[path[1]] = row
            return first ? change(.peerSeen(row)) : []
        case "peer/range":
            var row = header.peers[path[1]] ?? PeerRow(name: object["peer"]?.text ?? path[1])
            row.mac = object["mac"]?.text ?? row.mac
            if object["status"]?.text == "ok", let distance = object["distance_m"]?.number {
                row.distance = distance
                row.lastMeasurement = object["ts"]?.text ?? row.lastMeasurement
            }
            header.peers[path[1]] = row
            return []
        case "peer/feedback":
            var row = header.peers[path[1]] ?? PeerRow(name: object["peer"]?.text ?? path[1])
            row.progress = object["progress"]?.number
            header.peers[path[1]] = row
            return []
        case "peer/position":
            return []
        case "peer/event":
            guard let type = object["type"]?.text else { return missing("\"type\"") }
            guard Self.eventTypes.contains(type) else { return note("unknown event type \"\(type)\"", clock: clock) }
            let event = Self.event(object, gateway: gateway, peer: object["peer"]?.text ?? path[1], clock: clock, type: type)
            remember(event)
            return change(.event(event))
        default:
            if path.count == 2, path[0] == "ranking" {
                guard let entries = object["peers"]?.list else { return missing("\"peers\"") }
                let peers = entries.compactMap { $0["peer"]?.text }
                guard header.rankings[path[1]] != peers else { return [] }
                header.rankings[path[1]] = peers
                return change(.ranking(rule: object["rule"]?.text ?? path[1], peers: peers))
            }
            return note("not a topic of the v1 tree", clock: clock)
        }
    }

    /// An `event` payload as the list shows it.
    static func event(_ object: JSONValue, gateway: String, peer: String, clock: String, type: String) -> WatchEvent {
        var event = WatchEvent(gateway: gateway, peer: peer, clock: clock, type: type)
        event.rule = object["rule"]?.text
        event.from = object["from"]?.text
        event.to = object["to"]?.text
        event.distance = object["distance_m"]?.number
        let reason = object["reason"]
        event.threshold = reason?["threshold_m"]?.number
        event.dwellMs = reason?["dwell_ms"]?.number.map { Int($0) }
        event.cause = reason?["cause"]?.text
        event.lastSeen = reason?["last_seen"]?.text.flatMap(WallClock.clock(ts:))
        return event
    }

    mutating func remember(_ event: WatchEvent) {
        events.append(event)
        if events.count > eventLimit { events.removeFirst(events.count - eventLimit) }
    }

    /// One entry of `rules.thresholds`; nil for anything without a rule, kind and finite distance.
    static func threshold(_ value: JSONValue) -> RuleThreshold? {
        guard let rule = value["rule"]?.text, let kind = value["kind"]?.text, let metres = value["distance_m"]?.number, metres.isFinite else {
            return nil
        }
        return RuleThreshold(rule: rule, kind: kind, metres: metres, peers: value["peers"]?.list?.compactMap(\.text) ?? ["*"])
    }

    /// `{"x", "y", …}` → a point; nil for `null` or anything without both numbers.
    static func point(_ value: JSONValue?) -> MapPoint? {
        guard let x = value?["x"]?.number, let y = value?["y"]?.number, x.isFinite, y.isFinite else { return nil }
        return MapPoint(x: x, y: y)
    }

    /// The event types of mqtt-api.md; another is a newer agent's, shown as a note.
    static let eventTypes: Set<String> = [
        "zone_enter", "zone_exit", "stage_change", "approach_ready", "approach_completed", "approach_canceled",
        "facing_gained", "facing_lost", "signal_lost", "signal_regained", "direction_available", "direction_unavailable",
    ]

    /// `rules.error` as `line:column: message`.
    static func rulesError(_ error: JSONValue) -> String? {
        guard let message = error["message"]?.text ?? error.text else { return nil }
        guard let line = error["line"]?.number, let column = error["column"]?.number else { return message }
        return "\(Int(line)):\(Int(column)): \(message)"
    }

    static func approaches(_ value: JSONValue?) -> [PeerRow.Approach] {
        guard case let .object(members)? = value else { return [] }
        return members.compactMap { member in
            member.value["phase"]?.text.map { PeerRow.Approach(rule: member.key, phase: $0, progress: member.value["progress"]?.number) }
        }.sorted { $0.rule < $1.rule }
    }

    /// The start of a payload, printable, for a note.
    static func excerpt(_ payload: [UInt8]) -> String {
        let text = String(decoding: payload.prefix(60), as: UTF8.self)
        let printable = String(text.map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7f) ? "?" : $0 })
        return payload.count > 60 ? printable + "…" : printable
    }
}

extension JSONValue {
    var text: String? {
        if case let .string(s) = self { s } else { nil }
    }

    var list: [JSONValue]? {
        if case let .list(l) = self { l } else { nil }
    }
}
