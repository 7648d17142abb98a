/// A one-byte code from the UCI specification (a status, a state, a reason) that may hold values
/// this codec has no name for: devices send RFU and vendor codes, and those must survive decoding.
///
/// `description` is the FiRa name (`OK`, `DEVICE_STATE_READY`, …) or `0xNN` when there is none,
/// exactly as `uwb2mqtt decode --json` prints codes.
public protocol NamedCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral
where RawValue == UInt8 {
    init(rawValue: UInt8)
    /// The names of the codes this type knows, by value.
    static var names: [UInt8: String] { get }
}

extension NamedCode {
    public init(integerLiteral value: UInt8) { self.init(rawValue: value) }
    /// The specification's name, or nil for an unnamed (RFU or vendor) value.
    public var name: String? { Self.names[rawValue] }
    public var description: String { name ?? hexByte(rawValue) }
}
