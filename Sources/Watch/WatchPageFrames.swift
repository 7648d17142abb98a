import Vocabulary

/// The frames the page of `watch --http` is sent: a browser that connects gets every part
/// (`snapshot`), and after that each frame carries only the parts that changed and the keys of
/// those that went (`next`), so that a gateway whose peers stand still costs nothing.
///
/// A frame is one JSON object: `{"reset": true|false, "set": {key: part, …}, "del": [key, …]}`;
/// with `reset` the page forgets what it had first. Pure.
public struct WatchPageFrames: Sendable {
    private var current: [String: [UInt8]] = [:]
    private var order: [String] = []

    public init() {}

    /// Takes the parts of the model now; returns the frame of what changed since the last call,
    /// or nil when nothing did.
    public mutating func next(_ parts: [(key: String, value: [UInt8])]) -> [UInt8]? {
        var changed: [(key: String, value: [UInt8])] = []
        var seen = Set<String>()
        for part in parts {
            seen.insert(part.key)
            if current[part.key] != part.value { changed.append(part) }
        }
        let removed = order.filter { !seen.contains($0) }
        current = Dictionary(parts.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        order = parts.map(\.key)
        guard !changed.isEmpty || !removed.isEmpty else { return nil }
        return Self.frame(reset: false, set: changed, removed: removed)
    }

    /// Every part as it was at the last `next`: what a new browser, or one that fell behind, starts from.
    public var snapshot: [UInt8] {
        Self.frame(reset: true, set: order.map { ($0, current[$0] ?? []) }, removed: [])
    }

    static func frame(reset: Bool, set: [(key: String, value: [UInt8])], removed: [String]) -> [UInt8] {
        var writer = JSONBytes(capacity: 64 + set.reduce(0) { $0 + $1.key.utf8.count + $1.value.count + 8 })
        writer.appendRendered(Array(#"{"reset": "#.utf8))
        writer.appendBool(reset)
        writer.appendRendered(Array(#", "set": {"#.utf8))
        var first = true
        for (key, value) in set {
            if !first { writer.appendRendered(Array(", ".utf8)) }
            first = false
            writer.appendString(key)
            writer.appendRendered(Array(": ".utf8))
            writer.appendRendered(value)
        }
        writer.appendRendered(Array(#"}, "del": ["#.utf8))
        for key in removed {
            writer.listItem()
            writer.appendString(key)
        }
        writer.endList()
        writer.endObject()
        return writer.takeBytes()
    }
}
