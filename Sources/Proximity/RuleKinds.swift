import Vocabulary

/// The table of rule kinds, in the order of a rules file and of every list derived from it (the
/// `thresholds` of the rules payload, the schema's properties, the plot's legend). A new kind is
/// a type that conforms to ``RuleKind`` and one line here.
public enum RuleKinds {
    public static let all: [any RuleKind.Type] = [
        ZoneRule.self,
        StageRules.self,
        ApproachRule.self,
        FacingRule.self,
        RankingRule.self,
    ]

    /// The events the engine emits of itself, whatever the rules: a peer's link and direction.
    public static let engineEvents: [EventDeclaration] = [
        EventDeclaration(.signalLost, .ends), EventDeclaration(.signalRegained, .begins),
        EventDeclaration(.directionAvailable, .begins), EventDeclaration(.directionUnavailable, .ends),
    ]

    /// Every event type of mqtt-api.md: the kinds' in table order, then the engine's.
    public static var events: [EventDeclaration] { all.flatMap { $0.events } + engineEvents }

    /// The members the kinds add to a peer's `state`, kind by kind in table order.
    public static var stateProperties: [JSONSchema.Property] { all.flatMap { $0.stateProperties } }

    /// Every rule's decision distances under `rules`, kind by kind in table order.
    public static func thresholds(in rules: Rules) -> [RuleDistance] { all.flatMap { $0.thresholds(in: rules) } }

    /// The properties of the rules file's schema that the kinds declare, indented by `indent`
    /// spaces and separated as JSON object members.
    public static func schemaProperties(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        return all.map { kind in
            kind.schema.split(separator: "\n", omittingEmptySubsequences: false).map { pad + $0 }.joined(separator: "\n")
        }.joined(separator: ",\n")
    }
}
