import Vocabulary
import UCI

/// One entry of a rule's `peers:` list: a peer name, an address (`0x0001`, or 16 hex digits for an
/// extended address) or a glob over names and addresses (`cart-*`, `phone-?`, `*`).
///
/// Only `*` (any run of characters) and `?` (one character) are glob syntax; `[`, `]`, `{`, `}` and
/// `\` are rejected rather than taken literally, so that a shell-style pattern never silently
/// matches nothing. Names match case-sensitively; addresses case-insensitively (`0x00ab` = `0x00AB`).
public struct PeerPattern: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case name(String)
        case address(MacAddress)
        case glob(String)
    }

    public var kind: Kind

    public init(_ kind: Kind) { self.kind = kind }

    /// `["*"]`: the default of every `peers:` key.
    public static let all: [PeerPattern] = [PeerPattern(.glob("*"))]

    public var description: String {
        switch kind {
        case .name(let n): n
        case .address(let a): a.description
        case .glob(let g): g
        }
    }

    /// Parses one pattern; the error message says what is wrong, without a location.
    public init(parsing text: String) throws(PatternError) {
        if text.isEmpty { throw PatternError("a peer pattern cannot be empty") }
        if text.unicodeScalars.count > RulesBounds.patternCharacters {
            throw PatternError("a peer pattern is at most \(RulesBounds.patternCharacters) characters, this one has \(text.unicodeScalars.count)")
        }
        let lower = text.lowercased()
        if lower.hasPrefix("0x"), !text.contains("*"), !text.contains("?") {
            let digits = lower.dropFirst(2)
            guard digits.allSatisfy(\.isHexDigit), digits.count == 4 || digits.count == 16,
                  let value = UInt64(digits, radix: 16) else {
                throw PatternError("invalid address \(Excerpt.quoted(text)): expected 0x and 4 hex digits (short) or 16 (extended)")
            }
            kind = .address(digits.count == 4 ? .short(UInt16(value)) : .extended(value))
            return
        }
        if let bad = text.first(where: { "[]{}\\".contains($0) }) {
            throw PatternError("invalid glob \(Excerpt.quoted(text)): \(Excerpt.quoted(String(bad))) is not supported (only * and ? are)")
        }
        kind = text.contains("*") || text.contains("?") ? .glob(text) : .name(text)
    }

    /// A pattern's problem, located by the caller.
    public struct PatternError: Error, Sendable, Equatable {
        public var message: String
        init(_ message: String) { self.message = message }
    }

    public func matches(_ peer: PeerIdentity) -> Bool {
        switch kind {
        case .name(let n): return peer.name == n
        case .address(let a): return peer.address == a
        case .glob(let g):
            if let name = peer.name, Glob.matches(g, name) { return true }
            return Glob.matches(g.lowercased(), peer.address.description.lowercased())
        }
    }
}

extension PeerPattern: Decodable {
    public init(from decoder: any Decoder) throws {
        let mark = RulesDecoding.mark(of: decoder)
        guard let text = RulesDecoding.scalarText(decoder) else {
            throw SourceError(at: mark, "expected a peer name, address or glob, found \(RulesDecoding.found(decoder))",
                            kind: .typeMismatch)
        }
        do {
            try self.init(parsing: text)
        } catch {
            throw SourceError(at: mark, error.message)
        }
    }
}

extension [PeerPattern] {
    /// True when any pattern selects `peer`.
    public func matches(_ peer: PeerIdentity) -> Bool { contains { $0.matches(peer) } }
}

/// Decodes an optional `peers:` key: absent or null gives ``PeerPattern/all``; an empty list is an
/// error, since a rule for nobody is almost certainly a mistake (omit the key for every peer).
func decodePeers<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> [PeerPattern] {
    guard let list: Located<[PeerPattern]> = try RulesDecoding.optionalList(c, key, atMost: RulesBounds.peersPerRule,
                                                                           of: "peers in one rule") else { return PeerPattern.all }
    if list.value.isEmpty {
        throw SourceError(at: list.mark, "peers cannot be empty (omit the key to select every peer)")
    }
    return list.value
}
