import Proximity
import UCI

/// Who the core's peers are and where each publishes: the configured peers, the phones that
/// range in sessions of their own (named by their requests, since a phone's address changes with
/// every session), and configured peers a reload removed. Every output looks its topics up here.
struct PeerRoster {
    /// Names and topics per address, rebuilt when the peer list changes.
    private(set) var routes: PeerRoutes
    /// The addresses of the configured peers.
    private(set) var configured: [MacAddress]
    private var configuredPeers: [AgentConfiguration.Peer]
    private var phones: [AgentConfiguration.Peer] = []
    /// The session each phone ranges in (`range.session`).
    private var phoneSessions: [MacAddress: UInt32] = [:]
    /// Configured peers a reload removed. The device takes a new peer list some rounds after the
    /// reload; measurements of these still in flight are dropped, or the peer would come back under
    /// its address and leave a retained `state` behind again. Cleared when a reload adds it back.
    private var departed: Set<MacAddress> = []
    /// The latest phones whose session ended, oldest first: the device stops a phone's session
    /// some rounds after it is let go, and those rounds would bring it back under its name (and a
    /// replay, which counts a phone's rounds only while it is in, would decide otherwise). Only
    /// the last few are kept: a phone's every session has a new address, and late rounds come
    /// within a second.
    private var departedPhones: [MacAddress] = []
    static let departedPhonesKept = 16
    private let topics: TopicTree

    init(peers: [AgentConfiguration.Peer], topics: TopicTree) {
        self.topics = topics
        configuredPeers = peers
        configured = peers.map { .short($0.address.value) }
        routes = PeerRoutes(directory: PeerDirectory(peers), topics: topics)
    }

    mutating func route(for address: MacAddress) -> PeerRoute { routes.route(for: address) }

    var hasPhones: Bool { !phoneSessions.isEmpty }

    /// Whether `address` is a phone's, ranging in a session of its own.
    func isPhone(_ address: MacAddress) -> Bool { phoneSessions[address] != nil }

    /// The session `address` ranges in: its phone's, or the configured one.
    func session(of address: MacAddress, configured: UInt32) -> UInt32 {
        phoneSessions.isEmpty ? configured : phoneSessions[address] ?? configured
    }

    /// Whether measurements of `address` are to be dropped: a configured peer a reload removed, or
    /// a phone whose session ended.
    func hasDeparted(_ address: MacAddress) -> Bool {
        (!departed.isEmpty && departed.contains(address)) || (!departedPhones.isEmpty && departedPhones.contains(address))
    }

    /// A new configured peer list (SIGHUP). Returns the routes before it, for the caller to see
    /// whose topics changed.
    mutating func replaceConfigured(_ peers: [AgentConfiguration.Peer]) -> PeerRoutes {
        let old = routes
        let addresses: [MacAddress] = peers.map { .short($0.address.value) }
        departed.formUnion(configured.filter { !addresses.contains($0) })
        departed.subtract(addresses)
        configured = addresses
        configuredPeers = peers
        rebuild()
        return old
    }

    /// A phone ranges under `name` with `address` in `sessionID`. Returns the addresses whose
    /// peer goes: the name's earlier address, and a phone that had this address.
    mutating func addPhone(name: String, address: UInt16, sessionID: UInt32) -> [MacAddress] {
        let stale = phones.filter { $0.name == name || $0.address.value == address }.map { MacAddress.short($0.address.value) }
        phones.removeAll { $0.name == name || $0.address.value == address }
        phones.append(AgentConfiguration.Peer(address: address, name: name))
        for address in stale { phoneSessions[address] = nil }
        phoneSessions[.short(address)] = sessionID
        departedPhones.removeAll { $0 == .short(address) }
        rebuild()
        return stale
    }

    /// A phone ranges on under its name at a new address, in a new session.
    mutating func movePhone(name: String, from old: UInt16, to new: UInt16, sessionID: UInt32) {
        phones.removeAll { $0.name == name || $0.address.value == new }
        phones.append(AgentConfiguration.Peer(address: new, name: name))
        phoneSessions[.short(old)] = nil
        phoneSessions[.short(new)] = sessionID
        departedPhones.removeAll { $0 == .short(new) }
        rebuild()
    }

    /// A phone's session ended; it keeps its name until the name comes back with a new address.
    mutating func phoneLeft(_ address: UInt16) {
        phoneSessions[.short(address)] = nil
        departedPhones.removeAll { $0 == .short(address) }
        departedPhones.append(.short(address))
        if departedPhones.count > Self.departedPhonesKept { departedPhones.removeFirst() }
    }

    private mutating func rebuild() {
        routes = PeerRoutes(directory: PeerDirectory(configuredPeers + phones), topics: topics)
    }
}
