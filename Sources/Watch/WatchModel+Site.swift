import Vocabulary

extension WatchModel {
    /// The site event types of mqtt-api.md's fuse section.
    static let siteEventTypes: Set<String> = ["zone_enter", "zone_exit", "position_lost", "position_regained"]

    /// `{"name", "polygon": [[x, y], …]}` from the fuse's status → a zone; nil for anything else.
    static func zone(_ value: JSONValue) -> SiteZone? {
        guard let name = value["name"]?.text, let corners = value["polygon"]?.list else { return nil }
        let polygon = corners.compactMap { corner -> MapPoint? in
            guard let xy = corner.list, xy.count == 2, let x = xy[0].number, let y = xy[1].number, x.isFinite, y.isFinite else { return nil }
            return MapPoint(x: x, y: y)
        }
        return polygon.count >= 3 && polygon.count == corners.count ? SiteZone(name: name, polygon: polygon) : nil
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
        guard let object = try? JSONReader.value(payload), object.isObject else {
            return note("not a JSON object: " + Self.excerpt(payload))
        }
        let clock = object["ts"]?.text.flatMap(WallClock.clock(ts:)) ?? fallbackClock
        if path == ["status"] {
            guard let state = object["state"]?.text else { return note("no \"state\" in \(Self.excerpt(payload))", clock: clock) }
            // The zones the fuse runs with, as its status gives them (a fuse config given to watch
            // is only a fallback for a fuse that does not say).
            if let zones = object["zones"]?.list {
                let outlines = zones.compactMap(Self.zone)
                if !outlines.isEmpty { site.zones = outlines }
            }
            guard state != site.status else { return [] }
            site.status = state
            return [WatchChange(clock: clock, gateway: label, kind: .fuse(state: state))]
        }
        guard path.count == 3, path[0] == "peer" else { return note("not a topic of the fuse's site tree", clock: clock) }
        var tag = site.tags[path[1]] ?? SiteTag(name: object["peer"]?.text ?? path[1])
        let ts = object["ts"]?.text
        // A position that arrives after a newer state (QoS 0 beside QoS 1) must not move the tag back.
        let newer = ts.map { stamp in tag.updated.map { $0 <= stamp } ?? true } ?? true
        switch path[2] {
        case "position":
            guard let point = Self.point(object) else { return note("no \"x\" and \"y\" in \(Self.excerpt(payload))", clock: clock) }
            guard newer else { return [] }
            tag.position = point
            tag.accuracy = object["accuracy_m"]?.number
            tag.gatewaysInRange = object["gateways"]?.list?.count ?? tag.gatewaysInRange
            tag.updated = ts ?? tag.updated
            site.tags[path[1]] = tag
            return []
        case "state":
            guard let zones = object["zones"]?.list else { return note("no \"zones\" in \(Self.excerpt(payload))", clock: clock) }
            tag.zones = zones.compactMap(\.text)
            tag.gatewaysInRange = object["gateways_in_range"]?.number.map { Int($0) }
            if newer {
                tag.position = Self.point(object["position"])
                tag.accuracy = object["position"]?["accuracy_m"]?.number
                tag.updated = ts ?? tag.updated
            }
            site.tags[path[1]] = tag
            return []
        case "event":
            guard let type = object["type"]?.text else { return note("no \"type\" in \(Self.excerpt(payload))", clock: clock) }
            guard Self.siteEventTypes.contains(type) else { return note("unknown event type \"\(type)\"", clock: clock) }
            let event = Self.event(object, gateway: label, peer: tag.name, clock: clock, type: type)
            remember(event)
            return [WatchChange(clock: clock, gateway: label, kind: .event(event))]
        default:
            return note("not a topic of the fuse's site tree", clock: clock)
        }
    }
}
