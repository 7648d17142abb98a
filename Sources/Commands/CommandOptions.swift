/// The options of `check` and `doctor`: `--name VALUE` or `--name=VALUE`, no operands.
struct CommandOptions {
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    var values: [String: String] = [:]
    var helpRequested = false

    static func parse(_ arguments: [String], command: String, valued: Set<String>) throws(UsageError) -> CommandOptions {
        func usage(_ text: String) -> UsageError {
            UsageError(description: "uwb2mqtt: \(command): \(text) (run 'uwb2mqtt help \(command)')")
        }
        var options = CommandOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                options.helpRequested = true
                continue
            }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard valued.contains(name) else {
                throw usage(argument.hasPrefix("-") ? "unknown option '\(name)'" : "unexpected argument '\(argument)'")
            }
            if value == nil {
                guard index < arguments.count else { throw usage("\(name) needs a FILE") }
                value = arguments[index]
                index += 1
            }
            guard let value, !value.isEmpty else { throw usage("\(name) needs a FILE") }
            guard options.values[name] == nil else { throw usage("\(name) given twice") }
            options.values[name] = value
        }
        return options
    }
}
