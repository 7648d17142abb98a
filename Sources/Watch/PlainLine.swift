import Vocabulary

/// `watch --plain`: one line a change, time and gateway first, so that a log of it reads (and
/// greps) like a conversation: `12:03:04 lobby  phone-anna  zone_enter counter at 0.81 m after
/// 300 ms dwell (threshold 1.0 m)`.
public enum PlainLine {
    /// Names, states and reasons come from whoever publishes on the broker: what could clear a
    /// terminal or forge a line is shown escaped.
    public static func text(_ change: WatchChange) -> String {
        Excerpt.printable("\(change.clock) \(change.gateway)  " + what(change.kind))
    }

    static func what(_ kind: WatchChange.Kind) -> String {
        switch kind {
        case let .status(state, version):
            "gateway \(state)" + (version.map { " (uwb2mqtt \($0))" } ?? "")
        case let .fuse(state):
            "fuse \(state)"
        case let .device(state, firmware, error):
            "device \(state)" + (error.map { ": \($0)" } ?? firmware.map { " (firmware \($0))" } ?? "")
        case let .rules(ok, sha, error):
            ok ? "rules ok" + (sha.map { " (sha256 \($0.prefix(12)))" } ?? "")
               : "rules FAILED: \(error ?? "no reason given")" + (sha.map { "; still running \($0.prefix(12))" } ?? "")
        case let .peerSeen(row):
            "\(row.name)  " + seen(row)
        case let .peerRemoved(peer):
            "\(peer)  removed from the gateway's config"
        case let .event(event):
            "\(event.peer)  \(event.words)"
        case let .ranking(rule, peers):
            "ranking \(rule): " + (peers.isEmpty ? "nobody" : peers.joined(separator: ", "))
        case let .dropped(total):
            "dropped \(total) live messages since start (broker unreachable or too slow)"
        case let .note(topic, problem):
            "\(topic): \(problem)"
        }
    }

    /// `ranging at 0.91 m, in counter, stage reach`.
    static func seen(_ row: PeerRow) -> String {
        var parts = [row.link ?? "seen"]
        if let distance = row.distance { parts[0] += " at \(Metres.text(distance)) m" }
        if !row.zones.isEmpty { parts.append("in " + row.zones.joined(separator: ", ")) }
        if let stage = row.stage { parts.append("stage \(stage)") }
        return parts.joined(separator: ", ")
    }
}

extension PlainLine {
    /// `HH:MM:SS` (UTC) of a time, for lines `watch` says about itself.
    public static func clock(secondsSince1970 seconds: Double) -> String {
        WallClock.clock(secondsSince1970: seconds)
    }
}
