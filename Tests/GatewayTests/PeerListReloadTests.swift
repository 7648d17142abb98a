import Foundation
@testable import Gateway
import Proximity
import Testing
import UCI

/// A new peer list (SIGHUP) in the agent's core: what a removed or renamed peer leaves on the
/// broker, and what becomes of its measurements still in flight.
@Suite struct PeerListReloadTests {
    static let anna = AgentConfiguration.Peer(address: 1, name: "phone-anna")
    static let cart = AgentConfiguration.Peer(address: 2, name: "tool-cart")

    func core() -> AgentCore {
        AgentCore(settings: AgentCore.Settings(topics: TopicTree(base: "uwb2mqtt", gatewayID: "gw"), eventIDPrefix: "gw:test",
                                               sessionID: 42, qosRanges: 0, stateIntervalSeconds: 1),
                  peers: [Self.anna, Self.cart], identities: [], gateway: nil)
    }

    /// A round in which every address in `addresses` is measured at 2 m.
    func round(_ addresses: [UInt16], _ sequence: UInt32) -> SessionInfo {
        SessionInfo(sequenceNumber: sequence, sessionHandle: 1, currentRangingInterval: 100, measurements: .twoWay(addresses.map {
            TwoWayRangingMeasurement(macAddress: .short($0), status: .ok, nlosRaw: 0, distanceRaw: 200)
        }))
    }

    /// A string field of a message's JSON payload.
    func field(_ key: String, of message: Outbox.Message?) -> String? {
        guard let message else { return nil }
        return ((try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any])?[key] as? String
    }

    @Test func aRemovedPeersRetainedStateIsClearedAndItsLateMeasurementsDropped() {
        var core = core()
        core.ranging(round([1, 2], 0), at: 1000)
        let before = core.take()
        #expect(before.contains { $0.topic == "uwb2mqtt/gw/peer/tool-cart/state" && $0.delivery == .durable(retain: true) })

        core.setPeers([Self.anna], sessionID: 42, at: 1000.5)
        #expect(core.take() == [Outbox.Message(topic: "uwb2mqtt/gw/peer/tool-cart/state", payload: [], delivery: .durable(retain: true))])

        // The device ranges the cart for a few rounds more, until it takes the new list.
        core.ranging(round([1, 2], 1), at: 1000.6)
        core.ranging(round([1, 2], 2), at: 1000.7)
        let after = core.take()
        #expect(after.contains { $0.topic == "uwb2mqtt/gw/peer/phone-anna/range" })
        #expect(after.allSatisfy { $0.topic.hasPrefix("uwb2mqtt/gw/peer/phone-anna/") }, "\(after.map(\.topic))")
        // It is not a peer any more: no signal_lost, no state of its own when the rounds stop.
        for step in 1...30 { core.tick(at: 1000.7 + Double(step) * 0.1) }
        #expect(core.take().allSatisfy { !$0.topic.contains("tool-cart") && !$0.topic.contains("0x0002") })
        #expect(core.engine.peers.map(\.displayName) == ["phone-anna"])

        // Added back, it is a peer again.
        core.setPeers([Self.anna, Self.cart], sessionID: 42, at: 1004)
        #expect(core.take().isEmpty)
        core.ranging(round([1, 2], 3), at: 1004.1)
        let back = core.take().first { $0.topic == "uwb2mqtt/gw/peer/tool-cart/state" }
        #expect(field("peer", of: back) == "tool-cart" && field("link", of: back) == "ranging")
    }

    /// A phone let go: the device stops its session some rounds later, and those late rounds do
    /// not bring it back under its name (a replay, which counts its rounds only while it is in,
    /// would decide otherwise); when the address ranges again as a phone, it counts again.
    @Test func aPhonesLateRoundsAfterItLeftAreDropped() {
        var core = core()
        core.addPhone(name: "phone-ben", address: 0xCDAB, sessionID: 77, at: 1000)
        core.ranging(round([1, 0xCDAB], 0), at: 1000.1)
        #expect(core.take().contains { $0.topic == "uwb2mqtt/gw/peer/phone-ben/state" })
        core.phoneLeft(address: 0xCDAB, at: 1000.2)
        let left = core.take().first { $0.topic == "uwb2mqtt/gw/peer/phone-ben/state" }
        #expect(field("link", of: left) == "lost")

        core.ranging(round([1, 0xCDAB], 1), at: 1000.3)
        core.ranging(round([1, 0xCDAB], 2), at: 1000.4)
        let late = core.take()
        #expect(late.allSatisfy { !$0.topic.contains("phone-ben") && !$0.topic.contains("0xCDAB") }, "\(late.map(\.topic))")

        core.addPhone(name: "phone-ben", address: 0xCDAB, sessionID: 78, at: 1001)
        core.ranging(round([1, 0xCDAB], 3), at: 1001.1)
        let back = core.take().first { $0.topic == "uwb2mqtt/gw/peer/phone-ben/state" }
        #expect(field("link", of: back) == "ranging")
    }

    @Test func aRenamedPeerMovesToItsNewTopicAndClearsTheOld() {
        var core = core()
        core.ranging(round([1, 2], 0), at: 1000)
        _ = core.take()
        core.setPeers([Self.anna, AgentConfiguration.Peer(address: 2, name: "trolley")], sessionID: 42, at: 1000.5)
        #expect(core.take() == [Outbox.Message(topic: "uwb2mqtt/gw/peer/tool-cart/state", payload: [], delivery: .durable(retain: true))])
        core.ranging(round([1, 2], 1), at: 1000.6)
        let messages = core.take()
        #expect(!messages.contains { $0.topic.contains("tool-cart") })
        let state = messages.first { $0.topic == "uwb2mqtt/gw/peer/trolley/state" }
        #expect(field("peer", of: state) == "trolley", "\(messages.map(\.topic))")
    }

    @Test func anAddressSeenOnAirAndThenNamedClearsItsAddressTopic() {
        var core = core()
        core.ranging(round([3], 0), at: 1000)
        #expect(core.take().contains { $0.topic == "uwb2mqtt/gw/peer/0x0003/state" })
        core.setPeers([Self.anna, Self.cart, AgentConfiguration.Peer(address: 3, name: "badge")], sessionID: 42, at: 1000.5)
        #expect(core.take() == [Outbox.Message(topic: "uwb2mqtt/gw/peer/0x0003/state", payload: [], delivery: .durable(retain: true))])
        core.ranging(round([3], 1), at: 1000.6)
        #expect(core.take().contains { $0.topic == "uwb2mqtt/gw/peer/badge/state" })
    }

    @Test func anUnchangedPeerListPublishesNothing() {
        var core = core()
        core.ranging(round([1, 2], 0), at: 1000)
        _ = core.take()
        core.setPeers([Self.anna, Self.cart], sessionID: 42, at: 1000.5)
        #expect(core.take().isEmpty)
        #expect(core.engine.peers.map(\.displayName) == ["phone-anna", "tool-cart"])
    }
}
