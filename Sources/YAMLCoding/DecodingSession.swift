import Vocabulary

/// State shared by every decoder and container of one `YAMLDecoder.decode` call.
///
/// Its main job is the unknown-key rule: a typo in a config key must be an error, never a silently
/// ignored setting. Swift's `Decodable` has no hook for "keys I did not read", so the session records,
/// per mapping node, which keys the keyed containers were asked about and which they actually read; once
/// the top-level `init(from:)` has returned, ``firstUnknownKey()`` walks the tree and reports the first
/// unread key in document order. A `[String: X]` dictionary reads every key it holds, so it never trips
/// the rule. A class because containers are value types that must all update one record.
final class DecodingSession {
    let document: YAMLDocument
    let userInfo: [CodingUserInfoKey: Any]
    /// Keys each mapping (by node id) was asked about: the "expected one of" list.
    private var requested: [Int: Set<String>] = [:]
    /// Keys each mapping actually read (decoded, or checked for null).
    private var read: [Int: Set<String>] = [:]

    init(document: YAMLDocument, userInfo: [CodingUserInfoKey: Any]) {
        self.document = document
        self.userInfo = userInfo
    }

    /// Whether `node` is the document's top level (see `Wording.mismatch`).
    func isTop(_ node: YAMLNode) -> Bool { node.id == document.root.id }

    /// Records that a keyed container exists over `mapping`, so that its keys are checked later.
    func openedKeyedContainer(on mapping: YAMLNode) {
        if requested[mapping.id] == nil { requested[mapping.id] = [] }
        if read[mapping.id] == nil { read[mapping.id] = [] }
    }

    func asked(_ key: String, of mapping: YAMLNode) {
        requested[mapping.id, default: []].insert(key)
    }

    func didRead(_ key: String, of mapping: YAMLNode) {
        asked(key, of: mapping)
        read[mapping.id, default: []].insert(key)
    }

    /// The first key, in document order, of a mapping decoded through a keyed container that no
    /// container read.
    func firstUnknownKey() -> SourceError? {
        var visited = Set<Int>()
        return search(document.root, visited: &visited)
    }

    private func search(_ node: YAMLNode, visited: inout Set<Int>) -> SourceError? {
        // A node reached again through an alias has been checked already (keys are per node).
        guard visited.insert(node.id).inserted else { return nil }
        switch node.content {
        case .scalar:
            return nil
        case .sequence(let items):
            for item in items {
                if let e = search(item, visited: &visited) { return e }
            }
            return nil
        case .mapping(let entries):
            let readKeys = read[node.id]
            for entry in entries {
                if let readKeys, !readKeys.contains(entry.key) {
                    let expected = (requested[node.id] ?? []).sorted()
                    let hint = expected.isEmpty ? "this mapping takes no keys"
                                                : "expected one of: \(expected.joined(separator: ", "))"
                    return SourceError(at: entry.keyMark, "unknown key \(Wording.excerpt(entry.key)) (\(hint))",
                                     kind: .unknownKey)
                }
                if let e = search(entry.value, visited: &visited) { return e }
            }
            return nil
        }
    }

    /// The node a coding path leads to, or the deepest node on the way when the path leaves the tree
    /// (a key that is absent, or a `super` key).
    func node(at path: [any CodingKey]) -> YAMLNode {
        var node = document.root
        for key in path {
            switch node.content {
            case .mapping(let entries):
                guard let entry = entries.first(where: { $0.key == key.stringValue }) else { return node }
                node = entry.value
            case .sequence(let items):
                guard let i = key.intValue, items.indices.contains(i) else { return node }
                node = items[i]
            case .scalar:
                return node
            }
        }
        return node
    }

    /// Turns an error thrown by a type's own `init(from:)` into a located ``SourceError``.
    ///
    /// Types throw `DecodingError`s with a coding path (the standard library does, for an enum given a
    /// raw value it lacks), or errors of their own; both are pinned to a node here so that the caller
    /// still sees `file:line:column: message`.
    func locate(_ error: any Error, decoding type: Any.Type, at node: YAMLNode) -> SourceError {
        if let e = error as? SourceError { return e }
        guard let e = error as? DecodingError else {
            return SourceError(at: node.mark, "\(error)", kind: .invalidValue)
        }
        switch e {
        case .keyNotFound(let key, let context):
            return SourceError(at: self.node(at: context.codingPath).mark,
                             "missing key \(Wording.quote(key.stringValue))", kind: .missingKey)
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let target = self.node(at: context.codingPath)
            return SourceError(at: target.mark, message(context, found: target), kind: .typeMismatch)
        case .dataCorrupted(let context):
            let target = self.node(at: context.codingPath)
            var text = message(context, found: target)
            // The standard library's wording for an enum without the given raw value is for
            // programmers; say which value is wrong and, when the type can list them, what is allowed.
            if context.debugDescription.hasPrefix("Cannot initialize"), target.scalar != nil {
                text = "invalid value \(Wording.found(target))"
                if let choices = Self.choices(of: type) {
                    text += " (expected one of: \(choices.joined(separator: ", ")))"
                }
            }
            return SourceError(at: target.mark, text, kind: .invalidValue)
        @unknown default:
            return SourceError(at: node.mark, "\(error)", kind: .invalidValue)
        }
    }

    private func message(_ context: DecodingError.Context, found node: YAMLNode) -> String {
        context.debugDescription.isEmpty ? "invalid value \(Wording.found(node))" : context.debugDescription
    }

    /// The raw values of a `CaseIterable` enum, for "expected one of" lists.
    private static func choices(of type: Any.Type) -> [String]? {
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        func names<C: CaseIterable>(_ c: C.Type) -> [String] {
            c.allCases.map { value in
                if let raw = value as? any RawRepresentable { return "\(raw.rawValue)" }
                return "\(value)"
            }
        }
        return names(iterable)
    }
}
