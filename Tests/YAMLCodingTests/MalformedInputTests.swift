import Testing
import TestSupport
import Vocabulary
import YAMLCoding

/// Broken files and the exact line a user sees for each: `file:line:column: message`.
@Suite struct MalformedInputTests {
    /// Syntax and structure: what libyaml rejects, and what this module rejects before decoding.
    @Test(arguments: [
        // Tabs and indentation.
        ("a: 1\n\tb: 2\n",
         "t.yaml:2:1: tab characters cannot be used for indentation, use spaces (found a tab character that violates indentation while scanning a plain scalar started at line 1 column 4)"),
        ("a:\n\t- 1\n",
         "t.yaml:2:1: tab characters cannot be used for indentation, use spaces (found character that cannot start any token while scanning for the next token)"),
        ("a: 1\n b: 2\n", "t.yaml:2:3: mapping values are not allowed in this context"),
        ("a:\n  b: 1\n c: 2\n", "t.yaml:3:2: did not find expected key while parsing a block mapping started at line 1 column 1"),
        ("a:\n  - 1\n  b: 2\n",
         "t.yaml:3:3: did not find expected '-' indicator while parsing a block collection started at line 2 column 3"),
        ("- a\nb: 1\n", "t.yaml:2:1: did not find expected '-' indicator while parsing a block collection started at line 1 column 1"),
        ("key: value\n- item\n", "t.yaml:2:1: did not find expected key while parsing a block mapping started at line 1 column 1"),
        ("a: |\n  x\n b\n", "t.yaml:3:2: did not find expected key while parsing a block mapping started at line 1 column 1"),
        // Unclosed brackets and quotes.
        ("a: [1, 2\n", "t.yaml:2:1: did not find expected ',' or ']' while parsing a flow sequence started at line 1 column 4"),
        ("a: {b: 1\n", "t.yaml:2:1: did not find expected ',' or '}' while parsing a flow mapping started at line 1 column 4"),
        ("a: \"unterminated\n", "t.yaml:2:1: found unexpected end of stream while scanning a quoted scalar started at line 1 column 4"),
        ("a: 'x\n", "t.yaml:2:1: found unexpected end of stream while scanning a quoted scalar started at line 1 column 4"),
        ("[1, 2]]\n", "t.yaml:1:7: did not find expected <document start>"),
        // Characters and escapes.
        ("a: b: c\n", "t.yaml:1:5: mapping values are not allowed in this context"),
        ("a: @foo\n", "t.yaml:1:4: found character that cannot start any token while scanning for the next token"),
        ("a: `x\n", "t.yaml:1:4: found character that cannot start any token while scanning for the next token"),
        ("a: \"\\q\"\n", "t.yaml:1:5: found unknown escape character while parsing a quoted scalar started at line 1 column 4"),
        ("%YAML 2.0\n---\na: 1\n", "t.yaml:1:1: found incompatible YAML document"),
        // Documents.
        ("a: 1\n---\nb: 2\n", "t.yaml:2:1: a second document starts here; the file must hold exactly one document"),
        ("---\na: 1\n---\n", "t.yaml:3:1: a second document starts here; the file must hold exactly one document"),
        ("a: 1\n...\nb: 2\n", "t.yaml:3:1: did not find expected <document start>"),
        // Aliases, keys.
        ("a: *nothere\n", "t.yaml:1:4: alias *nothere has no anchor &nothere before it"),
        ("a: &x [1, *x]\n", "t.yaml:1:11: alias *x refers to the list or mapping that contains it; recursive aliases are not supported"),
        ("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key \"a\" (first used at line 1)"),
        ("? [1, 2]\n: x\n", "t.yaml:1:3: a list cannot be used as a key; keys must be text"),
        ("{? {a: 1} : x}\n", "t.yaml:1:4: a mapping cannot be used as a key; keys must be text"),
        ("k: &m {a: 1}\n*m : 2\n", "t.yaml:2:1: a list or mapping cannot be used as a key; keys must be text"),
    ])
    func syntaxAndStructure(yaml: String, message: String) {
        #expect(failure(AnyYAML.self, yaml) == message)
    }

