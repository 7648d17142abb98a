@testable import Commands
import Testing
import TestSupport

/// `help COMMAND`, `COMMAND --help` and `COMMAND -h` for every command, made from its declaration.
@Suite struct HelpTextTests {
    static let names = CommandLineTool.commands.map { $0.declaration.name }

    func main(_ arguments: [String]) -> (Int32, String, [String]) {
        let output = Lines()
        let errors = Lines()
        let status = CommandLineTool.main(arguments, console: Console(output: output.append, errors: errors.append))
        return (status, output.text, errors.all)
    }

    @Test(arguments: names)
    func everyCommandHasHelpFromItsDeclaration(name: String) throws {
        let declaration = try #require(CommandLineTool.command(named: name)).declaration
        let (status, help, errors) = main(["help", name])
        #expect(status == ExitStatus.success)
        #expect(errors.isEmpty)
        #expect(help.hasPrefix("Usage: uwb2mqtt \(name)"))
        #expect(help.contains(HelpText.sentence(declaration.abstract)))
        let flattened = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for option in declaration.options {
            #expect(help.contains("  " + option.synopsis), "\(name): \(option.name)")
            #expect(flattened.contains(option.help.split(separator: " ").joined(separator: " ")), "\(name): \(option.name)")
        }
        for operand in declaration.operands {
            #expect(help.contains("  " + operand.placeholder), "\(name): \(operand.placeholder)")
            #expect(flattened.contains(operand.help), "\(name): \(operand.placeholder)")
        }
        #expect(help.contains("  -h, --help"))
        #expect(flattened.contains("Exit status: "))
        #expect(flattened.hasSuffix("2 for bad usage."))
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= HelpText.width }, "\(help)")

        #expect(main([name, "--help"]) == (ExitStatus.success, help, []))
        #expect(main([name, "-h"]) == (ExitStatus.success, help, []))
    }

    @Test func theOverviewListsEveryCommandWithItsAbstract() {
        let (status, overview, _) = main(["help"])
        #expect(status == ExitStatus.success)
        for command in CommandLineTool.commands {
            #expect(overview.contains("  \(command.declaration.name)"))
            #expect(overview.contains(command.declaration.abstract))
        }
        #expect(main(["--help"]).1 == overview)
    }

    @Test func optionHelpIsWrappedBesideTheNames() {
        let text = HelpText.table([("--short", "one two three"), ("--a-very-long-option-name VALUE", "four")])
        // Names wider than the name column put their help on the next line, at the same column.
        let column = String(repeating: " ", count: HelpText.nameColumn + 4)
        let expected: [String] = [
            "  --short" + column.dropFirst("  --short".count) + "one two three",
            "  --a-very-long-option-name VALUE",
            column + "four",
        ]
        #expect(text == expected.joined(separator: "\n"))
    }

    @Test func aLongUsageLineBreaksBetweenArguments() {
        let usage = HelpText.usage(ReplayCommand.declaration)
        #expect(usage.split(separator: "\n").count == 2)
        #expect(usage.contains("\n" + String(repeating: " ", count: "Usage: uwb2mqtt replay ".count) + "["))
    }
}
