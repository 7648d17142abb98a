/// Reads a command line (the arguments after the command's name) against a command's declaration.
///
/// The grammar: `--name VALUE` and `--name=VALUE`; flags (`--json`); an option with several values
/// takes that many arguments (`--compare OLD NEW`); an option with an optional value takes the
/// next argument unless it starts with `-`; `--` ends the options; anything else (and `-` alone,
/// standard input by convention) is an operand. A valued option takes the next argument whatever
/// it looks like, so that `--position -1,0,2` works. Every problem is one `UsageError`.
struct ArgumentParser {
    let declaration: CommandDeclaration

    /// Whether `-h` or `--help` comes before any `--`: help wins over every other problem, so that
    /// a half-typed command line can still ask what it should have been.
    static func asksForHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "--help" || argument == "-h" { return true }
        }
        return false
    }

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var operands: [String] = []
        var onlyOperands = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyOperands || argument == "-" || !argument.hasPrefix("-") {
                operands.append(argument)
                continue
            }
            if argument == "--" {
                onlyOperands = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let option = declaration.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(name)'")
            }
            guard parsed.optionValues[name] == nil else { throw UsageError("\(name) given twice") }
            var values: [String] = []
            switch option.arity {
            case .flag:
                guard inline == nil else { throw UsageError("\(name) takes no value") }
            case let .values(placeholders):
                if let inline { values.append(inline) }
                while values.count < placeholders.count, index < arguments.count {
                    values.append(arguments[index])
                    index += 1
                }
                guard values.count == placeholders.count, values.allSatisfy({ !$0.isEmpty }) else {
                    throw UsageError("\(name) needs \(placeholders.joined(separator: " "))")
                }
            case let .optionalValue(placeholder):
                if let inline {
                    guard !inline.isEmpty else { throw UsageError("\(name)= needs \(placeholder)") }
                    values.append(inline)
                } else if index < arguments.count, !arguments[index].hasPrefix("-") {
                    values.append(arguments[index])
                    index += 1
                }
            }
            try Self.check(values, are: option.kind)
            parsed.optionValues[name] = values
        }
        for option in declaration.options where option.isRequired && parsed.optionValues[option.name] == nil {
            throw UsageError("\(option.synopsis) is required")
        }
        try assign(operands, to: &parsed)
        return parsed
    }

    /// Hands the operands to the declared ones in order; a variadic one takes the rest.
    private func assign(_ operands: [String], to parsed: inout ParsedArguments) throws(UsageError) {
        var rest = operands[...]
        for operand in declaration.operands {
            let taken: [String]
            switch operand.arity {
            case .required:
                guard let first = rest.popFirst() else {
                    if case let .choice(words) = operand.kind { throw UsageError("say which: \(Self.list(words))") }
                    throw UsageError("\(operand.placeholder) is required")
                }
                taken = [first]
            case .optional:
                taken = rest.popFirst().map { [$0] } ?? []
            case .variadic:
                taken = Array(rest)
                rest = []
            }
            try Self.check(taken, are: operand.kind)
            if !taken.isEmpty { parsed.operandValues[operand.placeholder] = taken }
        }
        if let extra = rest.first { throw UsageError("unexpected argument '\(extra)'") }
    }

    private static func check(_ values: [String], are kind: ValueKind) throws(UsageError) {
        for value in values {
            switch kind {
            case let .choice(words) where !words.contains(value):
                throw UsageError("expected \(list(words)), found '\(value)'")
            case .command where CommandLineTool.command(named: value) == nil:
                throw UsageError("unknown command '\(value)'")
            default:
                break
            }
        }
    }

    /// `config or rules`, `bash, zsh or fish`.
    private static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}
