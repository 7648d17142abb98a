/// MQTT topic building with the sanitising the API promises (mqtt-api.md, "Topics"): every
/// segment that comes from user or device data is lower-cased and every character outside
/// `[a-z0-9_-]` becomes `_`, so that nothing can add a level (`/`), a wildcard (`+`, `#`) or
/// escape `<base>/<gw>/`.
public enum TopicSegment {
    /// The longest segment a name may become (mqtt-api.md, names): names are checked against it
    /// when the config and rules are loaded.
    public static let maximumLength = 64

    public static func sanitize(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.lowercased().unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9", "_", "-": out.unicodeScalars.append(scalar)
            default: out.append("_")
            }
        }
        return out.isEmpty ? "_" : out
    }

    /// `mqtt.base_topic` as the topics use it: taken as configured (it is the operator's, not
    /// user data) but without empty levels, a level with a wildcard sanitized, `uwb2mqtt` when
    /// nothing is left.
    public static func base(_ configured: String) -> String {
        let levels = configured.split(separator: "/", omittingEmptySubsequences: true).map { level in
            level.contains(where: { $0 == "+" || $0 == "#" }) ? sanitize(String(level)) : String(level)
        }
        return levels.isEmpty ? "uwb2mqtt" : levels.joined(separator: "/")
    }
}
