import Proximity
import UCI

/// Who a MAC address is: the configured peer's name (payloads) and topic segment, or the
/// address notation for a device that is not configured. Shared by the agent and `replay`, so
/// that a replay names peers exactly as the live agent did.
public struct PeerDirectory: Sendable {
    private var byAddress: [UInt16: AgentConfiguration.Peer] = [:]

    public init(_ peers: [AgentConfiguration.Peer]) {
        for peer in peers where byAddress[peer.address.value] == nil { byAddress[peer.address.value] = peer }
    }

    /// The name payloads carry and the topic segment.
    public func names(of address: MacAddress) -> (name: String, segment: String) {
        if case let .short(value) = address, let peer = byAddress[value] { return (peer.displayName, peer.topicSegment) }
        return (address.description, address.description.lowercased())
    }

    public func identity(of address: MacAddress) -> PeerIdentity {
        if case let .short(value) = address, let peer = byAddress[value] { return PeerIdentity(address: address, name: peer.name) }
        return PeerIdentity(address: address)
    }
}
