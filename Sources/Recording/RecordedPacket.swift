/// One UCI packet of a recording with the time it was received.
public struct RecordedPacket: Hashable, Sendable {
    /// Receive time, microseconds since 1970-01-01T00:00:00Z (wall clock, as the recorder saw it).
    public var receiveTime: Int64
    /// The packet's bytes, exactly as read from the device: header and payload of one UCI packet.
    public var bytes: [UInt8]
    public var flags: RecordFlags
    /// Where the record starts in its file, for messages.
    public var offset: Int
    /// The file the record came from (one of a rotated set).
    public var file: String

    public init(receiveTime: Int64, bytes: [UInt8], flags: RecordFlags = [], offset: Int = 0, file: String = "") {
        self.receiveTime = receiveTime
        self.bytes = bytes
        self.flags = flags
        self.offset = offset
        self.file = file
    }

    /// Receive time in seconds since the epoch, the unit the proximity engine takes.
    public var receiveSeconds: Double { Double(receiveTime) / 1_000_000 }
}
