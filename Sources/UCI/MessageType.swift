/// The MT field (header byte 0, bits 7..5, uci.md §1.1).
public enum MessageType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case data = 0
    case command = 1
    case response = 2
    case notification = 3
    /// "Reserved for testing": Qorvo's SE_TESTING_COMMAND / _RESPONSE, framed with a 2-byte length.
    case testCommand = 4
    case testResponse = 5

    /// Control messages have a one-byte payload length at byte 3; data and test packets a
    /// two-byte length at bytes 2–3 (uci.md §1.2).
    public var hasTwoByteLength: Bool { self == .data || self == .testCommand || self == .testResponse }

    /// The name `decode --json` prints in `mt`.
    public var description: String {
        switch self {
        case .data: "data"
        case .command: "command"
        case .response: "response"
        case .notification: "notification"
        case .testCommand: "test_command"
        case .testResponse: "test_response"
        }
    }

    /// The suffix of a message name: `_CMD`, `_RSP`, `_NTF`.
    var nameSuffix: String {
        switch self {
        case .command, .testCommand: "_CMD"
        case .response, .testResponse: "_RSP"
        case .notification: "_NTF"
        case .data: ""
        }
    }
}

/// UCI group identifiers (uci.md §2.1) that the codec interprets.
public enum GroupID {
    public static let core: UInt8 = 0x0
    public static let sessionConfig: UInt8 = 0x1
    public static let sessionControl: UInt8 = 0x2
    public static let dataControl: UInt8 = 0x3
    /// Qorvo EXT2: test modes and RANGE_DIAGNOSTICS_NTF.
    public static let qorvoExtension2: UInt8 = 0xB
}
