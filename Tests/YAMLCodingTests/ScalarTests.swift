import Foundation
import Testing
import YAMLCoding

/// Plain scalars follow the YAML 1.2 core schema; quoted ones are always text.
@Suite struct ScalarTests {
    @Test(arguments: [
        ("42", 42), ("-7", -7), ("+7", 7), ("0", 0), ("007", 7),
        ("0x10", 16), ("0x0001", 1), ("0xFFff", 65535), ("0o17", 15), ("-0x10", -16),
        ("!!int \"12\"", 12),
    ])
    func integers(text: String, value: Int) throws {
        #expect(try decode(Int.self, text) == value)
    }

    @Test func integerWidths() throws {
        #expect(try decode(Int8.self, "-128") == -128)
        #expect(try decode(UInt8.self, "0xff") == 255)
        #expect(try decode(Int16.self, "-32768") == .min)
        #expect(try decode(UInt16.self, "0xFFFF") == .max)
        #expect(try decode(Int32.self, "2147483647") == .max)
        #expect(try decode(UInt32.self, "4294967295") == .max)
        #expect(try decode(Int64.self, "-9223372036854775808") == .min)
        #expect(try decode(UInt64.self, "18446744073709551615") == .max)
        #expect(try decode(UInt.self, "0o777") == 511)
        #expect(try decode(Int128.self, "-170141183460469231731687303715884105728") == .min)
        #expect(try decode([UInt128].self, "[0xffffffffffffffffffffffffffffffff]") == [.max])
        #expect(try decode(Box<Int128>.self, "v: 12").v == 12)
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-2.25", -2.25), (".5", 0.5), ("5.", 5), ("1e3", 1000), ("1.5E-2", 0.015),
        ("+12", 12), ("0x10", 16), ("7", 7), (".inf", .infinity), ("-.Inf", -.infinity), ("+.INF", .infinity),
    ])
    func doubles(text: String, value: Double) throws {
        #expect(try decode(Double.self, text) == value)
    }

    @Test func notANumber() throws {
        #expect(try decode(Double.self, ".nan").isNaN)
        #expect(try decode(Double.self, ".NaN").isNaN)
        #expect(try decode(Float.self, "0.25") == 0.25)
        #expect(try decode(Decimal.self, "12.34") == Decimal(string: "12.34"))
        #expect(try decode(Decimal.self, "0x10") == 16)
    }

    @Test(arguments: [
        ("true", true), ("True", true), ("TRUE", true), ("false", false), ("False", false), ("FALSE", false),
    ])
    func booleans(text: String, value: Bool) throws {
        #expect(try decode(Bool.self, text) == value)
    }

    /// YAML 1.1 booleans are text under the core schema: no "Norway problem".
    @Test(arguments: ["yes", "no", "on", "off", "y", "n", "NO"])
    func yaml11BooleansAreText(text: String) throws {
        #expect(try decode(String.self, text) == text)
        #expect(failure(Bool.self, text) == "t.yaml:1:1: expected true or false, found \"\(text)\"")
    }

    @Test(arguments: ["null", "Null", "NULL", "~", ""])
    func nulls(text: String) throws {
        #expect(try decode(Int?.self, text) == nil)
        #expect(try decode(Box<String?>.self, "v: \(text)\n").v == nil)
    }

    /// A `String` can be read from any non-null scalar, as written: addresses like `0x0001` stay text.
    @Test(arguments: [
        ("0x0001", "0x0001"), ("42", "42"), ("1.50", "1.50"), ("true", "true"), ("tool-cart", "tool-cart"),
        ("\"quoted\"", "quoted"), ("'it''s'", "it's"), ("\"tab\\there\"", "tab\there"), ("\"\"", ""),
        ("'null'", "null"), ("\"~\"", "~"), ("!!str 12", "12"), ("|\n  line one\n  line two\n", "line one\nline two\n"),
        (">\n  folded\n  text\n", "folded text\n"), ("héllo wörld", "héllo wörld"),
    ])
    func strings(text: String, value: String) throws {
        #expect(try decode(String.self, text) == value)
    }

    /// Quoting makes a value text, whatever it looks like.
    @Test(arguments: [
        ("Int", "\"5\"", "t.yaml:1:1: expected a whole number, found the quoted text \"5\" (quoted values are always text; remove the quotes)"),
        ("Double", "'1.5'", "t.yaml:1:1: expected a number, found the quoted text \"1.5\" (quoted values are always text; remove the quotes)"),
        ("Bool", "\"true\"", "t.yaml:1:1: expected true or false, found the quoted text \"true\" (quoted values are always text; remove the quotes)"),
        ("Int", "\"abc\"", "t.yaml:1:1: expected a whole number, found the quoted text \"abc\""),
    ])
    func quotedIsText(type: String, text: String, message: String) {
        switch type {
        case "Int": #expect(failure(Int.self, text) == message)
        case "Double": #expect(failure(Double.self, text) == message)
        default: #expect(failure(Bool.self, text) == message)
        }
        #expect(failure(String?.self, text) == "<decoded without error>")
    }

    @Test func dataAndBytes() throws {
        let bytes = Array("v: 3\n".utf8)
        #expect(try YAMLDecoder().decode(Box<Int>.self, from: Data(bytes), file: "d.yaml").v == 3)
        #expect(try YAMLDecoder().decode(Box<Int>.self, from: bytes, file: "d.yaml").v == 3)
        // UTF-16 with a byte-order mark, which libyaml detects.
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "v: 4\n".utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try YAMLDecoder().decode(Box<Int>.self, from: utf16, file: "d.yaml").v == 4)
    }
}