    @Test func invalidUTF8() {
        do {
            _ = try YAMLDecoder().decode(AnyYAML.self, from: Array("a: 1\nb: ".utf8) + [0xFF, 0x0A], file: "t.yaml")
            Issue.record("decoded invalid UTF-8")
        } catch let error as SourceError {
            #expect(error.description == "t.yaml:2:4: the file is not valid text: invalid leading UTF-8 octet")
            #expect(error.kind == .syntax)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// Wrong types, missing and unknown keys, at the node a user must fix.
    @Test(arguments: [
        ("device:\n  peers: []\nenabled: yes\n", "t.yaml:3:10: expected true or false, found \"yes\""),
        ("device:\n  baud: abc\n  peers: []\n", "t.yaml:2:9: expected a whole number, found \"abc\""),
        ("device:\n  baud: \"5\"\n  peers: []\n",
         "t.yaml:2:9: expected a whole number, found the quoted text \"5\" (quoted values are always text; remove the quotes)"),
        ("device:\n  baud: 1.5\n  peers: []\n", "t.yaml:2:9: expected a whole number, found \"1.5\""),
        ("device: {channel: 300, peers: []}\n", "t.yaml:1:19: expected a whole number from 0 to 255, found \"300\""),
        ("device: {channel: -1, peers: []}\n", "t.yaml:1:19: expected a whole number from 0 to 255, found \"-1\""),
        ("device: {peers: []}\nratio: abc\n", "t.yaml:2:8: expected a number, found \"abc\""),
        ("device: {peers: []}\nratio: 1e999\n", "t.yaml:2:8: the number \"1e999\" is too large"),
        ("device: {peers: []}\nratio: [1]\n", "t.yaml:2:8: expected a number, found a list"),
        ("device:\n  port: auto\n", "t.yaml:2:3: missing key \"peers\""),
        ("device:\n  peers:\n    - address: 0x0001\n", "t.yaml:3:7: missing key \"name\""),
        ("enabled: true\n", "t.yaml:1:1: missing key \"device\""),
        ("device:\n  peers: {a: 1}\n", "t.yaml:2:10: expected a list, found a mapping"),
        ("device:\n  peers: [x]\n", "t.yaml:2:11: expected a mapping (key: value pairs), found \"x\""),
        ("device:\nenabled: true\n", "t.yaml:1:8: expected a mapping (key: value pairs), found nothing"),
        ("device: null\n", "t.yaml:1:9: expected a mapping (key: value pairs), found null"),
        ("device: |\n  text\n", "t.yaml:1:9: expected a mapping (key: value pairs), found a block of text"),
        ("- 1\n", "t.yaml:1:1: expected a mapping (key: value pairs), found a list"),
        ("device: {peers: [{address: 0x1, name: null}]}\n", "t.yaml:1:39: expected text, found null"),
        ("device: {peers: [{address: [1], name: a}]}\n", "t.yaml:1:28: expected text, found a list"),
        ("", "t.yaml:1:1: expected a mapping (key: value pairs), found an empty file"),
        ("# nothing here yet\n", "t.yaml:1:1: expected a mapping (key: value pairs), found an empty file"),
        // Unknown keys: at the key, with what the mapping takes.
        ("device: {peers: []}\ndevic: 1\n", "t.yaml:2:1: unknown key \"devic\" (expected one of: device, enabled, ratio)"),
        ("device:\n  peers: []\n  prot: auto\n", "t.yaml:3:3: unknown key \"prot\" (expected one of: baud, channel, peers, port)"),
        ("device:\n  peers:\n    - {address: 0x0001, name: a}\n    - {address: 0x0002, name: b, colour: red}\n",
         "t.yaml:4:34: unknown key \"colour\" (expected one of: address, name)"),
        ("device:\n  peers:\n    - address: 0x0001\n      nmae: x\n      name: y\n",
         "t.yaml:4:7: unknown key \"nmae\" (expected one of: address, name)"),
        ("z: 1\ndevice:\n  peers: []\n  a: 2\n", "t.yaml:1:1: unknown key \"z\" (expected one of: device, enabled, ratio)"),
        ("base: &p {address: 0x1, name: a, extra: 1}\ndevice: {peers: [*p]}\n",
         "t.yaml:1:1: unknown key \"base\" (expected one of: device, enabled, ratio)"),
        // What the file holds is quoted as a short excerpt, escaped; a top level that is text
        // (a key or a password file given by mistake) is named and not quoted at all.
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n",
         "t.yaml:1:1: expected a mapping (key: value pairs) at the top of the file, found text (not quoted: this may not be the file meant)"),
        ("s3cr3t-Passw0rd!\n", "t.yaml:1:1: expected a mapping (key: value pairs) at the top of the file, found text (not quoted: this may not be the file meant)"),
        ("\"s3cr3t\"\n", "t.yaml:1:1: expected a mapping (key: value pairs) at the top of the file, found text (not quoted: this may not be the file meant)"),
        ("|\n  s3cr3t\n", "t.yaml:1:1: expected a mapping (key: value pairs) at the top of the file, found a block of text (not quoted: this may not be the file meant)"),
        ("device: {peers: []}\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU: 1\n",
         "t.yaml:2:1: unknown key \"b3BlbnNzaC1rZXktdjEA…\" (expected one of: device, enabled, ratio)"),
        ("device:\n  baud: b3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n  peers: []\n", "t.yaml:2:9: expected a whole number, found \"b3BlbnNzaC1rZXktdjEA…\""),
        ("device:\n  baud: \"a\\u0007\\u202Eb\\r\"\n  peers: []\n", "t.yaml:2:9: expected a whole number, found the quoted text \"a\\u{7}\\u{202e}b\\r\""),
        ("a: 1\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU: 2\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU: 3\n",
         "t.yaml:3:1: duplicate key \"b3BlbnNzaC1rZXktdjEA…\" (first used at line 2)"),
    ])
    func decodingErrors(yaml: String, message: String) {
        #expect(failure(Root.self, yaml) == message)
    }

    /// A key read through an alias is checked at the anchored mapping, where the user wrote it.
    @Test func unknownKeyThroughAlias() {
        #expect(failure(Root.self, "device:\n  peers:\n  - &p {address: 0x1, name: a, extra: 1}\n  - *p\n")
                == "t.yaml:3:32: unknown key \"extra\" (expected one of: address, name)")
    }

