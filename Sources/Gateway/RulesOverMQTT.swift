import Vocabulary

/// Rules managed over MQTT (docs/mqtt-api.md, "Rules over MQTT"): `rules_get` answers with the
/// active file, `rules_set` and a site-wide `rules_topic` replace it. What comes over MQTT is
/// validated whole, as a reload would; only then is it written beside the old file, which is
/// kept as a backup, and loaded.
enum RulesOverMQTT {
    /// The largest rules file taken over MQTT, and the largest `rules_get` answer: with its topic
    /// and properties one packet stays under the 64 KiB that a broker such as deploy/mosquitto's
    /// takes. (A rules file on disk may be larger; it is then edited there.)
    static let maximumBytes = 60 << 10
    /// The member of a JSON `rules_set` body that holds the rules file's text (as in `rules_get`'s answer).
    static let rulesMember = PayloadKey.rules.text

    /// The file the previous rules are kept in.
    static func backupPath(of path: String) -> String { path + ".bak" }
}
