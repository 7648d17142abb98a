import Foundation
import Proximity
import UCI
import YAMLCoding
import RulesReading

/// The `file:line:column: message` a rules text fails with, or a note that it loaded.
func rulesFailure(_ text: String) -> String {
    do {
        _ = try RulesFile.load(text: text, file: "rules.yaml")
        return "<loaded without error>"
    } catch {
        return error.description
    }
}

func rules(_ text: String) throws -> Rules {
    try RulesFile.load(text: text, file: "rules.yaml")
}

let cart = PeerIdentity(address: .short(1), name: "tool-cart")
let anna = PeerIdentity(address: .short(2), name: "phone-anna")
let bob = PeerIdentity(address: .short(3), name: "phone-bob")

/// Drives an engine with distances and collects its outputs.
struct Drive {
    var engine: ProximityEngine
    var outputs: [ProximityOutput] = []

    init(_ rules: Rules, peers: [PeerIdentity] = [cart, anna, bob], gateway: GatewayPose? = nil, aoa: Bool = false) {
        engine = ProximityEngine(rules: rules, peers: peers, gateway: gateway, deviceHasAoA: aoa)
    }

    @discardableResult
    mutating func measure(_ peer: PeerIdentity, _ d: Double, at t: Double, azimuth: Double? = nil, fom: Int = 100,
                          elevation: Double? = nil) -> [ProximityOutput] {
        let sample = RangingSample(distanceMeters: d, azimuthDeg: azimuth, azimuthFOM: azimuth == nil ? 0 : fom,
                                   elevationDeg: elevation, elevationFOM: elevation == nil ? 0 : fom)
        let out = engine.ingest(peer: peer, sample: sample, at: t)
        outputs += out
        return out
    }

    @discardableResult
    mutating func fail(_ peer: PeerIdentity, at t: Double) -> [ProximityOutput] {
        let out = engine.ingest(peer: peer, sample: .failed, at: t)
        outputs += out
        return out
    }

    /// A phone's report of the angle at which it sees the gateway, measured at `measured`
    /// (default: when it arrives, `t`).
    @discardableResult
    mutating func report(_ peer: PeerIdentity, azimuth: Double?, elevation: Double? = nil, measured: Double? = nil,
                         at t: Double) -> [ProximityOutput] {
        let out = engine.phoneAngle(peer: peer, azimuthDeg: azimuth, elevationDeg: elevation, measuredAt: measured ?? t, at: t)
        outputs += out
        return out
    }

    @discardableResult
    mutating func tick(at t: Double) -> [ProximityOutput] {
        let out = engine.tick(at: t)
        outputs += out
        return out
    }

    /// Events so far as `type rule from→to`.
    var events: [ProximityEvent] {
        outputs.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    func eventLines(_ types: Set<EventType>? = nil) -> [String] {
        events.filter { types?.contains($0.type) ?? true }.map { e in
            "\(e.type.rawValue)\(e.rule.map { " " + $0 } ?? "") \(e.from.json)→\(e.to.json)"
        }
    }

    var rankings: [Ranking] { outputs.compactMap { if case .ranking(let r) = $0 { r } else { nil } } }
    var positions: [Position] { outputs.compactMap { if case .position(let p) = $0 { p } else { nil } } }
    var feedback: [Feedback] { outputs.compactMap { if case .feedback(let f) = $0 { f } else { nil } } }
    var states: [PeerState] { outputs.compactMap { if case .state(let s) = $0 { s } else { nil } } }
}

/// Rules without filtering, so that tests state distances exactly.
func unfiltered(_ body: String) throws -> Rules {
    try rules("version: 1\nfilter: {kind: none}\n" + body)
}
