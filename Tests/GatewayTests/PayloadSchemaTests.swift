import Testing
@testable import Gateway
import Proximity
import RulesReading
import TestSupport
import UCI
import Vocabulary

/// The payloads written member by member for every measurement (`range`, `feedback`, `position`,
/// `ranking`) and the rule kinds' members of `state` are the only ones whose schema is declared
/// beside the code that writes them rather than with it: what they write must be what their
/// declaration says, member by member in the same order, and valid against it. (The others render
/// from their declarations, `PayloadFields`; every payload of the end-to-end tests is also held to
/// the whole document, `MQTTContract`.)
@Suite struct PayloadSchemaTests {
    static let ts = 1_795_977_000.123

    /// The problems of `payload` against `schema`, and whether its members come in the declared order.
    func check(_ payload: [UInt8], _ schema: JSONSchema, _ what: String) throws {
        let value = try JSONReader.value(payload)
        #expect(JSONSchemaValidator(root: schema.value).problems(value, against: schema.value) == [], "\(what): \(value.json)")
        guard case let .object(members) = value else { return }
        #expect(members.map(\.key) == schema.properties, "\(what): members out of the declared order")
    }

    func written(_ write: (inout JSONBytes) -> Void) -> [UInt8] {
        var json = JSONBytes(capacity: 64)
        write(&json)
        return json.takeBytes()
    }

    @Test func rangeWritesWhatItsSchemaDeclares() throws {
        let good = TwoWayRangingMeasurement(macAddress: .short(0x0A01), nlosRaw: 1, distanceRaw: 153, aoaAzimuth: Q9_7Angle(raw: -1234),
                                            aoaAzimuthFOM: 87, aoaElevation: Q9_7Angle(raw: 321), aoaElevationFOM: 0, rssiRaw: 161)
        let failed = TwoWayRangingMeasurement(macAddress: .short(0x0A01), status: .rangingRxTimeout, nlosRaw: 0xFF, distanceRaw: 0xFFFF)
        for (m, filtered, angles) in [(good, 1.52349, (good.aoaAzimuth.degrees, nil)), (failed, nil, (nil, nil))] as [(TwoWayRangingMeasurement, Double?, (Double?, Double?))] {
            try check(written { Payloads.range(into: &$0, ts: Timestamp.rfc3339(Self.ts), peer: Payloads.rangePeer(name: "tool-cart", mac: m.macAddress.description), measurement: m, session: 42,
                                               sequence: 7, filteredDistance: filtered, angles: angles) },
                      Payloads.rangeSchema, "range")
        }
    }

    /// A walk through the example rules' zone, stages, approach, facing and ranking, with
    /// angles and a gateway in the site: every payload of the engine's outputs.
    @Test func theEnginesPayloadsWriteWhatTheirSchemasDeclare() throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        let phone = PeerIdentity(address: .short(0x0B01), name: "phone-anna")
        let cart = PeerIdentity(address: .short(0x0B02), name: "cart-1")
        var engine = ProximityEngine(rules: rules, peers: [phone, cart], gateway: GatewayPose(position: SitePoint(x: 1, y: 2, z: 1), headingDeg: 90),
                                     deviceHasAoA: true)
        var outputs: [ProximityOutput] = []
        var time = Self.ts
        for distance in Array(stride(from: 4.0, through: 0.3, by: -0.1)) + Array(stride(from: 0.3, through: 4.0, by: 0.1)) {
            for (peer, offset) in [(phone, 0.0), (cart, 0.4)] {
                let sample = RangingSample(distanceMeters: distance + offset, azimuthDeg: 3.25, azimuthFOM: 90, elevationDeg: -2, elevationFOM: 90)
                outputs += engine.ingest(peer: peer, sample: sample, at: time)
            }
            time += 0.2
        }
        outputs += engine.tick(at: time + 10)
        var seen: Set<String> = []
        for output in outputs {
            switch output {
            case let .state(s):
                seen.insert("state")
                try check(written { ProximityPayloads.state(s, ts: Timestamp.rfc3339(s.ts), peer: ProximityPayloads.peer(s.peer), into: &$0) },
                          ProximityPayloads.stateSchema, "state")
                // The kinds' members written from their tokens are the bytes of their tree.
                #expect(written { $0.beginObject(); s.writeRules(into: &$0); $0.endObject() } == JSONBytes.object(s.rules))
            case let .feedback(f):
                seen.insert("feedback")
                try check(written { ProximityPayloads.feedback(f, ts: Timestamp.rfc3339(f.ts), peer: ProximityPayloads.peer(f.peer), into: &$0) }, ProximityPayloads.feedbackSchema, "feedback")
            case let .position(p):
                seen.insert("position")
                try check(written { ProximityPayloads.position(p, ts: Timestamp.rfc3339(p.ts), peer: ProximityPayloads.peer(p.peer), into: &$0) }, ProximityPayloads.positionSchema, "position")
            case let .ranking(r):
                seen.insert("ranking")
                try check(written { ProximityPayloads.ranking(r, ts: Timestamp.rfc3339(r.ts), into: &$0) }, ProximityPayloads.rankingSchema, "ranking")
            case let .event(e):
                seen.insert(e.type.rawValue)
                let payload = JSONBytes.object(ProximityPayloads.event(e, id: "gw:test:1"))
                #expect(JSONSchemaValidator(root: .null).problems(try JSONReader.value(payload), against: ProximityPayloads.eventFields.schema.value) == [])
            }
        }
        #expect(seen.isSuperset(of: ["state", "feedback", "position", "ranking", "zone_enter", "zone_exit", "stage_change", "facing_gained",
                                     "signal_lost"]), "\(seen.sorted())")
    }

    /// Each rule kind writes into `state` what it declares, in table order.
    @Test func theRuleKindsStateMembersAreTheDeclaredOnes() throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        let phone = PeerIdentity(address: .short(0x0B01), name: "phone-anna")
        var engine = ProximityEngine(rules: rules, peers: [phone], deviceHasAoA: true)
        let states = engine.ingest(peer: phone, sample: RangingSample(distanceMeters: 0.5), at: Self.ts)
            .compactMap { if case let .state(s) = $0 { s } else { nil } }
        let state = try #require(states.last)
        #expect(state.rules.map(\.key) == RuleKinds.stateProperties.map(\.key))
    }
}
