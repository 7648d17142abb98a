import Vocabulary

/// The gateways fuse knows, learned from their retained `status`: where each stands and whether it
/// is online.
///
/// A gateway without a configured position cannot take part in multilateration, and an offline one
/// sends nothing current; both are kept (so a later status can complete them) but not used.
public struct GatewayRegistry: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var position: SitePoint?
        public var online: Bool
        /// Seconds between its ranging rounds, as its status says.
        public var rangingInterval: Double?
    }

    public private(set) var entries: [String: Entry] = [:]

    public init() {}

    /// Records a gateway's status. A non-finite position counts as none.
    public mutating func update(_ id: String, position: SitePoint?, online: Bool, rangingInterval: Double? = nil) {
        let interval = rangingInterval.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        entries[id] = Entry(position: position.flatMap { $0.isFinite ? $0 : nil }, online: online, rangingInterval: interval)
    }

    /// The slowest ranging interval among the online gateways that report one.
    public var slowestRangingInterval: Double? {
        entries.values.filter(\.online).compactMap(\.rangingInterval).max()
    }

    /// Forgets a gateway (its retained status was cleared).
    public mutating func remove(_ id: String) {
        entries[id] = nil
    }

    /// The position of a gateway that is online and placed, else nil.
    public func usablePosition(of id: String) -> SitePoint? {
        guard let entry = entries[id], entry.online else { return nil }
        return entry.position
    }
}
