import UCI

/// A scenario peer that is an Android phone (`phone:` under a peer): the Jetpack parameters its
/// app uses and when it starts ranging. The peer's `address` is the phone's own address; its
/// path, windows and noise apply as to any peer, but it answers only while the gateway's
/// session matches what the phone configured (`PhoneRangingParameters.mismatches`).
///
/// ```yaml
/// - address: 0xCDAB             # the phone's address as uwb2mqtt writes it …
///   path: [{t: 0, distance: 2}]
///   phone:
///     address: "AB:CD"          # … optionally also in Jetpack's form, checked to agree
///     role: controlee
///     session_id: 42
///     session_key_info: "0807010203040506"
///     gateway_address: "00:00"
/// ```
public struct ScenarioPhone: Hashable, Sendable {
    /// The phone's `address` is always the peer's.
    public var parameters: PhoneRangingParameters
    /// Scene time at which the app starts its session (after its exchange with the gateway):
    /// once, or on every pass of a looping scenario. A start that falls before the device is
    /// powered on (`clock: wall`) is skipped: the phone started with the module off, and how
    /// long it has waited since is not something to guess. nil: only its app starts it, from
    /// code (`SimulatedDevice.startPhone`); until then it is a phone that answers nothing, never
    /// a tag.
    public var startAt: Double?
    /// An app that asks the gateway for the session over the broker (`phone_session`), as
    /// `run --simulate` plays it: the session's id, key, gateway address, channel and preamble
    /// then come from the gateway's answer, and `start_at` is the app's.
    public var app: ScenarioPhoneApp?

    public init(parameters: PhoneRangingParameters, startAt: Double? = 0, app: ScenarioPhoneApp? = nil) {
        self.parameters = parameters
        self.startAt = startAt
        self.app = app
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case address, role
        case configID = "config_id"
        case sessionID = "session_id"
        case sessionKeyInfo = "session_key_info"
        case gatewayAddress = "gateway_address"
        case channel
        case preambleIndex = "preamble_index"
        case updateRate = "update_rate"
        case slotDurationMilliseconds = "slot_duration_ms"
        case startAt = "start_at"
        case app
    }

    /// Decodes a peer's `phone:` mapping; `peerAddress` is the peer's `address`. Defaults:
    /// controlee, config 1, channel 9, preamble 9, automatic rate, 2 ms slots, start at 0.
    init(from decoder: any Decoder, peerAddress: UInt16) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let path = codingPathText(decoder.codingPath)
        func fail(_ error: ScenarioError) -> DecodingError {
            DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath,
                                                              debugDescription: error.description, underlyingError: error))
        }
        func text<T>(_ key: CodingKeys, expected: String, _ parse: (String) -> T?) throws -> T? {
            guard let value = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let parsed = parse(value) else {
                throw fail(.invalidValue(field: path + "." + key.stringValue, value: value, expected: expected))
            }
            return parsed
        }
        func number<T: FixedWidthInteger>(_ key: CodingKeys, _ type: T.Type) throws -> T? {
            guard let value = try c.decodeIfPresent(Int.self, forKey: key) else { return nil }
            guard let exact = T(exactly: value) else {
                throw fail(.outOfRange(field: path + "." + key.stringValue, value: Double(value),
                                       expected: "0…\(T.max)"))
            }
            return exact
        }
        func required<T>(_ value: T?, _ key: CodingKeys) throws -> T {
            guard let value else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "\(path).\(key.stringValue) is required"))
            }
            return value
        }

        let own = UWBAddress(shortAddress: peerAddress)
        let addressForm = "two bytes in Jetpack's wire order such as \"AB:CD\""
        if let declared = try text(.address, expected: addressForm, { UWBAddress($0) }), declared != own {
            throw fail(.invalidValue(field: path + ".address", value: declared.description,
                                     expected: "the peer's address \(shortAddressText(peerAddress)), which is \"\(own)\" in wire order"))
        }
        let role = try text(.role, expected: "controller or controlee") { PhoneRangingParameters.Role(rawValue: $0) }
        let rate = try text(.updateRate, expected: "automatic, frequent or infrequent") { PhoneRangingParameters.UpdateRate(rawValue: $0) }
        let key = try text(.sessionKeyInfo, expected: "8 bytes as 16 hex digits, VENDOR_ID then STATIC_STS_IV in wire order") {
            SessionKeyInfo(hex: $0)
        }
        let gateway = try text(.gatewayAddress, expected: addressForm) { UWBAddress($0) }
        if c.contains(.app) {
            // The session comes from the gateway's answer: what is written here is the phone's side.
            for key in [CodingKeys.sessionID, .sessionKeyInfo, .gatewayAddress, .startAt] where c.contains(key) {
                throw fail(.invalidValue(field: path + "." + key.stringValue, value: "given",
                                         expected: "nothing: with app, the gateway's answer to phone_session says it"))
            }
            app = try ScenarioPhoneApp(from: c.superDecoder(forKey: .app))
            startAt = nil
        } else {
            startAt = try c.decodeIfPresent(Double.self, forKey: .startAt) ?? 0
        }
        parameters = PhoneRangingParameters(
            role: role ?? .controlee, configID: try number(.configID, UInt8.self) ?? 1, address: own,
            gatewayAddress: app == nil ? try required(gateway, .gatewayAddress) : UWBAddress(0, 0),
            sessionID: app == nil ? try required(try number(.sessionID, UInt32.self), .sessionID) : 1,
            sessionKeyInfo: app == nil ? try required(key, .sessionKeyInfo) : .qorvoExample, channel: try number(.channel, UInt8.self) ?? 9,
            preambleIndex: try number(.preambleIndex, UInt8.self) ?? 9, updateRate: rate ?? .automatic,
            slotDurationMilliseconds: try number(.slotDurationMilliseconds, UInt8.self) ?? 2)
    }

    /// `field` is the entry's place in the scenario (`peers[0x0001].phone`).
    func validate(field: String) throws(ScenarioError) {
        try parameters.validate(field: field)
        try app?.validate(field: field + ".app")
        guard let startAt else { return }
        guard startAt.isFinite else { throw .notFinite(field: field + ".start_at") }
        guard startAt >= 0 else { throw .outOfRange(field: field + ".start_at", value: startAt, expected: "≥ 0 seconds") }
    }
}
