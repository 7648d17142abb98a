/// The flag byte of a record (RecordingFormat).
public struct RecordFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The packet went from the host to the device (a command). Reserved for recording both
    /// directions; the agent records only what the device sent.
    public static let hostToDevice = RecordFlags(rawValue: 1 << 0)
    /// The record is not a UCI packet but an input the agent took from elsewhere (a phone's
    /// session or report, as the gateway's `RecordedInput`), a JSON object.
    public static let agentInput = RecordFlags(rawValue: 1 << 1)
}
