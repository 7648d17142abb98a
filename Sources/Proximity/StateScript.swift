import Vocabulary

/// The rule kinds' members of a peer's `state`, as they wrote them (``RuleTracking/describe(_:into:)``):
/// one token per call of the writer. A payload is written straight from the tokens
/// (``write(into:)``), the member tree is built from them only when asked for (``members``: the
/// kinds' accessors, such as ``PeerState/zones``), and a state is compared with the one last
/// published by what in them is discrete (``discrete``, ``StateComparison``).
///
/// A state is made whenever a discrete member changes, and at least every `state_interval` per
/// peer; a tree of lists and objects, each an array of its own, made for each and written once,
/// cost the agent about 12k instructions a notification at 100 measurements a second.
struct StateScript: PeerStateWriter, Hashable, Sendable {
    enum Token: Hashable, Sendable {
        case key(PayloadKey)
        case name(String)
        case string(String?)
        case bool(Bool?)
        case continuous(Double)
        case beginList
        case beginObject
        case end
    }

    /// What makes a state worth publishing: every token but the continuous numbers and the fixed
    /// names, which a kind writes always, so that they say nothing of what changed. Kept apart
    /// from ``tokens``, so that the comparison after every measurement goes through no more than
    /// these.
    enum DiscreteToken: Hashable, Sendable {
        case name(String)
        case string(String?)
        case bool(Bool?)
        case beginList
        case beginObject
        case end
    }

    private(set) var tokens: [Token] = []
    private(set) var discrete: [DiscreteToken] = []

    init() {
        tokens.reserveCapacity(24)
        discrete.reserveCapacity(16)
    }

    mutating func member(_ key: PayloadKey) { tokens.append(.key(key)) }
    mutating func member(_ name: String) { record(.name(name), .name(name)) }
    mutating func string(_ value: String?) { record(.string(value), .string(value)) }
    mutating func bool(_ value: Bool?) { record(.bool(value), .bool(value)) }
    mutating func continuous(_ value: Double) { tokens.append(.continuous(value)) }
    mutating func beginList() { record(.beginList, .beginList) }
    mutating func beginObject() { record(.beginObject, .beginObject) }
    mutating func end() { record(.end, .end) }

    private mutating func record(_ token: Token, _ discreteToken: DiscreteToken) {
        tokens.append(token)
        discrete.append(discreteToken)
    }

    /// Writes the members into the object `json` is writing, after its members so far: the
    /// bytes `JSONBytes.appendObject` writes for ``members``.
    func write(into json: inout JSONBytes) {
        // Bit d: the container at depth d is a list, whose items need separators of their own.
        var lists: UInt64 = 0
        var depth = 0
        func item(_ json: inout JSONBytes) {
            if depth > 0, lists & (1 << (depth - 1)) != 0 { json.listItem() }
        }
        for token in tokens {
            switch token {
            case let .key(key): json.member(key)
            case let .name(name): json.member(named: name)
            case let .string(value): item(&json); json.appendString(value)
            case let .bool(value): item(&json); json.appendBool(value)
            case let .continuous(value): item(&json); json.appendNumber(value)
            case .beginList:
                item(&json); json.beginList()
                lists |= 1 << depth
                depth += 1
            case .beginObject:
                item(&json); json.beginObject()
                lists &= ~(1 << depth)
                depth += 1
            case .end:
                depth -= 1
                if lists & (1 << depth) != 0 { json.endList() } else { json.endObject() }
            }
        }
    }

    /// The members as a tree.
    var members: [JSONMember] {
        var tree = Tree()
        for token in tokens { tree.add(token) }
        return tree.members
    }

    /// The member tree, built token by token: each open list or object, with the name it goes
    /// under in its parent.
    private struct Tree {
        struct Frame {
            var isList: Bool
            var name: String?
            var items: [JSONValue] = []
            var members: [JSONMember] = []
            var pendingName: String?
        }
        var members: [JSONMember] = []
        var frames: [Frame] = []
        var pendingName: String?

        mutating func add(_ token: Token) {
            switch token {
            case let .key(key): name(key.text)
            case let .name(name): self.name(name)
            case let .string(value): put(value.map(JSONValue.string) ?? .null)
            case let .bool(value): put(value.map(JSONValue.bool) ?? .null)
            case let .continuous(value): put(.double(value))
            case .beginList: frames.append(Frame(isList: true, name: takeName()))
            case .beginObject: frames.append(Frame(isList: false, name: takeName()))
            case .end:
                let frame = frames.removeLast()
                put(frame.isList ? .list(frame.items) : .object(frame.members), name: frame.name)
            }
        }

        private mutating func name(_ name: String) {
            if frames.isEmpty { pendingName = name } else { frames[frames.count - 1].pendingName = name }
        }

        private mutating func takeName() -> String? {
            if frames.isEmpty {
                defer { pendingName = nil }
                return pendingName
            }
            defer { frames[frames.count - 1].pendingName = nil }
            return frames[frames.count - 1].pendingName
        }

        private mutating func put(_ value: JSONValue) { put(value, name: takeName()) }

        private mutating func put(_ value: JSONValue, name: String?) {
            guard let last = frames.indices.last else {
                members.append(JSONMember(name ?? "", value))
                return
            }
            if frames[last].isList {
                frames[last].items.append(value)
            } else {
                frames[last].members.append(JSONMember(name ?? "", value))
            }
        }
    }
}
