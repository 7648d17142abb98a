/// Everything a command accepts and says about itself, in one value: its name, a one-line abstract
/// (for the command list), a discussion (for its help), its options and operands in the order
/// the usage line shows them, and what its exit statuses mean.
struct CommandDeclaration: Sendable {
    /// One item of the command line, in usage-line order.
    enum Argument: Sendable {
        case option(Option)
        case operand(Operand)
    }

    let name: String
    /// Lower case, no final period: `validate config and rules without device or broker`.
    let abstract: String
    /// Paragraphs for `help COMMAND`, beyond the abstract; may be empty.
    let discussion: String
    let arguments: [Argument]
    /// Each status the command returns, but bad usage, which every command shares.
    let exitStatuses: [ExitStatus.Meaning]

    init(name: String, abstract: String, discussion: String = "", arguments: [Argument] = [],
         exitStatuses: [ExitStatus.Meaning]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.exitStatuses = exitStatuses
    }

    var options: [Option] {
        arguments.compactMap { if case let .option(option) = $0 { option } else { nil } }
    }

    var operands: [Operand] {
        arguments.compactMap { if case let .operand(operand) = $0 { operand } else { nil } }
    }

    /// `[--config FILE]`, `[--rules FILE]`: the usage line after `uwb2mqtt check`.
    var usageItems: [String] {
        arguments.map { argument in
            switch argument {
            case let .option(option): option.usage
            case let .operand(operand): operand.usage
            }
        }
    }
}
