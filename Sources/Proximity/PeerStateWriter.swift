import Vocabulary

/// Where a rule kind writes its part of a peer's `state`, value by value in the shape of JSON.
/// The same writing builds the state (``StateBuilder``) and, after every measurement, compares it
/// with the state last published without building anything (``StateComparison``): the two can
/// never disagree about what a kind says.
public protocol PeerStateWriter {
    /// The name of the next value, a member of `state` or of the object being written, when the
    /// name is fixed (`zones`): a kind writes its fixed names always, so they say nothing of
    /// what changed.
    mutating func member(_ key: PayloadKey)
    /// The name of the next value when the name is data (an approach rule's name).
    mutating func member(_ name: String)
    mutating func string(_ value: String?)
    mutating func bool(_ value: Bool?)
    mutating func beginList()
    mutating func beginObject()
    /// Ends the innermost list or object.
    mutating func end()
    /// A number that changes with nearly every measurement (a progress): in the payload, but its
    /// change alone does not make the state worth publishing.
    mutating func continuous(_ value: Double)
}

/// What makes a state worth publishing, as written: every value but the continuous ones, and the
/// names that are data.
enum StateToken: Hashable, Sendable {
    case member(String)
    case string(String?)
    case bool(Bool?)
    case beginList
    case beginObject
    case end
}

/// Builds the kinds' members of `state` and the tokens they are compared by.
struct StateBuilder: PeerStateWriter {
    private(set) var members: [JSONMember] = []
    private(set) var tokens: [StateToken] = []

    /// An open list or object, with the name it goes under in its parent.
    private struct Frame {
        var isList: Bool
        var name: String?
        var items: [JSONValue] = []
        var members: [JSONMember] = []
        var pendingName: String?
    }
    private var frames: [Frame] = []
    private var pendingName: String?

    mutating func member(_ key: PayloadKey) { name(key.text) }

    mutating func member(_ name: String) {
        tokens.append(.member(name))
        self.name(name)
    }

    private mutating func name(_ name: String) {
        if frames.isEmpty { pendingName = name } else { frames[frames.count - 1].pendingName = name }
    }

    mutating func string(_ value: String?) {
        tokens.append(.string(value))
        put(value.map(JSONValue.string) ?? .null)
    }

    mutating func bool(_ value: Bool?) {
        tokens.append(.bool(value))
        put(value.map(JSONValue.bool) ?? .null)
    }

    mutating func continuous(_ value: Double) { put(.double(value)) }

    mutating func beginList() {
        tokens.append(.beginList)
        frames.append(Frame(isList: true, name: takeName()))
    }

    mutating func beginObject() {
        tokens.append(.beginObject)
        frames.append(Frame(isList: false, name: takeName()))
    }

    mutating func end() {
        tokens.append(.end)
        let frame = frames.removeLast()
        put(frame.isList ? .list(frame.items) : .object(frame.members), name: frame.name)
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

/// Compares what the kinds write, as they write it, with the tokens of the state last published.
public struct StateComparison: PeerStateWriter {
    let reported: [StateToken]
    private var index = 0
    private var matchesSoFar = true

    init(reported: [StateToken]) { self.reported = reported }

    /// Whether everything written matched, and nothing reported is left over.
    var matches: Bool { matchesSoFar && index == reported.count }

    private mutating func check(_ token: StateToken) {
        if matchesSoFar, index < reported.count, reported[index] == token {
            index += 1
        } else {
            matchesSoFar = false
        }
    }

    public mutating func member(_ key: PayloadKey) {}
    public mutating func member(_ name: String) { check(.member(name)) }
    public mutating func string(_ value: String?) { check(.string(value)) }
    public mutating func bool(_ value: Bool?) { check(.bool(value)) }
    public mutating func beginList() { check(.beginList) }
    public mutating func beginObject() { check(.beginObject) }
    public mutating func end() { check(.end) }
    public mutating func continuous(_ value: Double) {}
}
