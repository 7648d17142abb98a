/// The help of `uwb2mqtt help [COMMAND]` and `COMMAND --help`, made from the commands'
/// declarations so that it always says what the parser accepts.
enum HelpText {
    /// Help lines are wrapped to this width, as the hand-wrapped discussions are.
    static let width = 100
    /// Option and operand names wider than this put their help on the next line.
    static let nameColumn = 22

    /// What `-h`/`--help` is listed as: every command accepts it, none declares it.
    static let helpOption = Option.flag("--help", help: "show this help")

    /// Usage line, abstract, discussion, operands and options with their help, exit statuses.
    static func command(_ declaration: CommandDeclaration) -> String {
        var sections = [usage(declaration), sentence(declaration.abstract)]
        if !declaration.discussion.isEmpty { sections.append(declaration.discussion) }
        let operands = declaration.operands.map { ($0.placeholder, $0.help) }
        if !operands.isEmpty { sections.append("Arguments:\n" + table(operands)) }
        let options = declaration.options.map { ($0.synopsis, $0.help) } + [("-h, --help", helpOption.help)]
        sections.append("Options:\n" + table(options))
        sections.append(wrap("Exit status: " + exitStatuses(declaration).joined(separator: ", ") + ".", indent: 0))
        return sections.joined(separator: "\n\n")
    }

    /// `Usage: uwb2mqtt check [--config FILE] [--rules FILE]`; a line too wide goes on under the
    /// first argument, never breaking one (`[--compare OLD_RULES NEW_RULES]`).
    static func usage(_ declaration: CommandDeclaration) -> String {
        let lead = "Usage: uwb2mqtt \(declaration.name)"
        let margin = String(repeating: " ", count: lead.count + 1)
        var lines: [String] = []
        var line = lead
        for item in declaration.usageItems {
            if line.count + 1 + item.count > width {
                lines.append(line)
                line = margin + item
            } else {
                line += " " + item
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The statuses a command's help lists, with the usage status every command shares last.
    static func exitStatuses(_ declaration: CommandDeclaration) -> [String] {
        (declaration.exitStatuses + [ExitStatus.usageMeaning]).map { "\($0.status) \($0.text)" }
    }

    /// What the program is, in a line (`help`, the manual page's NAME).
    static let tagline = "a UWB proximity gateway: Qorvo DWM3001C (FiRa UCI) in, MQTT out"

    /// `uwb2mqtt help`: what the program is and its commands, one line each.
    static func overview(_ commands: [CommandDeclaration], version: String) -> String {
        """
        uwb2mqtt \(version) — \(tagline).

        Usage: uwb2mqtt COMMAND [OPTIONS]

        Commands:
        \(table(commands.map { ($0.name, $0.abstract) }))

        Run 'uwb2mqtt help COMMAND' or 'uwb2mqtt COMMAND --help' for a command's options.
        Exit status: \(ExitStatus.summary.map { "\($0.status) \($0.text)" }.joined(separator: ", ")).
        """
    }

    /// Two columns, names indented by two, their help wrapped beside them.
    static func table(_ rows: [(String, String)]) -> String {
        let column = min(rows.map(\.0.count).max() ?? 0, nameColumn) + 4
        return rows.map { name, help in
            let lead = "  " + name
            let text = wrap(help, indent: column)
            let body = text.dropFirst(column)
            if lead.count + 2 > column { return lead + "\n" + text }
            return lead + String(repeating: " ", count: column - lead.count) + body
        }.joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, each indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> String {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = margin
        for word in text.split(separator: " ") {
            if line.count > indent, line.count + 1 + word.count > width {
                lines.append(line)
                line = margin
            }
            line += (line.count > indent ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// `run the gateway agent` → `Run the gateway agent.`
    static func sentence(_ abstract: String) -> String {
        abstract.prefix(1).uppercased() + abstract.dropFirst() + "."
    }
}
