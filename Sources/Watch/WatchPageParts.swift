import Vocabulary

/// What the browser page of `watch --http` shows, as parts: the page's title and clock, each
/// gateway's header, each peer's row in two parts (what moves with every measurement — distance,
/// progress, its time — and the rest), the latest events and the site. Each part is one JSON
/// object, keyed, so that a frame need carry only the parts that changed (`WatchPageFrames`):
/// with 8 gateways × 50 peers walking about, a frame is their distances, not their rows.
///
/// Everything a payload said (names, rules, errors, event words) is a JSON string here and is
/// set as text by the page's script, never parsed as markup: a peer named `<img src=x
/// onerror=…>` is shown as those characters. Pure: the time comes in as a value.
///
/// It keeps each peer's row as last written, so that a frame writes again only the rows that
/// changed (the rules' distances that apply to a peer, which take a glob match per rule, only
/// when its name, address or the rules changed).
public struct WatchPageParts: Sendable {
    private struct Written: Sendable {
        var row: PeerRow
        var thresholds: [RuleThreshold]
        var marks: [RuleThreshold]
        var bytes: [UInt8]
    }

    private var written: [String: Written] = [:]

    public init() {}

    /// The parts of the view of `model` at `now` (seconds since 1970), in page order.
    public static func parts(_ model: WatchModel, title: String, now: Double) -> [(key: String, value: [UInt8])] {
        var parts = WatchPageParts()
        return parts.render(model, title: title, now: now)
    }

    /// The same, reusing the rows written last time for the peers whose row did not change.
    public mutating func render(_ model: WatchModel, title: String, now: Double) -> [(key: String, value: [UInt8])] {
        var seen = Set<String>()
        var parts: [(String, [UInt8])] = [("page", JSONBytes.object([
            JSONMember("kind", "page"), JSONMember("title", .string(title)), JSONMember("base", .string(model.base)),
            JSONMember("now", .double(now)), JSONMember("clock", .string(WallClock.clock(secondsSince1970: now))),
            JSONMember("site", model.site.map { .string($0.name) } ?? .null),
        ]))]
        for gateway in model.gateways.values.sorted(by: { $0.id < $1.id }) {
            parts.append(("g\u{1F}" + gateway.id, JSONBytes.object(Self.header(gateway))))
            for (segment, row) in gateway.peers.sorted(by: { $0.key < $1.key }) {
                let key = gateway.id + "\u{1F}" + segment
                seen.insert(key)
                parts.append(("p\u{1F}" + key, rowBytes(key, row, gateway: gateway, segment: segment)))
                parts.append(("d\u{1F}" + key, JSONBytes.object(Self.measurement(row, gateway: gateway.id, segment: segment))))
            }
        }
        written = written.filter { seen.contains($0.key) }
        parts.append(("events", JSONBytes.object([JSONMember("kind", "events"), JSONMember("items", .list(model.events.map(Self.event)))])))
        if let site = model.site {
            parts.append(("site", JSONBytes.object(Self.site(site, gateways: model.gateways.values.sorted { $0.id < $1.id }))))
        }
        return parts
    }

    static func header(_ gateway: GatewayHeader) -> [JSONMember] {
        [
            JSONMember("kind", "gateway"), JSONMember("id", .string(gateway.id)),
            JSONMember("status", text(gateway.status)), JSONMember("version", text(gateway.version)),
            JSONMember("device", text(gateway.deviceState)), JSONMember("firmware", text(gateway.firmware)),
            JSONMember("device_error", text(gateway.deviceError)),
            JSONMember("rate", gateway.measurementRate.map { .string(WatchScreen.oneDecimal($0) + "/s") } ?? .null),
            JSONMember("dropped", gateway.dropped.map { .int(Int64($0)) } ?? .null),
            JSONMember("rules_ok", gateway.rulesOK.map { .bool($0) } ?? .null),
            JSONMember("rules_sha", text(gateway.rulesSHA.map { String($0.prefix(8)) })),
            JSONMember("rules_error", text(gateway.rulesError)),
            JSONMember("problem", text(gateway.problem)), JSONMember("problem_count", .int(Int64(gateway.problemCount))),
            JSONMember("rankings", .list(gateway.rankings.sorted { $0.key < $1.key }.map { rule, peers in
                .object([JSONMember("rule", .string(rule)), JSONMember("peers", .list(peers.map { .string($0) }))])
            })),
        ]
    }

