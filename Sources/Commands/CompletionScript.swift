/// Shell completion scripts for `uwb2mqtt`, made from the commands' declarations: every command,
/// its options (with their help, where the shell shows it) and what their values and operands
/// are (files, words, commands).
enum CompletionScript {
    enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    static func script(for shell: Shell, commands: [CommandDeclaration]) -> String {
        switch shell {
        case .bash: bash(commands)
        case .zsh: zsh(commands)
        case .fish: fish(commands)
        }
    }

    /// The options completion offers for a command: its own and `--help`.
    static func options(_ command: CommandDeclaration) -> [Option] {
        command.options + [HelpText.helpOption]
    }

    /// `'text'` for a POSIX shell: single quotes, with each `'` closed, escaped and reopened.
    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }

    // MARK: - bash

    static func bash(_ commands: [CommandDeclaration]) -> String {
        func complete(_ kind: ValueKind) -> String {
            var actions: [String] = []
            if !kind.words.isEmpty {
                actions.append("COMPREPLY+=($(compgen -W \(quoted(kind.words.joined(separator: " "))) -- \"$cur\"))")
            }
            if kind.completesFiles { actions.append("_uwb2mqtt_files") }
            return actions.joined(separator: "; ")
        }
        var lines = [
            "# bash completion for uwb2mqtt, made by `uwb2mqtt completion bash` from the commands' declarations.",
            "",
            "_uwb2mqtt_files() {",
            "    compopt -o filenames 2>/dev/null",
            "    COMPREPLY+=($(compgen -f -- \"$cur\"))",
            "}",
            "",
            "_uwb2mqtt() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    COMPREPLY=()",
            "    if (( COMP_CWORD == 1 )); then",
            "        COMPREPLY=($(compgen -W \(quoted((commands.map(\.name) + ["--help", "--version"]).joined(separator: " "))) -- \"$cur\"))",
            "        return",
            "    fi",
            "    case ${COMP_WORDS[1]} in",
        ]
        for command in commands {
            lines.append("    \(command.name))")
            lines.append("        if [[ $cur == -* ]]; then")
            lines.append("            COMPREPLY=($(compgen -W \(quoted(options(command).map(\.name).joined(separator: " "))) -- \"$cur\"))")
            lines.append("            return")
            lines.append("        fi")
            let valued = command.options.filter { $0.arity != .flag }
            if !valued.isEmpty {
                lines.append("        case $prev in")
                for option in valued {
                    let action = complete(option.kind)
                    lines.append("        \(option.name)) \(action.isEmpty ? "" : action + "; ")return ;;")
                }
                lines.append("        esac")
            }
            for operand in command.operands where !complete(operand.kind).isEmpty {
                lines.append("        " + complete(operand.kind))
            }
            lines.append("        ;;")
        }
        lines += [
            "    esac",
            "}",
            "",
            "complete -F _uwb2mqtt uwb2mqtt",
        ]
        return lines.joined(separator: "\n")
    }

    // MARK: - zsh

    /// Text inside an `_arguments` description (`--name[…]`): brackets and backslashes escaped.
    static func zshDescription(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("[", with: "\\[").replacing("]", with: "\\]")
    }

    static func zsh(_ commands: [CommandDeclaration]) -> String {
        func action(_ kind: ValueKind) -> String {
            switch kind {
            case .text: " "
            case .file: "_files"
            case .choice, .command: "(\(kind.words.joined(separator: " ")))"
            case .fileOr: "{_alternative \"words:word:(\(kind.words.joined(separator: " ")))\" \"files:file:_files\"}"
            }
        }
        func specification(_ option: Option) -> String {
            let help = "[\(zshDescription(option.help))]"
            switch option.arity {
            case .flag:
                return option.name + help
            case let .values(placeholders):
                let values = placeholders.map { ":\($0):\(action(option.kind))" }.joined()
                return option.name + (placeholders.count == 1 ? "=" : "") + help + values
            case let .optionalValue(placeholder):
                return option.name + help + "::\(placeholder):\(action(option.kind))"
            }
        }
        func specification(_ operand: Operand, position: Int) -> String {
            switch operand.arity {
            case .required: "\(position):\(operand.placeholder):\(action(operand.kind))"
            case .optional: "\(position)::\(operand.placeholder):\(action(operand.kind))"
            case .variadic: "*:\(operand.placeholder):\(action(operand.kind))"
            }
        }
        var lines = [
            "#compdef uwb2mqtt",
            "# zsh completion for uwb2mqtt, made by `uwb2mqtt completion zsh` from the commands' declarations.",
            "",
            "_uwb2mqtt() {",
            "    local -a commands",
            "    commands=(",
        ]
        lines += commands.map { "        " + quoted("\($0.name):\($0.abstract)") }
        lines += [
            "    )",
            "    if (( CURRENT == 2 )); then",
            "        _describe -t commands 'uwb2mqtt command' commands",
            "        return",
            "    fi",
            "    local command=$words[2]",
            "    shift words",
            "    (( CURRENT-- ))",
            "    case $command in",
        ]
        for command in commands {
            var specifications = command.options.map { quoted(specification($0)) }
            specifications.append("'(- *)'{-h,--help}'[\(zshDescription(HelpText.helpOption.help))]'")
            specifications += command.operands.enumerated().map { quoted(specification($1, position: $0 + 1)) }
            lines.append("    \(command.name))")
            lines.append("        _arguments -s \\")
            lines += specifications.map { "            " + $0 }.joined(separator: " \\\n").split(separator: "\n").map(String.init)
            lines.append("        ;;")
        }
        lines += [
            "    esac",
            "}",
            "",
            "# From $fpath the file is the function's body; sourced, it registers the function.",
            "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then",
            "    _uwb2mqtt \"$@\"",
            "else",
            "    compdef _uwb2mqtt uwb2mqtt",
            "fi",
        ]
        return lines.joined(separator: "\n")
    }

    // MARK: - fish

    /// `'text'` for fish, whose single quotes escape only `'` and `\`.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    static func fish(_ commands: [CommandDeclaration]) -> String {
        func values(_ kind: ValueKind) -> String {
            var flags: [String] = []
            if kind.completesFiles { flags.append("-F") }
            if !kind.words.isEmpty { flags.append("-a " + fishQuoted(kind.words.joined(separator: " "))) }
            return flags.joined(separator: " ")
        }
        var lines = [
            "# fish completion for uwb2mqtt, made by `uwb2mqtt completion fish` from the commands' declarations.",
            "",
            "complete -c uwb2mqtt -f",
        ]
        lines += commands.map { "complete -c uwb2mqtt -n __fish_use_subcommand -a \($0.name) -d \(fishQuoted($0.abstract))" }
        for command in commands {
            let condition = "-n " + fishQuoted("__fish_seen_subcommand_from \(command.name)")
            for option in options(command) {
                let name = option.name.dropFirst(2)
                var parts = ["complete -c uwb2mqtt", condition]
                parts.append(option == HelpText.helpOption ? "-s h -l \(name)" : "-l \(name)")
                if option.arity != .flag {
                    parts.append("-r")
                    let completion = values(option.kind)
                    if !completion.isEmpty { parts.append(completion) }
                }
                parts.append("-d " + fishQuoted(option.help))
                lines.append(parts.joined(separator: " "))
            }
            for operand in command.operands where !values(operand.kind).isEmpty {
                lines.append("complete -c uwb2mqtt \(condition) \(values(operand.kind)) -d \(fishQuoted(operand.help))")
            }
        }
        return lines.joined(separator: "\n")
    }
}
