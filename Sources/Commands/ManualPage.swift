import Gateway
import YAMLCoding

/// The manual pages, in roff (man(7)): uwb2mqtt(1) made from the commands' declarations, as the
/// help and the completion scripts are, and uwb2mqtt.yaml(5) made from the configuration's JSON
/// Schema (`uwb2mqtt schema config`). So each page says what this build accepts.
enum ManualPage {
    /// The pages, by the name `man` finds them under.
    enum Page: String, CaseIterable, Sendable {
        /// uwb2mqtt(1): the commands.
        case commands = "uwb2mqtt"
        /// uwb2mqtt.yaml(5): the configuration file.
        case configuration = "uwb2mqtt.yaml"

        var section: Int {
            switch self {
            case .commands: 1
            case .configuration: 5
            }
        }

        /// `uwb2mqtt.1`, the file the page is installed as (gzipped in the Debian package).
        var fileName: String { "\(rawValue).\(section)" }
    }

    // MARK: - uwb2mqtt(1)

    static func commands(_ commands: [CommandDeclaration], version: String) -> String {
        var lines = heading(.commands, version: version, title: "User Commands")
        lines += [".SH NAME", "uwb2mqtt \\- " + Roff.text(HelpText.tagline)]

        lines.append(".SH SYNOPSIS")
        lines += [".SY uwb2mqtt", Roff.italic("COMMAND") + " [" + Roff.italic("OPTIONS") + "]", ".YS"]
        for command in commands {
            lines += [".SY uwb2mqtt", ([Roff.bold(Roff.literal(command.name))] + command.arguments.map(synopsis)).joined(separator: " "), ".YS"]
        }

        lines.append(".SH DESCRIPTION")
        lines += paragraph(description)
        lines.append(".PP")
        lines += paragraph("Every command takes -h or --help, and uwb2mqtt help COMMAND says the same as this page's section on it.")

        lines.append(".SH COMMANDS")
        for command in commands {
            lines.append(".SS " + Roff.argument(Roff.literal("uwb2mqtt " + command.name)))
            lines += paragraph(HelpText.sentence(command.abstract))
            lines += discussion(command.discussion)
            for operand in command.operands {
                lines += [".TP", operandName(operand)] + paragraph(operand.help)
            }
            for option in command.options {
                lines += [".TP", optionName(option)] + paragraph(option.help)
            }
            lines += [".TP", Roff.bold(Roff.literal("-h")) + ", " + optionName(HelpText.helpOption)] + paragraph(HelpText.helpOption.help)
            lines.append(".PP")
            lines += paragraph("Exit status: " + HelpText.exitStatuses(command).joined(separator: ", ") + ".")
        }

        lines.append(".SH \"EXIT STATUS\"")
        for meaning in ExitStatus.summary {
            lines += [".TP", Roff.bold(String(meaning.status))] + paragraph(HelpText.sentence(meaning.text))
        }

        lines.append(".SH FILES")
        let defaults = AgentConfiguration(device: .init(peers: []))
        let files: [(String, String)] = [
            (AgentConfiguration.defaultPath, "The configuration of run, check, doctor and record (--config), described in uwb2mqtt.yaml(5)."),
            (defaults.rules, "The proximity rules (the configuration's rules key); uwb2mqtt schema rules prints their JSON Schema."),
            ("/etc/uwb2mqtt/mqtt.password", "The broker password, when mqtt.password_file names it: the password alone, mode 0640, group uwb2mqtt."),
            (defaults.mqtt.spoolDir, "The spool (mqtt.spool_dir): events and retained state wait here while the broker is away."),
        ]
        for (path, text) in files {
            lines += [".TP", Roff.italic(Roff.literal(path))] + paragraph(text)
        }

        lines.append(".SH \"SEE ALSO\"")
        lines += [".BR uwb2mqtt.yaml (5),", ".BR systemctl (1),", ".BR journalctl (1),", ".BR mosquitto (8)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// What DESCRIPTION says about the program as a whole.
    static let description = """
        uwb2mqtt reads a Qorvo DWM3001C UWB module over its USB serial port (FiRa UCI), turns its \
        ranging measurements into distances, zones, stages and approach events, and publishes them to \
        an MQTT broker. The gateway agent is uwb2mqtt run, which systemd starts as uwb2mqtt.service \
        under the unprivileged user uwb2mqtt; the other commands check and diagnose a gateway, \
        simulate, record and replay the device, fuse several gateways into site positions and watch \
        them.
        """

    /// A usage item as SYNOPSIS shows it: literal words bold, placeholders in italics, the
    /// spaces inside one item unbreakable.
    static func synopsis(_ argument: CommandDeclaration.Argument) -> String {
        switch argument {
        case let .option(option):
            let text = optionName(option).replacing(" ", with: "\\ ")
            return option.isRequired ? text : "[" + text + "]"
        case let .operand(operand):
            let text = operandName(operand)
            switch operand.arity {
            case .required: return text
            case .optional: return "[" + text + "]"
            case .variadic: return "[" + text + "\\ " + Roff.text("…") + "]"
            }
        }
    }

    /// `\fB\-\-config\fR \fIFILE\fR`, `\fB\-\-simulate\fR [\fISCENARIO\fR]`.
    static func optionName(_ option: Option) -> String {
        let name = Roff.bold(Roff.literal(option.name))
        switch option.arity {
        case .flag:
            return name
        case let .values(placeholders):
            return ([name] + placeholders.map { Roff.italic(Roff.literal($0)) }).joined(separator: " ")
        case let .optionalValue(placeholder):
            return name + " [" + Roff.italic(Roff.literal(placeholder)) + "]"
        }
    }

    /// An operand that is one of some words names them in bold (`config|rules`); any other is a
    /// placeholder, in italics.
    static func operandName(_ operand: Operand) -> String {
        if case let .choice(words) = operand.kind {
            return words.map { Roff.bold(Roff.literal($0)) }.joined(separator: "|")
        }
        return Roff.italic(Roff.literal(operand.placeholder))
    }

    /// A discussion (as `help COMMAND` shows it): paragraphs apart by blank lines, lines indented
    /// by two spaces as examples, set apart and verbatim.
    static func discussion(_ text: String) -> [String] {
        var lines: [String] = []
        var prose: [Substring] = []
        var example: [Substring] = []
        func flush() {
            if !prose.isEmpty {
                lines.append(".PP")
                lines += paragraph(prose.map { String($0).trimmingWhitespace() }.joined(separator: " "))
                prose = []
            }
            if !example.isEmpty {
                lines += [".PP", ".RS 4", ".EX"] + example.map { Roff.line(Roff.literal(String($0.dropFirst(2)))) } + [".EE", ".RE"]
                example = []
            }
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                flush()
            } else if line.hasPrefix("  ") {
                if !prose.isEmpty { flush() }
                example.append(line)
            } else {
                if !example.isEmpty { flush() }
                prose.append(line)
            }
        }
        flush()
        return lines
    }

    /// Prose as one text line (roff fills it).
    static func paragraph(_ text: String) -> [String] {
        [Roff.line(Roff.text(text))]
    }

    /// The comment that says where the page comes from, and `.TH`.
    static func heading(_ page: Page, version: String, title: String) -> [String] {
        [
            ".\\\" \(page.rawValue)(\(page.section)), made by `uwb2mqtt man \(page.rawValue)`: edit the declarations it comes from, not this.",
            ".TH \(page.rawValue.uppercased()) \(page.section) \"\" \"uwb2mqtt \(version)\" \"\(title)\"",
        ]
    }

    // MARK: - uwb2mqtt.yaml(5)

    /// The page of the configuration file, made from its JSON Schema (draft-07, as `Schemas`
    /// writes it: JSON, which is YAML, read here in file order).
    static func configuration(schema: String, version: String) -> String {
        guard let document = try? YAMLDocument(text: schema, file: "the configuration schema") else {
            preconditionFailure("the configuration schema is not JSON")
        }
        let root = document.root
        var lines = heading(.configuration, version: version, title: "File Formats")
        lines += [".SH NAME", "uwb2mqtt.yaml \\- configuration file of the uwb2mqtt gateway agent"]
        lines += [".SH SYNOPSIS", Roff.italic(Roff.literal(AgentConfiguration.defaultPath))]

        lines.append(".SH DESCRIPTION")
        lines += paragraph(root["description"]?.text ?? "")
        lines.append(".PP")
        lines += paragraph("""
            The file is YAML. Below, a key is named by its path: device.port is the key port of the \
            mapping device, and device.peers[].address the key address of each item of the list \
            device.peers. uwb2mqtt check validates a file without touching device or broker; \
            uwb2mqtt schema config prints the JSON Schema this page is made from, for editors.
            """)
        lines.append(".PP")
        lines += paragraph("""
            The agent reads the file when it starts. On SIGHUP (systemctl reload uwb2mqtt) it reads it \
            and the rules file again: the device and phones sections and rules apply at once, the \
            rest at the next start; a file that does not load keeps the running configuration.
            """)

        lines.append(".SH KEYS")
        let required = Set(root["required"]?.items.compactMap(\.text) ?? [])
        var topLevel: [(YAMLMappingEntry, Bool)] = []
        for entry in root["properties"]?.entries ?? [] {
            if entry.value["properties"] == nil {
                topLevel.append((entry, required.contains(entry.key)))
                continue
            }
            lines.append(".SS " + Roff.argument(Roff.literal(entry.key)))
            var text = entry.value["description"]?.text ?? ""
            if required.contains(entry.key) { text += " Required." }
            lines += paragraph(text)
            lines += keys(of: entry.value, path: entry.key)
        }
        if !topLevel.isEmpty {
            lines.append(".SS " + Roff.argument("Other keys"))
            for (entry, isRequired) in topLevel {
                lines += key(entry.key, entry.value, required: isRequired)
            }
        }

        lines.append(".SH VALUES")
        lines += paragraph("The kinds of value the keys above name.")
        for entry in root["definitions"]?.entries ?? [] {
            lines += [".TP", Roff.italic(Roff.literal(definitionName(entry.key)))]
            lines += paragraph([entry.value["description"]?.text.map(sentence), summary(entry.value).map { "Value: \($0)." }]
                .compactMap { $0 }.joined(separator: " "))
        }

        lines.append(".SH EXAMPLE")
        lines += paragraph("A controller ranging with two tags, publishing to a broker on this machine:")
        lines += [".PP", ".RS 4", ".EX"]
        lines += example.split(separator: "\n").map { Roff.line(Roff.literal(String($0))) }
        lines += [".EE", ".RE", ".PP"]
        lines += paragraph("""
            The package installs an annotated example as share/doc/uwb2mqtt/config.yaml under its \
            prefix (/usr/share/doc/uwb2mqtt/config.yaml from the Debian package).
            """)

        lines += [".SH FILES", ".TP", Roff.italic(Roff.literal(AgentConfiguration.defaultPath))]
        lines += paragraph("Where uwb2mqtt run, check, doctor and record look for it without --config.")
        lines += [".SH \"SEE ALSO\"", ".BR uwb2mqtt (1)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The configuration EXAMPLE shows (a test loads it).
    static let example = """
        device:
          port: auto
          peers:
            - address: 0x0001
              name: counter
            - address: 0x0002
              name: cart-1
        mqtt:
          url: mqtt://127.0.0.1:1883
        rules: /etc/uwb2mqtt/rules.yaml
        """

    /// Each key below `node` (an object of the schema), depth first: a mapping's keys after it,
    /// a list of mappings' item keys as `list[].key`.
    static func keys(of node: YAMLNode, path: String) -> [String] {
        let required = Set(node["required"]?.items.compactMap(\.text) ?? [])
        var lines: [String] = []
        for entry in node["properties"]?.entries ?? [] {
            let name = path + "." + entry.key
            lines += key(name, entry.value, required: required.contains(entry.key))
            if entry.value["properties"] != nil {
                lines += keys(of: entry.value, path: name)
            }
            if let items = entry.value["items"], items["properties"] != nil {
                lines += keys(of: items, path: name + "[]")
            }
        }
        return lines
    }

    /// One key: its name, description, value, default, examples.
    static func key(_ name: String, _ node: YAMLNode, required: Bool) -> [String] {
        var parts: [String] = []
        if let description = node["description"]?.text { parts.append(sentence(description)) }
        if let summary = summary(node) { parts.append("Value: \(summary).") }
        if let value = node["default"] { parts.append("Default: \(rendered(value)).") }
        if let examples = node["examples"]?.items, !examples.isEmpty {
            parts.append("Examples: " + examples.map(rendered).joined(separator: ", ") + ".")
        }
        if required { parts.append("Required.") }
        return [".TP", Roff.bold(Roff.literal(name))] + paragraph(parts.joined(separator: " "))
    }

    /// What a schema node accepts, in words: `integer from 1 to 8`, `one of 5, 9`,
    /// `number from 0.05 to 10 or duration text`; nil when it says nothing.
    static func summary(_ node: YAMLNode) -> String? {
        if let values = node["enum"]?.items {
            return "one of " + unique(values.map(rendered)).joined(separator: ", ")
        }
        if let value = node["const"] { return rendered(value) }
        if let reference = node["$ref"]?.text {
            return definitionName(String(reference.split(separator: "/").last ?? ""))
        }
        if let alternatives = (node["anyOf"] ?? node["allOf"])?.items {
            let words = unique(alternatives.compactMap(summary))
            return words.isEmpty ? nil : words.joined(separator: " or ")
        }
        let types = node["type"].map { $0.items.isEmpty ? [$0.text ?? ""] : $0.items.compactMap(\.text) } ?? []
        guard !types.isEmpty else { return nil }
        var text = types.map(typeName).joined(separator: " or ")
        if let minimum = node["minimum"]?.text, let maximum = node["maximum"]?.text {
            text += " from \(minimum) to \(maximum)"
        } else if let minimum = node["minimum"]?.text {
            text += " (at least \(minimum))"
        } else if let minimum = node["exclusiveMinimum"]?.text {
            text += " (more than \(minimum))"
        } else if let maximum = node["maximum"]?.text {
            text += " (at most \(maximum))"
        }
        if let most = node["maxItems"]?.text { text += " of at most \(most)" }
        if let items = node["items"], types == ["array"] {
            text += items["properties"] != nil ? " mappings" : (summary(items).map { ": " + $0 } ?? "")
        }
        return text
    }

    /// A description as a sentence: `metres` → `metres.`, so that what follows it reads apart.
    static func sentence(_ text: String) -> String {
        text.last.map { ".!?".contains($0) } == true ? text : text + "."
    }

    static func typeName(_ type: String) -> String {
        switch type {
        case "object": "mapping"
        case "array": "list"
        case "boolean": "true or false"
        default: type
        }
    }

    /// `shortAddress` → `short address`: a definition as the page names it.
    static func definitionName(_ key: String) -> String {
        var words = ""
        for character in key {
            if character.isUppercase { words += " " + character.lowercased() } else { words.append(character) }
        }
        return words
    }

    /// A scalar as written, a list as its items.
    static func rendered(_ node: YAMLNode) -> String {
        if let text = node.text { return text }
        return "[" + node.items.map(rendered).joined(separator: ", ") + "]"
    }

    static func unique(_ words: [String]) -> [String] {
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }
}

/// Reading a schema: JSON objects as YAML mappings, in file order.
private extension YAMLNode {
    subscript(key: String) -> YAMLNode? {
        entries.first { $0.key == key }?.value
    }

    var entries: [YAMLMappingEntry] {
        if case let .mapping(entries) = content { entries } else { [] }
    }

    var items: [YAMLNode] {
        if case let .sequence(items) = content { items } else { [] }
    }

    var text: String? { scalar?.text }
}
