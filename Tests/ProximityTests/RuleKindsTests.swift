import Foundation
import Proximity
import Testing
import Vocabulary
import RulesReading

/// The table of rule kinds is what the rules payload, the schema, `watch` and the plot read: it
/// must say what the documentation and the decoder say.
@Suite struct RuleKindsTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs").standardized

    /// The event types the table declares are exactly those docs/mqtt-api.md lists, in its order.
    @Test func theTablesEventTypesAreTheDocumentedOnes() throws {
        let text = try String(contentsOf: Self.docs.appendingPathComponent("mqtt-api.md"), encoding: .utf8)
        let start = try #require(text.range(of: "Event types: "))
        let sentence = text[start.upperBound...].prefix { $0 != "." }
        let documented = sentence.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(RuleKinds.events.map(\.type.rawValue) == documented)
        #expect(Set(documented).count == documented.count)
    }

    /// Every kind's key is a key the rules decoder accepts, and its schema section is a JSON
    /// object member under that key.
    @Test func eachKindsSchemaIsItsKeysSection() throws {
        for kind in RuleKinds.all {
            try Self.check(kind)
        }
    }

    static func check(_ kind: any RuleKind.Type) throws {
        let key = kind.key
        let object = try JSONSerialization.jsonObject(with: Data("{\(kind.schema)}".utf8)) as? [String: Any]
        #expect(object?.keys.sorted() == [key])
        #expect((object?[key] as? [String: Any])?["description"] is String)
        // The decoder knows the key: a file with the key and a wrong value fails on the value, not as an unknown key.
        do {
            _ = try RulesFile.load(text: "version: 1\n\(key): 7\n", file: "rules.yaml")
            Issue.record("\(key): 7 was accepted")
        } catch {
            #expect(!"\(error)".contains("unknown key"), "\(error)")
        }
    }

    /// The thresholds of the example rules, kind by kind in table order, each kind's in file order.
    @Test func thresholdsComeKindByKindInTableOrder() throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        let thresholds = RuleKinds.thresholds(in: rules)
        let kinds = thresholds.map(\.kind)
        #expect(kinds.firstIndex(of: "enter")! < kinds.firstIndex(of: "stage")!)
        #expect(kinds.firstIndex(of: "stage")! < kinds.firstIndex(of: "start")!)
        #expect(thresholds.filter { $0.kind == "enter" }.map(\.rule) == rules.zones.map(\.name))
        #expect(thresholds.filter { $0.kind == "stage" }.count == (rules.stages?.bands.count ?? 1) - 1)
    }

    /// `state`'s rule members are the kinds' own, kind by kind in table order; a state is
    /// published again when a kind's discrete part changes (a zone entered), and not when only a
    /// continuous number does (an approach's progress).
    @Test func stateIsWrittenByTheKindsInTableOrder() throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        let cart = PeerIdentity(address: .short(2), name: "tool-cart")
        var engine = ProximityEngine(rules: rules, peers: [cart], deviceHasAoA: false)
        var states: [PeerState] = []
        var time = 1_000.0
        for distance in stride(from: 4.0, through: 0.2, by: -0.02) {
            time += 0.1
            for case let .state(state) in engine.ingest(peer: cart, sample: RangingSample(distanceMeters: distance), at: time) {
                states.append(state)
            }
        }
        let state = try #require(states.last)
        #expect(state.rules.map(\.key) == ["zones", "stage", "approaches", "facing"])
        #expect(!state.zones.isEmpty && state.stage != nil)
        // 191 measurements, each changing every approach's progress: far fewer states.
        #expect(states.count > 2 && states.count < 30, "\(states.count) states")
        for (before, after) in zip(states, states.dropFirst()) {
            #expect(before.discrete != after.discrete, "a state published without a discrete change")
        }
    }
}
