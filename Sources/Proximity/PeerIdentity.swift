import UCI

/// Who a peer is: its UWB address and, when the config names it, its name.
///
/// Rules select peers by name, address or glob (``PeerPattern``); payloads show ``displayName``,
/// the config name or else the address notation (`0x0001`), never a guessed name.
public struct PeerIdentity: Hashable, Sendable, CustomStringConvertible {
    public var address: MacAddress
    public var name: String?

    public init(address: MacAddress, name: String? = nil) {
        self.address = address
        self.name = name
    }

    /// The config name, else the address as `0x0001` (upper-case hex digits, as `MacAddress` writes it;
    /// the integrator lower-cases it for topics).
    public var displayName: String { name ?? address.description }

    public var description: String { displayName }
}
