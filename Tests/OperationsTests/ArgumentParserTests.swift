import Foundation
@testable import Commands
import Testing
import TestSupport

/// The one parser every command goes through: each form of the grammar, and every kind of usage
/// error as one message shape with exit status 2.
@Suite struct ArgumentParserTests {
    static let config = Option.value("--config", "FILE", help: "a file")
    static let out = Option.value("--out", "FILE", required: true, help: "where to write")
    static let json = Option.flag("--json", help: "JSON lines")
    static let position = Option.value("--position", "X,Y,Z", .text, help: "where it stands")
    static let compare = Option.values("--compare", ["OLD", "NEW"], help: "two files")
    static let simulate = Option.optionalValue("--simulate", "SCENARIO", .fileOr(["default"]), help: "a scenario")
    static let kind = Option.value("--kind", "KIND", .choice(["config", "rules"]), help: "which one")
    static let file = Operand("FILE", .required, .file, help: "the input")
    static let rest = Operand("HEX", .variadic, .text, help: "more")

    static let declaration = CommandDeclaration(
        name: "try", abstract: "exercise the parser",
        arguments: [.operand(file), .option(config), .option(out), .option(json), .option(position), .option(compare),
                    .option(simulate), .option(kind), .operand(rest)],
        exitStatuses: [])

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try ArgumentParser(declaration: Self.declaration).parse(arguments)
    }

    func problem(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            return error.problem
        }
    }

    @Test func valuesAfterASpaceOrAnEqualsSign() throws {
        let parsed = try parse(["in", "--config", "a.yaml", "--out=b.rec"])
        #expect(parsed.value(Self.config) == "a.yaml")
        #expect(parsed.value(Self.out) == "b.rec")
        #expect(parsed.value(Self.file) == "in")
        #expect(try parse(["in", "--out", "x", "--config=a=b"]).value(Self.config) == "a=b")
    }

    @Test func flagsAndAbsentOptions() throws {
        let parsed = try parse(["--json", "in", "--out", "x"])
        #expect(parsed.isSet(Self.json))
        #expect(!parsed.isSet(Self.config))
        #expect(parsed.value(Self.config) == nil)
        #expect(parsed.values(Self.rest) == [])
    }

    @Test func aValuedOptionTakesTheNextArgumentWhateverItLooksLike() throws {
        #expect(try parse(["in", "--out", "x", "--position", "-1,0,2"]).value(Self.position) == "-1,0,2")
    }

    @Test func severalValues() throws {
        #expect(try parse(["in", "--out", "x", "--compare", "old.yaml", "new.yaml"]).values(Self.compare) == ["old.yaml", "new.yaml"])
        #expect(try parse(["in", "--out", "x", "--compare=old.yaml", "new.yaml"]).values(Self.compare) == ["old.yaml", "new.yaml"])
    }

    @Test func anOptionalValueIsTakenUnlessAnOptionFollows() throws {
        let bare = try parse(["in", "--out", "x", "--simulate", "--json"])
        #expect(bare.isSet(Self.simulate))
        #expect(bare.value(Self.simulate) == nil)
        #expect(bare.isSet(Self.json))
        #expect(try parse(["--simulate", "with-angles", "in", "--out", "x"]).value(Self.simulate) == "with-angles")
        #expect(try parse(["in", "--out", "x", "--simulate=walk.yaml"]).value(Self.simulate) == "walk.yaml")
        // Taken as the value, so the operand must come first or after `--`.
        #expect(try parse(["--out", "x", "--simulate", "--", "in"]).value(Self.file) == "in")
    }

    @Test func operandsInOrderTheVariadicOneTakesTheRest() throws {
        let parsed = try parse(["in", "62", "--out", "x", "00", "-", "--", "--json", "-h"])
        #expect(parsed.value(Self.file) == "in")
        #expect(parsed.values(Self.rest) == ["62", "00", "-", "--json", "-h"])
        #expect(!parsed.isSet(Self.json))
    }

    @Test func choicesAreChecked() throws {
        #expect(try parse(["in", "--out", "x", "--kind", "rules"]).value(Self.kind) == "rules")
        #expect(problem(["in", "--out", "x", "--kind", "cfg"]) == "expected config or rules, found 'cfg'")
    }

    @Test(arguments: [
        (["in", "--out", "x", "--bogus"], "unknown option '--bogus'"),
        (["in", "--out", "x", "--bogus=1"], "unknown option '--bogus'"),
        (["in", "--out", "x", "-q"], "unknown option '-q'"),
        (["in", "--out"], "--out needs FILE"),
        (["in", "--out="], "--out needs FILE"),
        (["in", "--out", "x", "--compare", "old"], "--compare needs OLD NEW"),
        (["in", "--out", "x", "--json=yes"], "--json takes no value"),
        (["in", "--out", "x", "--out", "y"], "--out given twice"),
        (["in", "--out", "x", "--json", "--json"], "--json given twice"),
        (["in"], "--out FILE is required"),
        (["--out", "x"], "FILE is required"),
        (["in", "--out", "x", "--simulate="], "--simulate= needs SCENARIO"),
    ])
    func usageErrors(arguments: [String], expected: String) {
        #expect(problem(arguments) == expected)
    }

    @Test func anExtraOperandIsAnError() {
        let declaration = CommandDeclaration(name: "one", abstract: "one operand",
                                             arguments: [.operand(Self.file)], exitStatuses: [])
        #expect(throws: UsageError("unexpected argument 'b'")) { try ArgumentParser(declaration: declaration).parse(["a", "b"]) }
    }

    @Test func helpWinsUnlessAfterTheEndOfOptions() {
        #expect(ArgumentParser.asksForHelp(["--bogus", "--help"]))
        #expect(ArgumentParser.asksForHelp(["-h"]))
        #expect(!ArgumentParser.asksForHelp(["--", "--help"]))
        #expect(!ArgumentParser.asksForHelp(["--helpful"]))
    }

    /// Runs the whole command line in process; returns (status, stdout lines, stderr lines).
    static func main(_ arguments: [String]) -> (Int32, [String], [String]) {
        let output = Lines()
        let errors = Lines()
        let status = CommandLineTool.main(arguments, console: Console(output: output.append, errors: errors.append))
        return (status, output.all, errors.all)
    }

    /// Every command reports a bad command line the same way: one stderr line naming the command
    /// and where to read its help, nothing on stdout, exit status 2.
    @Test(arguments: [
        ["run", "--bogus"], ["run", "extra"], ["run", "--config"],
        ["check", "--bogus"], ["check", "--config"], ["check", "extra"], ["check", "--config", "a", "--config", "b"],
        ["doctor", "--frobnicate"], ["ports", "extra"], ["decode", "--json=yes"], ["simulate", "--position", "1,2"],
        ["simulate", "a", "b"], ["record"], ["record", "--out"], ["replay"], ["replay", "a", "b"], ["replay", "x", "--compare", "old"],
        ["fuse"], ["fuse", "--config"], ["schema"], ["schema", "cfg"], ["version", "extra"], ["help", "nope"],
        ["completion"], ["completion", "tcsh"], ["man"], ["man", "uwb2mqtt.1"], ["man", "uwb2mqtt", "uwb2mqtt.yaml"],
    ])
    func everyCommandHasOneUsageErrorShape(arguments: [String]) throws {
        let (status, output, errors) = Self.main(arguments)
        let command = arguments[0]
        #expect(status == ExitStatus.usage)
        #expect(output.isEmpty)
        #expect(errors.count == 1)
        let line = try #require(errors.first)
        #expect(line.hasPrefix("uwb2mqtt: \(command): "), "\(line)")
        #expect(line.hasSuffix(" (run 'uwb2mqtt help \(command)')"), "\(line)")
    }

    @Test func anUnknownCommandPointsAtTheCommandList() {
        let (status, output, errors) = Self.main(["frobnicate"])
        #expect(status == ExitStatus.usage)
        #expect(output.isEmpty)
        #expect(errors == ["uwb2mqtt: unknown command 'frobnicate' (run 'uwb2mqtt help')"])
        let (bare, _, overview) = Self.main([])
        #expect(bare == ExitStatus.usage)
        #expect(overview.first?.hasPrefix("uwb2mqtt ") == true)
    }

    /// The command lines cli-and-config.md documents parse as written.
    @Test(arguments: [
        ["run"], ["run", "--config", "FILE"], ["run", "--simulate"], ["run", "--simulate", "with-faults"],
        ["run", "--config", "FILE", "--simulate", "SCENARIO"],
        ["check", "--config", "FILE", "--rules", "FILE"], ["ports"], ["decode", "--json", "62", "00"], ["decode"],
        ["simulate", "--link", "PATH", "SCENARIO"], ["simulate", "--link", "PATH", "--position", "1,2,0.5", "with-angles"],
        ["record", "--out", "FILE", "--config", "FILE"], ["record", "--out", "FILE", "--simulate"],
        ["replay", "FILE", "--config", "FILE", "--rules", "FILE", "--fast", "--topics", "--svg", "OUT"],
        ["replay", "FILE", "--config", "FILE", "--compare", "OLD_RULES", "NEW_RULES"],
        ["schema", "config"], ["schema", "rules"], ["fuse", "--config", "FILE"], ["doctor", "--config", "FILE"],
        ["watch"], ["watch", "--config", "FILE", "--gateway", "lobby,kitchen"], ["watch", "--broker", "mqtt://10.0.0.2:1883", "--plain"],
        ["version"], ["help"], ["help", "replay"], ["completion", "bash"], ["completion", "zsh"], ["completion", "fish"],
        ["man", "uwb2mqtt"], ["man", "uwb2mqtt.yaml"],
    ])
    func documentedCommandLinesParse(arguments: [String]) throws {
        let command = try #require(CommandLineTool.command(named: arguments[0]))
        #expect(throws: Never.self) { try command.init(ArgumentParser(declaration: command.declaration).parse(Array(arguments.dropFirst()))) }
    }
}
