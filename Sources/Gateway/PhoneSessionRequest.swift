import UCI
import Vocabulary

/// The body of a `phone_session` request: what a phone app tells the gateway after creating its
/// Jetpack session scope (android-interop.md §8). Config ids are Jetpack's
/// (`RangingParameters.CONFIG_*`), not Android 16's `android.ranging` numbering.
struct PhoneSessionRequest: Equatable, Sendable {
    enum Role: String, Sendable {
        case controller, controlee
    }

    /// Jetpack's `RANGING_UPDATE_RATE_*`: the interval comes from it and the config id.
    enum UpdateRate: String, Sendable, CaseIterable {
        case automatic, frequent, infrequent

        /// android-interop.md §3: config 1 (and 4) 240/120/600 ms, the others 200/120/600 ms.
        func intervalMilliseconds(configID: Int) -> UInt32 {
            switch self {
            case .automatic: configID == 1 ? 240 : 200
            case .frequent: 120
            case .infrequent: 600
            }
        }
    }

    /// The peer's name in payloads and topics (a phone's address changes every session).
    var name: String
    var phoneRole: Role
    var configID: Int
    /// Little-endian value of the phone's `localAddress` (`"AB:CD"` in the request).
    var phoneAddress: UInt16
    var updateRate: UpdateRate
    var slotDurationMilliseconds: Int
    /// The phone controller's `uwbComplexChannel`; for a controlee phone, an optional wish.
    var channel: UInt8?
    var preambleIndex: UInt8?
    /// Optional: an app may choose these itself (both ends must hold the same).
    var sessionID: UInt32?
    var sessionKeyInfo: SessionKeyInfo?
    /// `"replace": true`: a phone already holding the name is let go first (an app restarted
    /// with a new address); without it the name is refused while in use.
    var replace = false

    /// Jetpack config ids the gateway can serve: static STS, unicast and one-to-many.
    static let configIDs = [1, 2]
    /// Jetpack's `sessionId` is a signed Int: 1…2³¹−1.
    static let sessionIDs: ClosedRange<UInt32> = 1...0x7FFF_FFFF

    /// Reads and checks the body; the error says which key is wrong and what it must be.
    static func parse(_ body: [String: JSONValue]) -> Result<PhoneSessionRequest, PhoneRequestError> {
        do { return .success(try PhoneSessionRequest(body)) } catch { return .failure(error) }
    }

    /// The body the parser below reads, for the AsyncAPI document; a member it does not declare is
    /// refused (the parser's list of known keys is this one's).
    static let bodySchema = JSONSchema.object([
        Request.idProperty, nameProperty,
        .init(.platform, JSONSchema.constant(.string(Platform.android.rawValue)), required: false),
        .init(.phoneRole, .enumeration(["controlee", "controller"]).described("the phone's Jetpack scope")),
        .init(.configID, JSONSchema.integer.with("enum", .list(configIDs.map { .int(Int64($0)) }))
                .described("Jetpack's numbering: 1 CONFIG_UNICAST_DS_TWR, 2 CONFIG_MULTICAST_DS_TWR")),
        .init(.phoneAddress, PhoneSessions.wireOrderAddress.described("the scope's localAddress (UwbAddress.toString())")),
        .init(.updateRate, JSONSchema.enumeration(UpdateRate.allCases.map(\.rawValue)), required: false),
        .init(.slotDurationMs, JSONSchema.integer.with("enum", .list([1, 2])), required: false),
        .init(.complexChannel, PhoneSessions.complexChannel.schema.described("required when the phone is the controller"), required: false),
        .init(.sessionID, JSONSchema.integer.minimum(Double(sessionIDs.lowerBound)).maximum(Double(sessionIDs.upperBound)), required: false),
        .init(.sessionKeyInfo, JSONSchema.string.with("pattern", "^[0-9a-fA-F]{16}$"), required: false),
        .init(.replace, JSONSchema.boolean.described("let a phone holding the name go first"), required: false),
    ]).described("an Android phone's Jetpack session (android-interop.md)")

    /// `name` in a phone's requests.
    static let nameProperty = JSONSchema.Property(.name, JSONSchema.string.with("minLength", 1).described("the peer's name in payloads and topics"))

