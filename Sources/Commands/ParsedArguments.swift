/// A command line the parser accepted, read back through the declarations that describe it:
/// `arguments.value(Self.config)`.
struct ParsedArguments: Sendable, Equatable {
    /// The values of each option given, by name (empty for a flag, or `--simulate` alone).
    var optionValues: [String: [String]] = [:]
    /// The operands, by placeholder.
    var operandValues: [String: [String]] = [:]

    func isSet(_ option: Option) -> Bool { optionValues[option.name] != nil }

    /// The option's value (its first, for an option with several), or nil when not given.
    func value(_ option: Option) -> String? { optionValues[option.name]?.first }

    func values(_ option: Option) -> [String] { optionValues[option.name] ?? [] }

    func value(_ operand: Operand) -> String? { operandValues[operand.placeholder]?.first }

    func values(_ operand: Operand) -> [String] { operandValues[operand.placeholder] ?? [] }
}
