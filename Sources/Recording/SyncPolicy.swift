/// When the writer forces records to stable storage with `fdatasync(2)`.
///
/// Every record reaches the kernel with its own `write(2)` at once, so a crash of the agent loses
/// nothing. A power cut loses what the kernel had not yet written: with this policy at most the
/// records since the last sync — ``records`` records or ``interval`` seconds of receive time,
/// whichever comes first — and never damages earlier ones (a torn last record is detected by its
/// CRC and skipped on replay). ``everyRecord`` makes a power cut lose at most the last packet, at
/// the cost of one flash write per packet (5–40 a second on a gateway's SD card); the default
/// trades that for a bounded, small loss.
public struct SyncPolicy: Hashable, Sendable {
    /// Sync after this many records since the last sync (1: every record).
    public var records: Int
    /// Sync when a record's receive time is this many seconds after the last sync.
    public var interval: Double

    public init(records: Int, interval: Double) {
        self.records = max(1, records)
        self.interval = interval
    }

    /// Every 16 records or 1 s of receive time.
    public static let `default` = SyncPolicy(records: 16, interval: 1)
    /// Every record: a power cut loses at most the packet being written.
    public static let everyRecord = SyncPolicy(records: 1, interval: 0)
}
