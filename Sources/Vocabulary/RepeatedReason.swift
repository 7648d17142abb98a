/// A problem worth a log line only when its reason changes: a device that stays unplugged or a
/// broker that stays down is said once, not at every retry, and again when the reason changes or
/// after the problem ended.
public struct RepeatedReason: Sendable {
    private var last: String?

    public init() {}

    /// True when `reason` differs from the last one noted; notes it.
    public mutating func isNew(_ reason: String) -> Bool {
        guard reason != last else { return false }
        last = reason
        return true
    }

    /// The problem ended: its next reason is news again.
    public mutating func clear() { last = nil }
}
