import UCI

/// Something valid but unwise in the configuration, with the key it is about, so that `check`
/// can point at the line, `doctor` can show it, and the agent can log it at start.
public struct ConfigurationWarning: Sendable, Hashable, CustomStringConvertible {
    /// The key the warning is about, e.g. `["device", "session_key_info"]`; it may be absent
    /// from the file (a default).
    public var keyPath: [String]
    public var message: String
    /// What to do about it, for `doctor`'s hint.
    public var hint: String

    public var description: String { message }

    /// A session key published in examples: anyone with a UWB receiver can compute the STS and
    /// follow (or spoof) the ranging. Only well-known keys are ever shown, never a real one.
    static func wellKnownKey(_ key: SessionKeyInfo, keyPath: [String], sessions: String, advice: String) -> ConfigurationWarning {
        let digits = Array(key.description)
        let bytes = stride(from: 0, to: digits.count, by: 2).map { String(digits[$0..<$0 + 2]) }.joined(separator: " ")
        let origin = key == .qorvoExample ? ", the profiles' default" : ""
        return ConfigurationWarning(
            keyPath: keyPath,
            message: "\(keyPath.joined(separator: ".")) is a well-known demo key (\(bytes)\(origin)): anyone can follow \(sessions); \(advice)",
            hint: keyPath.first == "device"
                ? "put the output of `openssl rand -hex 8` in device.session_key_info here and in every tag of the session"
                : "remove phones.session_key_info: each phone session then gets a fresh random key")
    }
}
