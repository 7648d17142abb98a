/// An option a command accepts, declared once with its help beside it: `--json`, `--config FILE`,
/// `--simulate [SCENARIO]`, `--compare OLD_RULES NEW_RULES`. The parser, the help text and the
/// shell completion scripts are all made from these declarations.
struct Option: Sendable, Equatable {
    enum Arity: Sendable, Equatable {
        /// Present or not.
        case flag
        /// Always followed by one value per placeholder, or given as `--name=VALUE` when there is one.
        case values([String])
        /// Followed by a value only when the next argument is not an option (`--simulate [SCENARIO]`),
        /// so that the bare option keeps its default.
        case optionalValue(String)
    }

    /// `--config`.
    let name: String
    let arity: Arity
    let kind: ValueKind
    /// A required option is still written as an option (`fuse --config FILE`) because what it
    /// names is not what the command works on.
    let isRequired: Bool
    let help: String

    static func flag(_ name: String, help: String) -> Option {
        Option(name: name, arity: .flag, kind: .text, isRequired: false, help: help)
    }

    static func value(_ name: String, _ placeholder: String, _ kind: ValueKind = .file, required: Bool = false,
                      help: String) -> Option {
        Option(name: name, arity: .values([placeholder]), kind: kind, isRequired: required, help: help)
    }

    static func values(_ name: String, _ placeholders: [String], _ kind: ValueKind = .file, help: String) -> Option {
        Option(name: name, arity: .values(placeholders), kind: kind, isRequired: false, help: help)
    }

    static func optionalValue(_ name: String, _ placeholder: String, _ kind: ValueKind, help: String) -> Option {
        Option(name: name, arity: .optionalValue(placeholder), kind: kind, isRequired: false, help: help)
    }

    /// `--config FILE`, `--simulate [SCENARIO]`, `--json`.
    var synopsis: String {
        switch arity {
        case .flag: name
        case let .values(placeholders): ([name] + placeholders).joined(separator: " ")
        case let .optionalValue(placeholder): "\(name) [\(placeholder)]"
        }
    }

    /// As the usage line shows it: optional ones in brackets.
    var usage: String { isRequired ? synopsis : "[\(synopsis)]" }
}
