import Vocabulary

/// Helpers shared by the rules types' `init(from:)`: marks, wording of what was found, and the
/// checks every rule kind repeats (non-empty names, unique names).
///
/// Every validation error is a ``SourceError`` pinned to the offending key or value, so that a rule
/// editor reads `rules.yaml:12:18: …` whatever the problem.
enum RulesDecoding {
    /// The mark of the value `decoder` is decoding; a placeholder mark from a decoder that does not
    /// locate its values (rules decoded from JSON, for instance).
    static func mark(of decoder: any Decoder) -> SourceMark {
        SourceLocating.mark(of: decoder) ?? Located<Int>.unknownMark
    }

    /// How to name the value being decoded in a message: `"abc"`, `a list`, `a mapping`, `nothing`.
    static func found(_ decoder: any Decoder) -> String {
        switch SourceLocating.shape(of: decoder) {
        case nil: "an invalid value"
        case .sequence?: "a list"
        case .mapping?: "a mapping"
        case let .null(text)?: text.isEmpty ? "nothing" : "null"
        case let .scalar(text, _)?: Excerpt.quoted(text)
        }
    }

    /// How to name a decoded JSON value (an attribute, a cue, a tolerance) in a message: text as
    /// an ``Excerpt``, a number as written, a list or mapping by its kind.
    static func found(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool, .int, .double: value.json
        case let .string(text): Excerpt.quoted(text)
        case .list: "a list"
        case .object: "a mapping"
        }
    }

    /// The text of a scalar value, or nil when the value is a list, a mapping or null.
    static func scalarText(_ decoder: any Decoder) -> String? {
        switch SourceLocating.shape(of: decoder) {
        case nil: try? decoder.singleValueContainer().decode(String.self)
        case let .scalar(text, _)?: text
        case .sequence?, .mapping?, .null?: nil
        }
    }

    /// Whether the value is a plain (unquoted) scalar: only those can be numbers.
    static func isPlainScalar(_ decoder: any Decoder) -> Bool {
        switch SourceLocating.shape(of: decoder) {
        case nil: true
        case let .scalar(_, plain)?: plain
        case .sequence?, .mapping?, .null?: false
        }
    }

    /// Throws at the second use of a name: rules of one kind are told apart by name in topics and events.
    static func requireUnique(_ names: [Located<String>], kind: String) throws(SourceError) {
        var seen: [String: SourceMark] = [:]
        for name in names {
            if let first = seen[name.value] {
                throw SourceError(at: name.mark, "duplicate \(kind) name \(Excerpt.quoted(name.value)) (first used at line \(first.line))")
            }
            seen[name.value] = name.mark
        }
    }

    /// The longest rule name: names become topic segments (`ranking/<rule>`) and event fields,
    /// and a topic segment is at most 64 characters (mqtt-api.md, names).
    static let maximumNameLength = 64

    /// A rule's name and where it is written, checked (`requireName`).
    static func name<Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, _ key: Key) throws -> (String, SourceMark) {
        let name = try c.decode(Located<String>.self, forKey: key)
        try requireName(name)
        return (name.value, name.mark)
    }

    /// A rule name must be non-empty text of at most `maximumNameLength` characters.
    static func requireName(_ name: Located<String>) throws(SourceError) {
        if name.value.isEmpty { throw SourceError(at: name.mark, "a name cannot be empty") }
        if name.value.count > maximumNameLength {
            throw SourceError(at: name.mark, "a name is at most \(maximumNameLength) characters, this one has \(name.value.count)")
        }
    }

    /// The list under `key`, refused at its first item beyond `limit` (see ``RulesBounds``) before
    /// any item is decoded: ten thousand zones cost their parse and no more. `what` names the
    /// items in the message (`zones`).
    static func list<T: Decodable, Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, _ key: Key, atMost limit: Int,
                                                   of what: String) throws -> Located<[T]> {
        let mark = try c.decode(Place.self, forKey: key).mark
        var items = try c.nestedUnkeyedContainer(forKey: key)
        if let count = items.count, count > limit {
            for _ in 0..<limit { _ = try items.decode(Place.self) }
            let beyond = try items.decode(Place.self).mark
            throw SourceError(at: beyond, "at most \(limit) \(what) are allowed, found \(count) (this is the \(ordinal(limit + 1)))")
        }
        var values: [T] = []
        values.reserveCapacity(items.count ?? 0)
        while !items.isAtEnd { values.append(try items.decode(T.self)) }
        return Located(values, at: mark)
    }

    /// ``list(_:_:atMost:of:)`` for a key that may be absent or null (nil then).
    static func optionalList<T: Decodable, Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, _ key: Key, atMost limit: Int,
                                                           of what: String) throws -> Located<[T]>? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        return try list(c, key, atMost: limit, of: what)
    }

    /// A kind's list of named rules under its key of a rules file (empty when absent), at most
    /// `limit` of them, each name used once.
    static func namedRules<Rule: Decodable>(_ file: KeyedDecodingContainer<RulesKey>, _ key: String, atMost limit: Int,
                                             noun: String, name: (Rule) -> Located<String>) throws -> [Rule] {
        let rules: [Rule] = try optionalList(file, RulesKey(key), atMost: limit, of: key)?.value ?? []
        try requireUnique(rules.map(name), kind: noun)
        return rules
    }

    /// A warning for a rule whose `patterns` select none of `peers`, or nil when one matches.
    /// Allowed, because peers come and go, but worth telling the rule editor.
    static func unmatched(_ noun: String, _ name: String, _ patterns: [PeerPattern], _ mark: SourceMark?,
                          peers: [PeerIdentity]) -> String? {
        guard !peers.contains(where: { patterns.matches($0) }) else { return nil }
        var list = patterns.prefix(patternsNamedInAWarning).map { "\"\($0)\"" }.joined(separator: ", ")
        if patterns.count > patternsNamedInAWarning { list += ", … \(patterns.count - patternsNamedInAWarning) more" }
        return "\(prefix(mark))\(noun) \"\(name)\": peers [\(list)] match no configured peer"
    }

    /// Patterns a warning names before it counts the rest: a rule may list 64.
    static let patternsNamedInAWarning = 4

    /// Where a value is written, read without decoding it.
    private struct Place: Decodable {
        var mark: SourceMark
        init(from decoder: any Decoder) throws { mark = RulesDecoding.mark(of: decoder) }
    }

    /// `1st`, `2nd`, `3rd`, `4th` … `11th`, `12th`, `13th` … `21st`, `65th`.
    static func ordinal(_ n: Int) -> String {
        let suffix = switch (n % 10, n % 100) {
        case (_, 11...13): "th"
        case (1, _): "st"
        case (2, _): "nd"
        case (3, _): "rd"
        default: "th"
        }
        return "\(n)\(suffix)"
    }

    /// Refuses a rendered `attributes` mapping or cue beyond ``RulesBounds/attributeBytes``.
    static func requireSmall(_ value: JSONValue, at mark: SourceMark, _ what: String) throws(SourceError) {
        let bytes = RenderedJSON(value).bytes.count
        if bytes > RulesBounds.attributeBytes {
            throw SourceError(at: mark, "\(what) are at most \(RulesBounds.attributeBytes) bytes as JSON, found \(bytes)")
        }
    }

    /// `file:line:column: ` for a known mark, nothing for the placeholder of non-YAML decoders.
    static func prefix(_ mark: SourceMark?) -> String {
        guard let mark, mark.line > 0 else { return "" }
        return "\(mark): "
    }

    /// A number followed by one of `units` (the longest suffix is listed first), spaces allowed
    /// before the unit; nil when it is none of them.
    static func quantity(_ text: String, units: [(String, Double)]) -> Double? {
        for (unit, factor) in units where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count).trimmingCharacters(in: " ")
            guard !number.isEmpty, let value = Double(number), value.isFinite else { return nil }
            return value * factor
        }
        return nil
    }

    /// A distance or a duration as the rules file writes it: a plain number in the base unit, or
    /// a string with one of `units`; never negative. Errors name what was expected.
    static func quantity(_ decoder: any Decoder, units: [(String, Double)], kind: String, examples: String) throws -> Double {
        let mark = mark(of: decoder)
        var value: Double?
        if isPlainScalar(decoder), let number = try? decoder.singleValueContainer().decode(Double.self) {
            value = number
        } else if let text = scalarText(decoder) {
            value = quantity(text, units: units)
        }
        guard let value, value.isFinite else {
            throw SourceError(at: mark, "expected a \(kind) such as \(examples), found \(found(decoder))", kind: .typeMismatch)
        }
        guard value >= 0 else {
            throw SourceError(at: mark, "a \(kind) cannot be negative, found \(found(decoder))")
        }
        return value
    }
}
