import Vocabulary

/// Where a rule kind writes its part of a peer's `state`, value by value in the shape of JSON.
/// The same writing records the state (``StateScript``) and, after every measurement, compares it
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

/// Compares what the kinds write, as they write it, with the discrete tokens of the state last
/// published (``StateScript/discrete``).
public struct StateComparison: PeerStateWriter {
    let reported: [StateScript.DiscreteToken]
    private var index = 0
    private var matchesSoFar = true

    init(reported: [StateScript.DiscreteToken]) { self.reported = reported }

    /// Whether everything written matched, and nothing reported is left over.
    var matches: Bool { matchesSoFar && index == reported.count }

    private mutating func check(_ token: StateScript.DiscreteToken) {
        if matchesSoFar, index < reported.count, reported[index] == token {
            index += 1
        } else {
            matchesSoFar = false
        }
    }

    public mutating func member(_ key: PayloadKey) {}
    public mutating func member(_ name: String) { check(.name(name)) }
    public mutating func string(_ value: String?) { check(.string(value)) }
    public mutating func bool(_ value: Bool?) { check(.bool(value)) }
    public mutating func beginList() { check(.beginList) }
    public mutating func beginObject() { check(.beginObject) }
    public mutating func end() { check(.end) }
    public mutating func continuous(_ value: Double) {}
}