    @Test func shortList() {
        struct Pair: Decodable {
            var a: Int, b: Int
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                a = try list.decode(Int.self)
                b = try list.decode(Int.self)
            }
        }
        #expect(failure(Box<Pair>.self, "v: [1]\n") == "t.yaml:1:4: expected at least 2 items in this list, found 1")
    }

    @Test func errorKinds() throws {
        func kind(_ yaml: String) -> SourceError.Kind? {
            do { _ = try decode(Root.self, yaml); return nil } catch { return (error as? SourceError)?.kind }
        }
        #expect(kind("a: [") == .syntax)
        #expect(kind("a: 1\n---\n") == .structure)
        #expect(kind("device: {peers: 1}") == .typeMismatch)
        #expect(kind("device: {}") == .missingKey)
        #expect(kind("device: {peers: []}\nx: 1") == .unknownKey)
    }
}

/// Inputs built to exhaust time or stack stop with an error.
@Suite struct HostileInputTests {
    @Test func deepNestingIsRejected() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(failure(AnyYAML.self, deep) == "t.yaml:1:201: lists and mappings are nested more than 200 levels deep")
        let fine = String(repeating: "[", count: 150) + String(repeating: "]", count: 150)
        #expect(failure(AnyYAML.self, fine) == "<decoded without error>")
    }

    @Test func deepNestingThroughAliasesIsRejected() {
        let level = String(repeating: "[", count: 150) + "x" + String(repeating: "]", count: 150)
        let yaml = "a: &a \(level)\nb: [[*a]]\nc: " + String(repeating: "[", count: 60) + "*a" + String(repeating: "]", count: 60) + "\n"
        #expect(failure(AnyYAML.self, yaml) == "t.yaml:3:64: lists and mappings are nested more than 200 levels deep")
    }

    /// 20 000 keys: took seconds while the parser copied the open mapping on every key; now well under one.
    @Test func largeDictionary() throws {
        let yaml = (0..<20_000).map { "k\($0): \($0)" }.joined(separator: "\n")
        let dict = try decode([String: Int].self, yaml)
        #expect(dict.count == 20_000 && dict["k19999"] == 19_999)
    }
}

/// Mutated copies of the spec's config: each must decode or fail with a ``SourceError``, never trap.
@Test func mutatedConfigsNeverTrap() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(n))
    }
    let original = Array(SpecExample.config.utf8)
    let alphabet = Array(" \t\n:-[]{},&*!|>'\"#?%@`0x\u{FF}".utf8)
    for _ in 0..<2_000 {
        var bytes = original
        for _ in 0..<(1 + random(4)) {
            let i = random(bytes.count)
            switch random(3) {
            case 0: bytes[i] = alphabet[random(alphabet.count)]
            case 1: bytes.remove(at: i)
            default: bytes.insert(alphabet[random(alphabet.count)], at: i)
            }
        }
        do {
            _ = try YAMLDecoder().decode(ConfigFileTests.Config.self, from: bytes, file: "m.yaml")
        } catch let error as SourceError {
            #expect(error.mark.line >= 1 && error.mark.column >= 1, "\(error)")
        } catch {
            Issue.record("not a SourceError: \(error)")
        }
    }
}
