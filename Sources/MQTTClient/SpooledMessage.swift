/// A message waiting for the broker: what `Spool` keeps on disk.
public struct SpooledMessage: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool
    /// Position in the journal, assigned by `Spool.append` and stored in the record: what a
    /// delivery acknowledges (`Spool.delivered(through:)`), so that messages dropped or added
    /// meanwhile cannot shift the accounting.
    public internal(set) var sequence: UInt64 = 0

    public init(topic: String, payload: [UInt8], qos: Int, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// Bytes this message takes in the journal.
    var recordSize: Int { JournalRecord.overhead + topic.utf8.count + payload.count }
}
