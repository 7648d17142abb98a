/// The MQTT 5 properties of a PUBLISH (MQTT 5.0 §3.3.2.3) that the client sends and reads: the
/// rest (topic alias, subscription identifier, payload format) it neither needs nor keeps. On an
/// MQTT 3.1.1 connection there are none: what is set here is not sent, and a received message
/// has none.
public struct MQTTProperties: Sendable, Equatable {
    /// Seconds after which the broker no longer delivers the message to a subscriber it has
    /// queued it for (a subscriber reconnecting after an outage, a retained message's new
    /// subscribers). nil: it never expires.
    public var messageExpirySeconds: UInt32?
    /// The MIME type of the payload (`application/json`).
    public var contentType: String?
    /// Where a request's answer is to go (MQTT 5 request/response, §4.10).
    public var responseTopic: String?
    /// Opaque bytes that the answer echoes, so that the requester can match it to its request.
    public var correlationData: [UInt8]?
    /// Name–value pairs, in order; a name may repeat.
    public var userProperties: [UserProperty]

    public struct UserProperty: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(messageExpirySeconds: UInt32? = nil, contentType: String? = nil, responseTopic: String? = nil,
                correlationData: [UInt8]? = nil, userProperties: [UserProperty] = []) {
        self.messageExpirySeconds = messageExpirySeconds
        self.contentType = contentType
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.userProperties = userProperties
    }

    public static let none = MQTTProperties()

    public var isEmpty: Bool { self == .none }

    /// The value of the first user property named `name`.
    public func userProperty(_ name: String) -> String? {
        userProperties.first { $0.name == name }?.value
    }

    /// The property section of a PUBLISH packet as bytes: its length as a variable byte integer,
    /// then each property as its identifier and value (MQTT 5.0 §2.2.2). Strings and binary data
    /// carry a two-byte length, so each is at most 65,535 bytes (`validate`).
    public var encoded: [UInt8] {
        var body: [UInt8] = []
        if let messageExpirySeconds {
            body.append(0x02)
            body.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: messageExpirySeconds >> $0) })
        }
        if let contentType { Self.append(0x03, string: Array(contentType.utf8), to: &body) }
        if let responseTopic { Self.append(0x08, string: Array(responseTopic.utf8), to: &body) }
        if let correlationData { Self.append(0x09, string: correlationData, to: &body) }
        for property in userProperties {
            Self.append(0x26, string: Array(property.name.utf8), to: &body)
            Self.appendLengthPrefixed(Array(property.value.utf8), to: &body)
        }
        var bytes: [UInt8] = []
        VariableByteInteger.append(body.count, to: &bytes)
        return bytes + body
    }

    /// Checks what MQTT cannot carry: a string or binary value longer than 65,535 bytes, a string
    /// with a NUL (libmosquitto takes C strings).
    public func validate() throws(MQTTError) {
        var strings: [(String, String)] = []
        if let contentType { strings.append(("content type", contentType)) }
        if let responseTopic { strings.append(("response topic", responseTopic)) }
        for property in userProperties {
            strings.append(("user property name", property.name))
            strings.append(("user property value", property.value))
        }
        for (role, text) in strings where text.utf8.count > 65_535 || text.utf8.contains(0) {
            throw .invalidConfiguration("the \(role) is longer than 65,535 bytes or contains a NUL character")
        }
        if let correlationData, correlationData.count > 65_535 {
            throw .invalidConfiguration("the correlation data is longer than 65,535 bytes")
        }
    }

    private static func append(_ identifier: UInt8, string bytes: [UInt8], to body: inout [UInt8]) {
        body.append(identifier)
        appendLengthPrefixed(bytes, to: &body)
    }

    private static func appendLengthPrefixed(_ bytes: [UInt8], to body: inout [UInt8]) {
        body.append(UInt8(truncatingIfNeeded: bytes.count >> 8))
        body.append(UInt8(truncatingIfNeeded: bytes.count))
        body.append(contentsOf: bytes)
    }
}

/// MQTT's variable byte integer (§1.5.5): seven bits a byte, least significant first, the high
/// bit set on every byte but the last.
enum VariableByteInteger {
    static func append(_ value: Int, to bytes: inout [UInt8]) {
        var remaining = value
        repeat {
            var byte = UInt8(remaining & 0x7F)
            remaining >>= 7
            if remaining > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while remaining > 0
    }

    /// Writes `value` at `p`; returns how many bytes it took.
    static func write(_ value: Int, at p: UnsafeMutablePointer<UInt8>) -> Int {
        var remaining = value, written = 0
        repeat {
            var byte = UInt8(remaining & 0x7F)
            remaining >>= 7
            if remaining > 0 { byte |= 0x80 }
            p[written] = byte
            written += 1
        } while remaining > 0
        return written
    }
}
