import Vocabulary
import Testing
import Gateway
import UCI

/// Every MQTT payload's bytes come from the byte renderer. Subscribers (and the spec's examples)
/// saw the String renderer's output until now, so the bytes must not change by a single one.
@Suite struct JSONRenderingTests {
    /// The String renderer as it was before the byte renderer replaced it, kept verbatim as the reference.
    enum StringRenderer {
        static func json(_ fields: [JSONMember]) -> String {
            var out = ""
            appendObject(fields, to: &out)
            return out
        }

        static func appendObject(_ fields: [JSONMember], to out: inout String) {
            out += "{"
            for (index, field) in fields.enumerated() {
                if index > 0 { out += ", " }
                appendString(field.key, to: &out)
                out += ": "
                append(field.value, to: &out)
            }
            out += "}"
        }

        static func append(_ value: JSONValue, to out: inout String) {
            switch value {
            case let .int(v): out += String(v)
            case let .double(v): out += v.isFinite ? String(v) : "null"
            case let .string(s): appendString(s, to: &out)
            case let .bool(b): out += b ? "true" : "false"
            case .null: out += "null"
            case let .list(items):
                out += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { out += ", " }
                    append(item, to: &out)
                }
                out += "]"
            case let .object(fields): appendObject(fields, to: &out)
            }
        }

        static func appendString(_ s: String, to out: inout String) {
            out += "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            out += "\""
        }
    }

    /// Strings that take every branch of the escaping: each control character, quotes, backslashes,
    /// DEL (not escaped), multi-byte UTF-8 of 2, 3 and 4 bytes, a combining sequence and `\r\n`
    /// (one Character, two scalars).
    static let trickyStrings: [String] = [
        "", "plain", "tool-cart", "quote \" inside", "back\\slash", "\\\"", "line\nbreak", "cr\rlf\r\n", "tab\there",
        String((0..<0x20).map { Character(Unicode.Scalar($0)!) }), "del \u{7F} stays", "ünïcödé", "€ 3 bytes", "🚀 4 bytes",
        "e\u{301} combining", "mixed \u{1} é \" 🙂 \\ \u{1F}", "\u{0}", "/slash/ is not escaped", "0x00AB",
    ]

    static let trickyDoubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 1.0 / 3, 1.5, -45.25, 1e-5, 1e-7, 123_456_789.125, 1e16, 1e21, -1e300,
        Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.greatestFiniteMagnitude, Double.ulpOfOne,
        .nan, -.nan, .infinity, -.infinity, .signalingNaN, 2.675, 0.3, 100.3 - 100.0,
    ]

    static let trickyInts: [Int64] = [0, 1, -1, 9, 10, -10, 42, 1_000_000, Int64(Int32.max) + 1, Int64.max, Int64.min, Int64.min + 1]

    @Test func fixedPayloadsRenderTheDocumentedBytes() {
        let fields = [
            JSONMember("ts", .string("2026-11-29T18:30:00.123Z")), JSONMember("peer", .string("phone \"anna\"")),
            JSONMember("n", .int(-42)), JSONMember("big", .int(Int64.min)), JSONMember("zero", .double(-0.0)), JSONMember("d", .double(1e-5)),
            JSONMember("nan", .double(.nan)), JSONMember("inf", .double(-.infinity)), JSONMember("ok", .bool(true)), JSONMember("no", .bool(false)),
            JSONMember("none", .null), JSONMember("list", .list([.int(1), .double(2.5), .string("\u{1}\t"), .list([]), .object([])])),
            JSONMember("obj", .object([JSONMember("ü", .string("🚀\\"))])),
        ]
        let expected = #"{"ts": "2026-11-29T18:30:00.123Z", "peer": "phone \"anna\"", "n": -42, "big": -9223372036854775808, "zero": -0.0, "d": 1e-05, "nan": null, "inf": null, "ok": true, "no": false, "none": null, "list": [1, 2.5, "\u0001\t", [], {}], "obj": {"ü": "🚀\\"}}"#
        #expect(FieldRendering.json(fields) == expected)
        #expect(FieldRendering.jsonBytes(fields) == Array(expected.utf8))
        #expect(Payloads.render(fields) == Array(expected.utf8))
        #expect(FieldRendering.json(.list([.string("a\nb"), .null])) == #"["a\nb", null]"#)
        #expect(Payloads.render([]) == Array("{}".utf8))
    }

    @Test func stringsMatchTheStringRenderer() {
        for text in Self.trickyStrings {
            let fields = [JSONMember(text, .string(text)), JSONMember("k", .list([.string(text), .object([JSONMember(text, .null)])]))]
            #expect(FieldRendering.jsonBytes(fields) == Array(StringRenderer.json(fields).utf8), "\(text.debugDescription)")
        }
        // Every scalar below U+0100 (all of Latin-1, every control character) and a sample above it.
        let scalars = (0..<0x100).map { Unicode.Scalar(UInt8($0)) } + [0x2028, 0xFFFD, 0xFEFF, 0x10FFFF].compactMap(Unicode.Scalar.init(_:))
        for scalar in scalars {
            let text = "a" + String(Character(scalar)) + "z"
            let fields = [JSONMember("s", .string(text))]
            #expect(FieldRendering.json(fields) == StringRenderer.json(fields), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func numbersMatchTheStringRenderer() {
        var values: [JSONValue] = Self.trickyDoubles.map(JSONValue.double) + Self.trickyInts.map(JSONValue.int)
        // A deterministic sweep over magnitudes and fractions, like distances, angles and RSSI.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let bits = state >> 11
            values.append(.double(Double(bitPattern: state)))
            values.append(.double(Double(Int64(bitPattern: state) >> 40) / 1000))
            values.append(.int(Int64(bitPattern: state) >> (bits % 63)))
            // Whole numbers of 10^-n, the common case written without the general algorithm
            // (n ≤ 4, below 10^9) and just outside it.
            let scale = [1.0, 10, 100, 1_000, 10_000, 100_000, 1_000_000][Int(bits % 7)]
            values.append(.double(Double(Int64(bitPattern: state) >> 30) / scale))
            values.append(.double(Double(Int64(bitPattern: state) >> 50) / scale))
        }
        values += [0.0001, -0.0001, 0.00005, 999_999_999.9999, 1e9, 123_456_789.1234, 4_503_599_627_370_496].map(JSONValue.double)
        for value in values {
            let fields = [JSONMember("v", value)]
            #expect(FieldRendering.jsonBytes(fields) == Array(StringRenderer.json(fields).utf8), "\(value)")
        }
    }

    @Test func nestedStructuresMatchTheStringRenderer() {
        let leaf: [JSONValue] = [.null, .bool(true), .int(-7), .double(-0.0), .double(.nan), .string("x\"y")]
        var value = JSONValue.list(leaf)
        for depth in 0..<6 {
            value = depth.isMultiple(of: 2) ? .object([JSONMember("level\(depth)", value), JSONMember("e", .list([]))]) : .list([value] + leaf)
        }
        let fields = [JSONMember("root", value), JSONMember("empty", .object([]))]
        #expect(FieldRendering.jsonBytes(fields) == Array(StringRenderer.json(fields).utf8))
        #expect(FieldRendering.json(value) == {
            var out = ""
            StringRenderer.append(value, to: &out)
            return out
        }())
    }
}
