import Testing
import Vocabulary
import YAMLCoding

struct Peer: Decodable, Equatable {
    var address: String
    var name: String
}

struct Device: Decodable {
    var port: String?
    var baud: Int?
    var channel: UInt8?
    var peers: [Peer]
}

struct Root: Decodable {
    var device: Device
    var enabled: Bool?
    var ratio: Double?
}

/// Nested structs, lists, optionals, dictionaries, aliases and the Decoder API details.
@Suite struct StructureTests {
    @Test func nestedStructsAndArrays() throws {
        let root = try decode(Root.self, """
            device:
              port: /dev/ttyACM0
              baud: 115200
              peers:
                - address: 0x0001
                  name: tool-cart
                - {address: 0x0002, name: phone-anna}
            enabled: true
            """)
        #expect(root.device.port == "/dev/ttyACM0")
        #expect(root.device.baud == 115200)
        #expect(root.device.channel == nil)
        #expect(root.device.peers == [Peer(address: "0x0001", name: "tool-cart"), Peer(address: "0x0002", name: "phone-anna")])
        #expect(root.enabled == true)
        #expect(root.ratio == nil)
    }

    @Test func optionalsMissingOrNull() throws {
        let root = try decode(Root.self, "device: {peers: [], port: null, baud: ~, channel: }\nratio:\n")
        #expect(root.device.port == nil && root.device.baud == nil && root.device.channel == nil && root.ratio == nil)
    }

    @Test func listsOfScalarsAndNestedLists() throws {
        #expect(try decode([Int].self, "[1, 0x2, 0o3]") == [1, 2, 3])
        #expect(try decode([[String]].self, "- [a, b]\n- []\n- [c]\n") == [["a", "b"], [], ["c"]])
        #expect(try decode([Int?].self, "[1, null, 3]") == [1, nil, 3])
        #expect(try decode([String].self, "[]") == [])
    }

