import Service
import Foundation
@testable import Commands
import Gateway
import OfflineTools
import Testing
import TestSupport

/// `uwb2mqtt man uwb2mqtt|uwb2mqtt.yaml`: manual pages made from the commands' declarations and
/// the configuration's schema, checked as a reader sees them (rendered by groff, as `man` does).
@Suite struct ManualPageTests {
    static let commands = CommandLineTool.commands.map { $0.declaration }
    static let groff = "/usr/bin/groff"
    static var hasGroff: Bool { FileManager.default.isExecutableFile(atPath: groff) }

    func man(_ arguments: [String]) -> (Int32, String, [String]) {
        let output = Lines()
        let errors = Lines()
        let status = CommandLineTool.main(["man"] + arguments, console: Console(output: output.append, errors: errors.append))
        return (status, output.text, errors.all)
    }

    /// Words apart by one space, as text reads whatever the line breaks; the quotes and hyphens
    /// groff may print as typographic ones back in ASCII; `code` spans, bold on the page, plain.
    static func flattened(_ text: String) -> String {
        text.replacing("`", with: "")
            .replacing("\u{2010}", with: "-").replacing("\u{2212}", with: "-")
            .replacing("\u{2018}", with: "'").replacing("\u{2019}", with: "'")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The page rendered by groff as `man` would (plain text, lines long enough never to break,
    /// no hyphenation), flattened, and what groff warned about with every warning on (`-ww`).
    func render(_ page: String) async throws -> (text: String, warnings: String) {
        let directory = try TemporaryDirectory(prefix: "man")
        let source = try directory.write("page", page)
        let child = try ChildProcess(executable: Self.groff,
                                     arguments: ["-man", "-Tutf8", "-ww", "-rHY=0", "-rLL=4000n", "-P-cbou", source],
                                     stdoutPath: directory.file("out"), stderrPath: directory.file("err"),
                                     environment: ["LC_ALL": "C.UTF-8"])
        guard let termination = await child.waitForExit(timeout: .seconds(60)) else {
            child.terminate()
            Issue.record("groff did not finish")
            return ("", "")
        }
        #expect(termination == .exited(0))
        let text = try String(contentsOfFile: directory.file("out"), encoding: .utf8)
        return (Self.flattened(text), try String(contentsOfFile: directory.file("err"), encoding: .utf8))
    }

    @Test func manPrintsEachPageAndNothingElse() {
        let (status, commands, errors) = man(["uwb2mqtt"])
        #expect(status == ExitStatus.success)
        #expect(errors.isEmpty)
        #expect(commands.contains("\n.TH UWB2MQTT 1 \"\" \"uwb2mqtt \(AgentVersion.agent)\" \"User Commands\"\n"))
        #expect(commands.contains("\n.SH NAME\nuwb2mqtt \\- a UWB proximity gateway"))
        let (configStatus, configuration, _) = man(["uwb2mqtt.yaml"])
        #expect(configStatus == ExitStatus.success)
        #expect(configuration.contains("\n.TH UWB2MQTT.YAML 5 "))
        #expect(configuration.contains("\n.SH NAME\nuwb2mqtt.yaml \\- configuration file of the uwb2mqtt gateway agent\n"))
        let (bad, output, refusal) = man(["uwb2mqtt.1"])
        #expect(bad == ExitStatus.usage)
        #expect(output.isEmpty)
        #expect(refusal == ["uwb2mqtt: man: expected uwb2mqtt or uwb2mqtt.yaml, found 'uwb2mqtt.1' (run 'uwb2mqtt help man')"])
    }

    /// uwb2mqtt(1) shows every command with its usage, abstract, discussion, operands and options
    /// with their help, and exit statuses: what `help COMMAND` says.
    @Test(.enabled(if: hasGroff, "groff is not installed (make deps installs it with lintian)"))
    func theCommandsPageSaysWhatEachCommandsHelpSays() async throws {
        let (text, warnings) = try await render(ManualPage.commands(Self.commands, version: AgentVersion.agent))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(text.hasPrefix("UWB2MQTT(1) User Commands UWB2MQTT(1) NAME uwb2mqtt - " + HelpText.tagline))
        for command in Self.commands {
            let name = command.name
            #expect(text.contains(Self.flattened((["uwb2mqtt", name] + command.usageItems).joined(separator: " "))), "synopsis of \(name)")
            #expect(text.contains("uwb2mqtt \(name) " + HelpText.sentence(command.abstract)), "\(name)")
            if !command.discussion.isEmpty {
                #expect(text.contains(Self.flattened(command.discussion)), "discussion of \(name)")
            }
            for operand in command.operands {
                let shown = if case let .choice(words) = operand.kind { words.joined(separator: "|") } else { operand.placeholder }
                #expect(text.contains(Self.flattened(shown + " " + operand.help)), "\(name) \(operand.placeholder)")
            }
            for option in command.options {
                #expect(text.contains(Self.flattened(option.synopsis + " " + option.help)), "\(name) \(option.name)")
            }
            #expect(text.contains("-h, --help show this help Exit status: "
                                  + Self.flattened(HelpText.exitStatuses(command).joined(separator: ", ")) + "."), "\(name)")
        }
        for meaning in ExitStatus.summary {
            #expect(text.contains("\(meaning.status) " + HelpText.sentence(meaning.text)))
        }
        #expect(text.contains("FILES \(AgentConfiguration.defaultPath) "))
        #expect(text.contains("SEE ALSO uwb2mqtt.yaml(5)"))
    }

