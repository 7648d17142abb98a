/// A positional argument a command accepts, declared once with its help beside it: `replay FILE`,
/// `simulate [SCENARIO]`, `decode [HEX …]`, `schema config|rules`.
struct Operand: Sendable, Equatable {
    enum Arity: Sendable, Equatable {
        case required
        case optional
        /// Any number, the rest of the command line.
        case variadic
    }

    /// How usage and help name it: `FILE`, `config|rules`.
    let placeholder: String
    let arity: Arity
    let kind: ValueKind
    let help: String

    init(_ placeholder: String, _ arity: Arity, _ kind: ValueKind, help: String) {
        self.placeholder = placeholder
        self.arity = arity
        self.kind = kind
        self.help = help
    }

    var usage: String {
        switch arity {
        case .required: placeholder
        case .optional: "[\(placeholder)]"
        case .variadic: "[\(placeholder) …]"
        }
    }
}
