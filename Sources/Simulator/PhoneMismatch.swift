/// One parameter on which a simulated gateway session and a phone's own configuration disagree
/// over the air, so that the phone never hears the gateway (or the other way round).
///
/// `description` reads `PREAMBLE_CODE_INDEX: gateway 10, phone 11`, or with a hint
/// `DST_MAC_ADDRESS: gateway lists 0xABCD, phone is 0xCDAB (byte order?)`.
public struct PhoneMismatch: Hashable, Sendable, CustomStringConvertible {
    /// The UCI name of the parameter (`PREAMBLE_CODE_INDEX`), or `SESSION_ID` for the id
    /// SESSION_INIT carries.
    public var parameter: String
    /// The gateway's side, as the diagnosis prints it (`10`, `lists 0xABCD`, `not set`).
    public var gateway: String
    /// The phone's side (`11`, `is 0xCDAB`).
    public var phone: String
    /// A likely cause, when the values tell (`byte order?`).
    public var hint: String?

    public var description: String {
        "\(parameter): gateway \(gateway), phone \(phone)" + (hint.map { " (\($0))" } ?? "")
    }
}