    /// Every key path of the configuration's schema, `device.peers[].address` for a list's items,
    /// with its description.
    static func keyPaths(_ object: [String: Any], prefix: String) -> [(String, String?)] {
        let properties = object["properties"] as? [String: Any] ?? [:]
        return properties.flatMap { key, value -> [(String, String?)] in
            let child = value as? [String: Any] ?? [:]
            let path = prefix.isEmpty ? key : prefix + "." + key
            var paths = [(path, child["description"] as? String)] + keyPaths(child, prefix: path)
            if let items = child["items"] as? [String: Any] { paths += keyPaths(items, prefix: path + "[]") }
            return paths
        }
    }

    /// uwb2mqtt.yaml(5) names every key the schema has (read here as JSON, apart from the page's
    /// own reading) with its description, its default and what it accepts.
    @Test(.enabled(if: hasGroff, "groff is not installed (make deps installs it with lintian)"))
    func theConfigurationPageHasEveryKeyOfTheSchema() async throws {
        let (text, warnings) = try await render(ManualPage.configuration(schema: Schemas.config, version: AgentVersion.agent))
        #expect(warnings.isEmpty, "\(warnings)")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(Schemas.config.utf8)) as? [String: Any])
        let paths = Self.keyPaths(schema, prefix: "")
        #expect(paths.count > 60)
        // A top-level mapping is a section, its description below its name; every other key is
        // its path, its description, then what it accepts.
        for (path, description) in paths {
            #expect(text.contains(" \(path) " + Self.flattened(description.map(ManualPage.sentence) ?? "Value:")), "\(path)")
        }
        #expect(text.contains("device.channel UWB channel; all devices of a session must agree. Value: one of 5, 9. Default: 9."))
        #expect(text.contains("device.peers[].address The peer's short MAC address. Value: short address. Required."))
        #expect(text.contains("mqtt.keepalive MQTT keepalive, 5s to 65535s; the broker drops the agent after 1.5 times this. "
                              + "Value: number from 5 to 65535 or duration text. Default: 30s."))
        #expect(text.contains("VALUES The kinds of value the keys above name. short address A short MAC address"))
        #expect(text.contains(Self.flattened(ManualPage.example)))
    }

    /// The page's EXAMPLE is a configuration `check` accepts.
    @Test func theConfigurationPagesExampleIsValid() throws {
        let directory = try TemporaryDirectory(prefix: "man")
        let path = try directory.write("config.yaml", ManualPage.example + "\n")
        let report = CheckCommand.check(configPath: path)
        #expect(report.isValid, "\(report.findings)")
        #expect(report.configuration?.device.peers.map(\.name) == ["counter", "cart-1"])
    }

    @Test func roffTextIsEscaped() {
        // Options' hyphens are minus signs; a word's own hyphens are not.
        #expect(Roff.text("--config, (--fuse-config) and Ctrl-C") == #"\-\-config, (\-\-fuse\-config) and Ctrl-C"#)
        // Code is bold and literal; backslashes and characters beyond ASCII are escaped.
        #expect(Roff.text("run `sudo -u uwb2mqtt 'x'` — a\\b") == #"run \fBsudo \-u uwb2mqtt \(aqx\(aq\fR \[u2014] a\eb"#)
        // A lone backtick is only a character.
        #expect(Roff.text("a ` b") == "a ` b")
        // A line roff would read as a request.
        #expect(Roff.line(".config") == #"\&.config"#)
        #expect(Roff.line("'quoted'") == #"\&'quoted'"#)
    }
}
