import Vocabulary

extension WatchModel {
    /// The site event types of mqtt-api.md's fuse section.
    static let siteEventTypes: Set<String> = ["zone_enter", "zone_exit", "position_lost", "position_regained"]

    /// `{"name", "polygon": [[x, y], …]}` from the fuse's status → a zone; nil for one without a
    /// name or with fewer than three corners.
    static func zone(_ entry: PayloadReader, field: String) throws(PayloadRejection) -> SiteZone? {
        guard let name = try entry.string(.name), let corners = try entry.list(.polygon) else { return nil }
        var polygon: [MapPoint] = []
        for corner in corners {
            let xy = try PayloadReader.numbers(corner, in: .siteMetres, field: field + "polygon")
            guard xy.count == 2 else { return nil }
            polygon.append(MapPoint(x: xy[0], y: xy[1]))
        }
        return polygon.count >= 3 ? SiteZone(name: name, polygon: polygon) : nil
    }

    /// One message under `<base>/site/<site>/`, `path` after it: the fuse's `status`, and per tag
    /// `position`, `state` and `event`. Changes and notes are the site's, named `site/<site>`.
    mutating func readSite(_ path: [String], payload: [UInt8], receivedAt: Double) -> [WatchChange] {
        guard var site else { return [] }
        defer { self.site = site }
        let label = Self.siteLabel(site.name)
        let subtopic = path.joined(separator: "/")
        let fallbackClock = WallClock.clock(secondsSince1970: receivedAt)
        func note(_ problem: String, clock: String = fallbackClock) -> [WatchChange] {
            [WatchChange(clock: clock, gateway: label, kind: .note(topic: subtopic, problem: problem))]
        }
        if payload.isEmpty {
            // The fuse clears a tag's retained state when it forgets the tag.
            if path.count == 3, path[0] == "peer", path[2] == "state" { site.tags[path[1]] = nil }
            return path.count == 1 && path[0] == "status" || path.count == 3 && path[2] == "state" ? [] : note("empty payload")
        }
        let object: PayloadReader
        do { object = try PayloadReader(bytes: payload) } catch {
            return note(error.field == nil ? "not a JSON object: " + Self.excerpt(payload) : "\(error): " + Self.excerpt(payload))
        }
        let clock = ((try? object.string(.ts)) ?? nil).flatMap(WallClock.clock(ts:)) ?? fallbackClock
        do {
            var read = site
            let changes = try self.readSite(path, object, payload: payload, clock: clock, label: label, into: &read)
            site = read
            return changes
        } catch {
            // A coordinate out of its bounds (`1e308`) or a field of the wrong type: the message
            // is not taken, and the map stays as it was.
            return note("\(error): " + Self.excerpt(payload), clock: clock)
        }
    }

    private mutating func readSite(_ path: [String], _ object: PayloadReader, payload: [UInt8], clock: String, label: String,
                                   into site: inout SiteView) throws(PayloadRejection) -> [WatchChange] {
        let subtopic = path.joined(separator: "/")
        func note(_ problem: String) -> [WatchChange] {
            [WatchChange(clock: clock, gateway: label, kind: .note(topic: subtopic, problem: problem))]
        }
        if path == ["status"] {
            guard let state = try object.string(.state) else { return note("no \"state\" in \(Self.excerpt(payload))") }
            // The zones the fuse runs with, as its status gives them (a fuse config given to watch
            // is only a fallback for a fuse that does not say).
            if let zones = try object.objects(.zones) {
                var outlines: [SiteZone] = []
                for (index, zone) in zones.enumerated() {
                    if let outline = try Self.zone(zone, field: "zones[\(index)].") { outlines.append(outline) }
                }
                if !outlines.isEmpty { site.zones = outlines }
            }
            guard state != site.status else { return [] }
            site.status = state
            return [WatchChange(clock: clock, gateway: label, kind: .fuse(state: state))]
        }
        guard path.count == 3, path[0] == "peer" else { return note("not a topic of the fuse's site tree") }
        let name = try object.string(.peer) ?? path[1]
        var tag = site.tags[path[1]] ?? SiteTag(name: name)
        let ts = try object.string(.ts)
        // A position that arrives after a newer state (QoS 0 beside QoS 1) must not move the tag back.
        let newer = ts.map { stamp in tag.updated.map { $0 <= stamp } ?? true } ?? true
        switch path[2] {
        case "position":
            guard let point = try Self.point(object) else { return note("no \"x\" and \"y\" in \(Self.excerpt(payload))") }
            let accuracy = try object.number(.accuracyM, in: .accuracyMetres)
            let gateways = try object.list(.gateways)
            guard newer else { return [] }
            tag.position = point
            tag.accuracy = accuracy
            tag.gatewaysInRange = gateways?.count ?? tag.gatewaysInRange
            tag.updated = ts ?? tag.updated
            site.tags[path[1]] = tag
            return []
        case "state":
            guard let zones = try object.strings(.zones) else { return note("no \"zones\" in \(Self.excerpt(payload))") }
            tag.zones = zones
            tag.gatewaysInRange = try object.integer(.gatewaysInRange, in: .count)
            let position = try object.object(.position)
            let point = try Self.point(position)
            let accuracy = try position?.number(.accuracyM, in: .accuracyMetres)
            if newer {
                tag.position = point
                tag.accuracy = accuracy
                tag.updated = ts ?? tag.updated
            }
            site.tags[path[1]] = tag
            return []
        case "event":
            guard let type = try object.string(.type) else { return note("no \"type\" in \(Self.excerpt(payload))") }
            guard Self.siteEventTypes.contains(type) else { return note("unknown event type \"\(type)\"") }
            let event = try Self.event(object, gateway: label, peer: tag.name, clock: clock, type: type)
            remember(event)
            return [WatchChange(clock: clock, gateway: label, kind: .event(event))]
        default:
            return note("not a topic of the fuse's site tree")
        }
    }
}