    /// A peer's row but what moves with each measurement, written again only when it changed.
    private mutating func rowBytes(_ key: String, _ row: PeerRow, gateway: GatewayHeader, segment: String) -> [UInt8] {
        var still = row
        (still.distance, still.progress, still.lastMeasurement) = (nil, nil, nil)
        if let last = written[key], last.row == still, last.thresholds == gateway.thresholds { return last.bytes }
        let marks = written[key].flatMap { last in
            last.thresholds == gateway.thresholds && last.row.name == row.name && last.row.mac == row.mac ? last.marks : nil
        } ?? gateway.thresholds.filter { $0.isMarked && $0.applies(to: row.name, mac: row.mac) }
        let bytes = JSONBytes.object(Self.peer(row, gateway: gateway.id, segment: segment, marks: marks))
        written[key] = Written(row: still, thresholds: gateway.thresholds, marks: marks, bytes: bytes)
        return bytes
    }

    static func peer(_ row: PeerRow, gateway: String, segment: String, marks: [RuleThreshold]) -> [JSONMember] {
        [
            JSONMember("kind", "peer"), JSONMember("gateway", .string(gateway)), JSONMember("id", .string(segment)),
            JSONMember("name", .string(row.name)), JSONMember("link", text(row.link)),
            JSONMember("stage", text(row.stage)),
            JSONMember("zones", .list(row.zones.map { .string($0) })),
            JSONMember("approaches", .list(row.approaches.map { approach in
                .string("\(approach.rule) \(approach.phase)" + (approach.progress.map { " " + WatchScreen.percent($0) } ?? ""))
            })),
            JSONMember("direction", text(direction(row))),
            JSONMember("marks", .list(marks.map { mark in
                .object([JSONMember("m", number(mark.metres)), JSONMember("rule", .string(mark.rule)), JSONMember("kind", .string(mark.kind))])
            })),
        ]
    }

    /// What moves with each measurement: the distance, the stage's progress and when it was measured.
    static func measurement(_ row: PeerRow, gateway: String, segment: String) -> [JSONMember] {
        [
            JSONMember("kind", "distance"), JSONMember("gateway", .string(gateway)), JSONMember("id", .string(segment)),
            JSONMember("distance", number(row.distance)), JSONMember("distance_text", text(row.distance.map { Metres.text($0) + " m" })),
            JSONMember("progress", text(row.progress.map(WatchScreen.percent))),
            // Seconds since 1970 of the newest measurement: the page counts its age by itself,
            // between frames, against the server's clock.
            JSONMember("measured", number(row.lastMeasurement.flatMap(WallClock.seconds(ts:)))),
        ]
    }

    /// `facing 5° phone`, `not facing 40° phone`, `-12° gateway`: the terminal view's words.
    static func direction(_ row: PeerRow) -> String? {
        guard let source = row.directionSource else { return nil }
        let facing = row.facing.map { $0 ? "facing " : "not facing " } ?? ""
        return facing + (row.azimuth.map { "\(Int($0.rounded()))° " } ?? "") + source
    }

    static func event(_ event: WatchEvent) -> JSONValue {
        .object([
            JSONMember("clock", .string(event.clock)), JSONMember("gateway", .string(event.gateway)),
            JSONMember("peer", .string(event.peer)), JSONMember("type", .string(event.type)), JSONMember("words", .string(event.words)),
        ])
    }

    static func site(_ site: SiteView, gateways: [GatewayHeader]) -> [JSONMember] {
        [
            JSONMember("kind", "site"), JSONMember("name", .string(site.name)), JSONMember("status", text(site.status)),
            JSONMember("zones", .list(site.zones.map { zone in
                .object([JSONMember("name", .string(zone.name)), JSONMember("polygon", .list(zone.polygon.map(point)))])
            })),
            JSONMember("gateways", .list(gateways.map { gateway in
                .object([JSONMember("id", .string(gateway.id)), JSONMember("position", gateway.position.map(point) ?? .null)])
            })),
            JSONMember("tags", .list(site.tags.values.sorted { $0.name < $1.name }.map { tag in
                .object([
                    JSONMember("name", .string(tag.name)), JSONMember("position", tag.position.map(point) ?? .null),
                    JSONMember("accuracy", number(tag.accuracy)), JSONMember("accuracy_text", text(tag.accuracy.map(SiteMap.accuracy))),
                    JSONMember("zones", .list(tag.zones.map { .string($0) })),
                    JSONMember("gateways_in_range", tag.gatewaysInRange.map { .int(Int64($0)) } ?? .null),
                    JSONMember("updated", number(tag.updated.flatMap(WallClock.seconds(ts:)))),
                ])
            })),
            JSONMember("problem", text(site.problem)), JSONMember("problem_count", .int(Int64(site.problemCount))),
        ]
    }

    static func point(_ point: MapPoint) -> JSONValue {
        .object([JSONMember("x", number(point.x)), JSONMember("y", number(point.y))])
    }

    static func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// Non-finite numbers are `null`: JSON has none, and the page must not draw them.
    static func number(_ value: Double?) -> JSONValue { value.flatMap { $0.isFinite ? .double($0) : nil } ?? .null }
}
