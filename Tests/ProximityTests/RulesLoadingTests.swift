import Proximity
import Testing
import UCI
import YAMLCoding
import RulesReading

@Suite struct RulesLoadingTests {
    @Test func exampleLoads() throws {
        let r = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        #expect(r.filter == FilterSettings(kind: .kalman, maxSpeed: 3))
        #expect(r.signalLostAfter == 2)
        #expect(r.direction == DirectionSettings(minFOM: 50, maxAge: 0.5))
        #expect(r.zones.map(\.name) == ["counter"])
        #expect(r.zones[0].enterWithin == 1.0 && r.zones[0].exitBeyond == 1.3 && abs(r.zones[0].dwell - 0.3) < 1e-9)
        let stages = try #require(r.stages)
        #expect(stages.hysteresis == 0.2)
        #expect(stages.bands.map(\.name) == ["locate", "point", "reach"])
        #expect(stages.bands.map(\.beyond) == [10, 1, nil])
        #expect(stages.bands[1].attributes.value.json == #"{"facing_tolerance_deg": 35, "shows_distance": true}"#)
        #expect(r.approaches[0].peers == [PeerPattern(.glob("phone-*"))])
        #expect(r.approaches[0].startWithin == 0.6 && r.approaches[0].confirmWithin == 0.12 && r.approaches[0].cancelBeyond == 0.7)
        #expect(r.facing?.tolerance == .stage)
        #expect(r.facing?.cues.gained?.json == #"{"sound": "direction-lock", "haptic": "snap"}"#)
        #expect(r.facing?.cues.holding?.json == #"{"haptic": "pulse"}"#)
        #expect(r.facing?.cues.lost == nil)
        #expect(r.rankings[0].baseScores == [.init(peer: "tool-cart", score: 42)])
        #expect(r.rankings[0].within == 5 && r.rankings[0].nearbyWithin == 2)
        #expect(r.rankings[0].nearbyBonus == 10 && r.rankings[0].facingBonus == 20)
        #expect(r.sha256 == SHA256.hex(of: Array(RulesFile.exampleYAML.utf8)))
    }

    /// The rules file reads durations as the config does: minutes and hours too.
    @Test func durationsTakeEveryUnit() throws {
        let r = try RulesFile.load(text: "version: 1\nsignal_lost_after: 1.5min\ndirection: {max_age: 250 ms}\n", file: "rules.yaml")
        #expect(r.signalLostAfter == 90)
        #expect(try RulesFile.load(text: "version: 1\nsignal_lost_after: 1h\n", file: "rules.yaml").signalLostAfter == 3600)
    }

    @Test func defaults() throws {
        let r = try rules("version: 1\n")
        #expect(r.filter == FilterSettings(kind: .kalman, maxSpeed: 3))
        #expect(r.signalLostAfter == 2 && r.direction.minFOM == 50 && r.direction.maxAge == 0.5)
        #expect(r.zones.isEmpty && r.stages == nil && r.approaches.isEmpty && r.facing == nil && r.rankings.isEmpty)
        let z = try rules("version: 1\nzones: [{name: a, enter_within: 1, exit_beyond: 2}]\nfacing: {}\n")
        #expect(z.zones[0].peers == PeerPattern.all && z.zones[0].dwell == 0)
        #expect(z.facing?.tolerance == .degrees(30))
        let s = try rules("version: 1\nstages: {bands: [{name: only}]}\n")
        #expect(s.stages?.hysteresis == 0 && s.stages?.bands[0].attributes.value == .object([]))
    }

    @Test(arguments: [
        ("1.2", 1.2), ("60cm", 0.6), ("1.2m", 1.2), ("1200mm", 1.2), ("0", 0.0), ("2", 2.0), ("\"75 cm\"", 0.75),
    ])
    func distanceUnits(text: String, meters: Double) throws {
        let r = try rules("version: 1\nzones: [{name: a, enter_within: \(text), exit_beyond: 100}]\n")
        #expect(abs(r.zones[0].enterWithin - meters) < 1e-9)
    }

    @Test(arguments: [("300ms", 0.3), ("2s", 2.0), ("1m", 60.0), ("1.5", 1.5), ("0", 0.0)])
    func durationUnits(text: String, seconds: Double) throws {
        let r = try rules("version: 1\nzones: [{name: a, enter_within: 1, exit_beyond: 2, dwell: \(text)}]\n")
        #expect(abs(r.zones[0].dwell - seconds) < 1e-9)
    }

    @Test func peerPatterns() throws {
        let r = try rules("version: 1\nzones: [{name: a, peers: [tool-cart, 0x0002, \"phone-?ob\", \"0x00*3\"], enter_within: 1, exit_beyond: 2}]\n")
        let p = r.zones[0].peers
        #expect(p == [PeerPattern(.name("tool-cart")), PeerPattern(.address(.short(2))), PeerPattern(.glob("phone-?ob")),
                      PeerPattern(.glob("0x00*3"))])
        #expect(p[0].matches(cart) && !p[0].matches(anna))
        #expect(p[1].matches(anna) && p[1].matches(PeerIdentity(address: .short(2))))
        #expect(p[2].matches(bob) && !p[2].matches(anna))
        #expect(p[3].matches(PeerIdentity(address: .short(0x0003))) && !p[3].matches(anna))
        #expect(PeerPattern(.glob("*")).matches(PeerIdentity(address: .extended(7))))
        #expect(PeerPattern(.glob("*-*-?")).matches(PeerIdentity(address: .short(9), name: "a-b-c")))
        #expect(!PeerPattern(.glob("a*b")).matches(PeerIdentity(address: .short(9), name: "acbx")))
    }

    @Test func ruleValuesKeepOrderAndTypes() throws {
        let r = try rules("""
            version: 1
            stages:
              bands:
                - name: x
                  attributes: {z: 1, a: 2.5, m: "3", b: true, n: null, l: [1, two, {k: v}], o: {q: 0x10}}
            """)
        #expect(r.stages?.bands[0].attributes.value.json == #"{"z": 1, "a": 2.5, "m": "3", "b": true, "n": null, "l": [1, "two", {"k": "v"}], "o": {"q": 16}}"#)
    }

    @Test func warningsForUnmatchedPeers() throws {
        let r = try rules("""
            version: 1
            zones:
              - {name: dock, peers: ["forklift-*"], enter_within: 1, exit_beyond: 2}
              - {name: desk, enter_within: 1, exit_beyond: 2}
            approaches:
              - {name: pay, peers: [0x0009], start_within: 1, confirm_within: 0.5, cancel_beyond: 2}
            rankings:
              - {name: r, base_scores: {tool-cart: 1, ghost: 2, 0x0002: 3}}
            """)
        #expect(r.warnings(for: [cart, anna]) == [
            "rules.yaml:3:5: zone \"dock\": peers [\"forklift-*\"] match no configured peer",
            "rules.yaml:6:5: approach \"pay\": peers [\"0x0009\"] match no configured peer",
            "rules.yaml:8:5: ranking \"r\": base_scores names \"ghost\", which is no configured peer",
        ])
    }

    @Test func sha256Vectors() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Lengths around the padding boundary (55, 56, 64 bytes) against values from sha256sum.
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 55)) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 56)) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 64)) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }
}