    private init(_ body: [String: JSONValue]) throws(PhoneRequestError) {
        try Self.rejectUnknownKeys(of: body, declaredBy: Self.bodySchema)
        name = try Self.name(in: body)
        guard case let .string(role)? = body["phone_role"], let phoneRole = Role(rawValue: role) else {
            throw PhoneRequestError("phone_role must be \"controlee\" or \"controller\" (the phone's Jetpack scope)")
        }
        self.phoneRole = phoneRole
        guard case let .int(config)? = body["config_id"], Self.configIDs.contains(Int(config)) else {
            throw PhoneRequestError("config_id must be 1 (CONFIG_UNICAST_DS_TWR) or 2 (CONFIG_MULTICAST_DS_TWR), Jetpack's numbering; "
                                    + "found \(body["config_id"]?.json ?? "nothing")")
        }
        configID = Int(config)
        if configID == 2 && phoneRole == .controller {
            throw PhoneRequestError("config_id 2 (one-to-many) needs phone_role controlee: the gateway is the controller of its phones")
        }
        guard case let .string(address)? = body["phone_address"], let value = WireOrderAddress.value(of: address) else {
            throw PhoneRequestError("phone_address must be the scope's localAddress as two bytes \"AB:CD\" (UwbAddress.toString()); "
                                    + "found \(body["phone_address"]?.json.prefix(40) ?? "nothing")")
        }
        phoneAddress = value
        switch body["update_rate"] {
        case nil: updateRate = .automatic
        case let .string(text)? where UpdateRate(rawValue: text) != nil: updateRate = UpdateRate(rawValue: text)!
        default: throw PhoneRequestError("update_rate must be automatic, frequent or infrequent")
        }
        switch body["slot_duration_ms"] {
        case nil: slotDurationMilliseconds = 2
        case let .int(ms)? where ms == 1 || ms == 2: slotDurationMilliseconds = Int(ms)
        default: throw PhoneRequestError("slot_duration_ms must be 1 or 2")
        }
        if let complex = body["complex_channel"] {
            guard case let .int(channel)? = complex["channel"], channel == 5 || channel == 9 else {
                throw PhoneRequestError("complex_channel.channel must be 5 or 9 (the DWM3001C's channels)")
            }
            guard case let .int(preamble)? = complex["preamble_index"], (9...12).contains(preamble) else {
                throw PhoneRequestError("complex_channel.preamble_index must be 9 to 12 (BPRF preambles both ends support)")
            }
            self.channel = UInt8(channel)
            self.preambleIndex = UInt8(preamble)
        } else if phoneRole == .controller {
            throw PhoneRequestError("complex_channel is required when the phone is the controller: send scope.uwbComplexChannel")
        }
        switch body["session_id"] {
        case nil: sessionID = nil
        case let .int(id)? where id >= 1 && id <= Int64(Self.sessionIDs.upperBound): sessionID = UInt32(id)
        default: throw PhoneRequestError("session_id must be an integer from 1 to 2147483647")
        }
        switch body["replace"] {
        case nil: replace = false
        case let .bool(flag)?: replace = flag
        default: throw PhoneRequestError("replace must be true or false")
        }
        switch body["session_key_info"] {
        case nil: sessionKeyInfo = nil
        case let .string(text)? where text.utf8.count == 16 && SessionKeyInfo(hex: text) != nil: sessionKeyInfo = SessionKeyInfo(hex: text)
        default: throw PhoneRequestError("session_key_info must be 8 bytes as 16 hex digits (VENDOR_ID then STATIC_STS_IV, wire order)")
        }
    }
}

extension PhoneSessionRequest {
    /// Which kind of phone asks: no `platform` is an Android phone, as before iPhones could.
    enum Platform: String, Sendable {
        case android, ios
    }

    static func platform(of body: [String: JSONValue]) -> Result<Platform, PhoneRequestError> {
        switch body["platform"] {
        case nil: .success(.android)
        case let .string(text)? where Platform(rawValue: text) != nil: .success(Platform(rawValue: text)!)
        default: .failure(PhoneRequestError("platform must be \"android\" (the default) or \"ios\""))
        }
    }

    /// Refuses a member `schema` does not declare.
    static func rejectUnknownKeys(of body: [String: JSONValue], declaredBy schema: JSONSchema) throws(PhoneRequestError) {
        let known = Set(schema.properties)
        if let unknown = body.keys.sorted().first(where: { !known.contains($0) }) {
            throw PhoneRequestError("unknown key \"\(unknown.prefix(32))\" (known: \(known.subtracting(["id"]).sorted().joined(separator: ", ")))")
        }
    }

    /// The phone's name: the peer's name in payloads, and a topic segment.
    static func name(in body: [String: JSONValue]) throws(PhoneRequestError) -> String {
        guard case let .string(name)? = body["name"], !name.isEmpty else {
            throw PhoneRequestError("name is required: the peer's name in payloads and topics, e.g. \"phone-anna\"")
        }
        let segment = TopicSegment.sanitize(name)
        guard !segment.isEmpty, segment.count <= TopicSegment.maximumLength else {
            throw PhoneRequestError("name must give a topic segment of 1 to \(TopicSegment.maximumLength) characters")
        }
        return name
    }
}

/// Why a phone request is refused: the response's `error`.
struct PhoneRequestError: Error, Equatable, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}
