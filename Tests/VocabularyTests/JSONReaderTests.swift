import Foundation
import Testing
import Vocabulary

/// The JSON reader: what `JSONBytes` writes reads back as the same value, members in order, and
/// it accepts and refuses the same texts as Foundation's `JSONSerialization` (the reference it
/// replaces on the agent's request path).
@Suite struct JSONReaderTests {
    @Test func readsEachKindWithMembersInOrder() throws {
        let text = #" {"id": "a\"b\u00e9\ud83d\ude00", "n": -12, "x": 1.5e2, "ok": true, "no": false, "z": null, "l": [1, [], {}], "0": 0} "#
        #expect(try JSONReader.value(Array(text.utf8)) == .object([
            JSONMember("id", .string("a\"bé😀")), JSONMember("n", .int(-12)), JSONMember("x", .double(150)),
            JSONMember("ok", .bool(true)), JSONMember("no", .bool(false)), JSONMember("z", .null),
            JSONMember("l", .list([.int(1), .list([]), .object([])])), JSONMember("0", .int(0)),
        ]))
        #expect(try JSONReader.value(Array("9223372036854775808".utf8)) == .double(9223372036854775808))
        #expect(try JSONReader.value(Array("-9223372036854775808".utf8)) == .int(.min))
    }

    @Test(arguments: [("", 0), ("{", 1), (#"{"a" 1}"#, 5), ("[1,]", 3), ("01", 1), ("1.", 2), ("-", 1), ("tru", 0),
                      (#""a\x""#, 3), (#""\ud800""#, 7), ("\"\u{01}\"", 1), ("{} {}", 3), (#"{'a': 1}"#, 1), ("1e400", 0)])
    func refusesWithTheOffset(text: String, offset: Int) {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.value(Array(text.utf8)) }
        do { _ = try JSONReader.value(Array(text.utf8)) } catch { #expect(error.offset == offset, "\(error)") }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.value([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONReader.Failure.self) { try JSONReader.value(Array(deep.utf8)) }
        let allowed = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        #expect(try JSONReader.value(Array(allowed.utf8)) != .null)
    }

    @Test func whatJSONBytesWritesReadsBackTheSame() throws {
        var generator = SplitMix(seed: 20261202)
        for _ in 0..<2_000 {
            let value = Self.randomValue(&generator, depth: 0)
            var writer = JSONBytes(capacity: 64)
            writer.append(value)
            let bytes = writer.takeBytes()
            #expect(try JSONReader.value(bytes) == value, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Texts made by mutating valid ones byte by byte: the reader accepts exactly those that
    /// `JSONSerialization` accepts, but for a trailing comma (`[1,]`), which Foundation allows
    /// and RFC 8259 does not.
    @Test func acceptsWhatFoundationAccepts() {
        let seeds = [#"{"id": "x-1", "peer": "anna", "n": [1, 2.5, -3e2], "ok": true, "v": null}"#,
                     #"["a\n", {"b": {"c": []}}, 0, -0.0, 12345678901234567890]"#, #""\u0041\\\/""#]
        let alphabet = Array(#"{}[]:,"\ 0123456789.eE+-truefalsn\/u"#.utf8)
        var generator = SplitMix(seed: 7)
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            var bytes = Array(seeds[Int(generator.next() % UInt64(seeds.count))].utf8)
            for _ in 0...(generator.next() % 3) {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: at)
                }
                if bytes.isEmpty { bytes = [0x30] }
            }
            let ours = (try? JSONReader.value(bytes)) != nil
            let foundation = (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil
            if foundation, !ours, Self.hasTrailingComma(bytes) { continue }
            if ours != foundation { disagreements.append("\(foundation ? "refused" : "accepted"): \(String(decoding: bytes, as: UTF8.self))") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        let significant = bytes.filter { $0 != 0x20 }
        return zip(significant, significant.dropFirst()).contains { $0 == UInt8(ascii: ",") && ($1 == UInt8(ascii: "]") || $1 == UInt8(ascii: "}")) }
    }

    static func randomValue(_ generator: inout SplitMix, depth: Int) -> JSONValue {
        switch generator.next() % (depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(generator.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: generator.next()) >> (generator.next() % 64))
        case 3:
            let double = Double(bitPattern: generator.next())
            return .double(double.isFinite ? double : 0.5)
        case 4:
            let scalars = (0..<(generator.next() % 8)).compactMap { _ in
                Unicode.Scalar(UInt32(generator.next() % (generator.next() % 2 == 0 ? 0x80 : 0x11_0000)))
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5: return .list((0..<(generator.next() % 4)).map { _ in randomValue(&generator, depth: depth + 1) })
        default:
            return .object((0..<(generator.next() % 4)).map { index in
                JSONMember("k\(index)", randomValue(&generator, depth: depth + 1))
            })
        }
    }
}

/// A small seeded generator, so that a failure can be run again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