    @Test func dictionariesReadEveryKey() throws {
        let scores = try decode([String: Int].self, "tool-cart: 42\nphone-anna: 7\n")
        #expect(scores == ["tool-cart": 42, "phone-anna": 7])
        let nested = try decode([String: Peer].self, "a: {address: 0x1, name: x}\n")
        #expect(nested["a"] == Peer(address: "0x1", name: "x"))
        #expect(try decode([Int: String].self, "1: one\n2: two\n") == [1: "one", 2: "two"])
        // Values of a dictionary are still checked for unknown keys.
        #expect(failure([String: Peer].self, "a: {address: 0x1, name: x, extra: 1}\n")
                == "t.yaml:1:28: unknown key \"extra\" (expected one of: address, name)")
    }

    @Test func allKeysKeepFileOrder() throws {
        struct Ordered: Decodable {
            var keys: [String]
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                keys = c.allKeys.map(\.stringValue)
                for key in c.allKeys { _ = try c.decode(String.self, forKey: key) }
            }
        }
        #expect(try decode(Ordered.self, "zeta: 1\nalpha: 2\nmid: 3\n").keys == ["zeta", "alpha", "mid"])
    }

    @Test func anchorsAndAliases() throws {
        struct Doc: Decodable {
            var defaults: Peer
            var peers: [Peer]
            var names: [String]
        }
        let doc = try decode(Doc.self, """
            defaults: &cart {address: 0x0001, name: cart}
            peers: [*cart, *cart, {address: 0x0002, name: &n anna}]
            names: [*n, *n]
            """)
        #expect(doc.peers == [doc.defaults, doc.defaults, Peer(address: "0x0002", name: "anna")])
        #expect(doc.names == ["anna", "anna"])
    }

    @Test func aliasBombIsRejected() {
        let bomb = """
            a: &a [x, x, x, x, x, x, x, x, x, x]
            b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
            c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
            d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
            e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
            f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
            g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
            h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
            i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
            """
        #expect(failure(AnyYAML.self, bomb)
                == "t.yaml:5:36: aliases expand to more than 100000 values; refusing to expand further (an alias bomb?)")
        var small = YAMLDecoder()
        small.maxAliasExpansion = 20
        #expect(throws: SourceError.self) { try small.decode(AnyYAML.self, from: bomb, file: "t.yaml") }
    }

    @Test func superDecoderAndCodingPath() throws {
        final class Recorder: Decodable {
            var paths: [String] = []
            required init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                let inner = try c.superDecoder(forKey: AnyKey(stringValue: "inner"))
                paths.append(inner.codingPath.map(\.stringValue).joined(separator: "."))
                let list = try inner.container(keyedBy: AnyKey.self)
                var items = try list.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "items"))
                let item = try items.superDecoder()
                paths.append(item.codingPath.map(\.stringValue).joined(separator: "."))
                _ = try item.singleValueContainer().decode(Int.self)
                let base = try c.superDecoder()
                #expect(try base.singleValueContainer().decode(String.self) == "parent")
            }
        }
        let r = try decode([Recorder].self, "- inner: {items: [5]}\n  super: parent\n")
        #expect(r[0].paths == ["0.inner", "0.inner.items.0"])
    }

    @Test func superDecoderForAbsentKeyIsNull() throws {
        struct Wrapper: Decodable {
            var value: Int?
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                value = try Int?(from: c.superDecoder(forKey: AnyKey(stringValue: "absent")))
            }
        }
        #expect(try decode(Wrapper.self, "{}").value == nil)
    }

    @Test func locatedRecordsMarks() throws {
        struct Zone: Decodable {
            var enterWithin: Located<Double>
            var exitBeyond: Located<Double>
            var dwell: Located<String>?
            enum CodingKeys: String, CodingKey {
                case enterWithin = "enter_within", exitBeyond = "exit_beyond", dwell
            }
        }
        let zone = try decode(Zone.self, "enter_within: 1.3\nexit_beyond:   1.0\n")
        #expect(zone.enterWithin == Located(1.3, at: SourceMark(file: "t.yaml", line: 1, column: 15)))
        #expect(zone.exitBeyond.mark.description == "t.yaml:2:16")
        #expect(zone.dwell == nil)
        // A validator's own error reads like the decoder's.
        let error = SourceError(at: zone.exitBeyond.mark, "exit_beyond (1.0) must be larger than enter_within (1.3)")
        #expect(error.description == "t.yaml:2:16: exit_beyond (1.0) must be larger than enter_within (1.3)")
        #expect(failure(Zone.self, "enter_within: near\nexit_beyond: 1\n") == "t.yaml:1:15: expected a number, found \"near\"")
    }

    @Test func validationInsideInitIsLocated() {
        struct Band: Decodable {
            var beyond: Double
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                beyond = try c.decode(Double.self, forKey: AnyKey(stringValue: "beyond"))
                if beyond < 0, let mark = SourceLocating.mark(of: decoder) {
                    throw SourceError(at: mark, "beyond must not be negative")
                }
                if beyond > 100 {
                    throw DecodingError.dataCorruptedError(forKey: AnyKey(stringValue: "beyond"), in: c,
                                                           debugDescription: "beyond is more than 100 metres")
                }
            }
        }
        #expect(failure([Band].self, "- beyond: 1\n- beyond: -2\n") == "t.yaml:2:3: beyond must not be negative")
        #expect(failure([Band].self, "- beyond: 1\n- beyond: 200\n") == "t.yaml:2:11: beyond is more than 100 metres")
    }

    @Test func nodeOfDecoderGivesTheSubtree() throws {
        struct Keys: Decodable {
            var marks: [String]
            init(from decoder: any Decoder) throws {
                guard case .mapping(let entries)? = YAMLDecoder.node(of: decoder)?.content else { marks = []; return }
                marks = entries.map { "\($0.key)@\($0.keyMark.line):\($0.keyMark.column)" }
                let c = try decoder.container(keyedBy: AnyKey.self)
                for key in c.allKeys { _ = try c.decode(Int.self, forKey: key) }
            }
        }
        #expect(try decode(Keys.self, "a: 1\n  # comment\nbb:  2\n").marks == ["a@1:1", "bb@3:1"])
    }

    @Test func documentTreeKeepsStylesTagsAndMarks() throws {
        let doc = try YAMLDocument(text: "---\nplain: x\nquoted: 'y'\ntagged: !!str 5\nlist:\n  - 1\n", file: "d.yaml")
        #expect(!doc.isEmpty)
        guard case .mapping(let entries) = doc.root.content else { Issue.record("not a mapping"); return }
        #expect(entries.map(\.key) == ["plain", "quoted", "tagged", "list"])
        #expect(entries[0].value.scalar == YAMLScalar(text: "x", style: .plain))
        #expect(entries[1].value.scalar?.style == .singleQuoted)
        #expect(entries[2].value.tag == "tag:yaml.org,2002:str")
        #expect(entries[3].value.mark.description == "d.yaml:6:3")
        #expect(doc.root.mark.description == "d.yaml:2:1")
        #expect(try YAMLDocument(text: "# only a comment\n", file: "e.yaml").isEmpty)
        #expect(try YAMLDocument(text: "", file: "e.yaml").root.isNull)
    }

    @Test func singleDocumentWithMarkersIsFine() throws {
        #expect(try decode(Box<Int>.self, "%YAML 1.2\n---\nv: 1\n...\n").v == 1)
    }

    @Test func enumsListTheirChoices() {
        enum Kind: String, Decodable, CaseIterable { case kalman, oneEuro = "one_euro", none }
        #expect(failure(Box<Kind>.self, "v: kalmann\n") == "t.yaml:1:4: invalid value \"kalmann\" (expected one of: kalman, one_euro, none)")
        #expect(failure([Kind].self, "[kalman, \"none\", median]") == "t.yaml:1:18: invalid value \"median\" (expected one of: kalman, one_euro, none)")
    }
}
