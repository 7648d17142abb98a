import Foundation
@testable import Commands
import Testing
import TestSupport

/// `uwb2mqtt schema config|rules|api` prints the schema asked for.
@Suite struct SchemaCommandTests {
    func schema(_ arguments: [String]) -> (Int32, String, [String]) {
        let output = Lines()
        let errors = Lines()
        let status = SchemaCommand.main(arguments, console: Console(output: output.append, errors: errors.append))
        return (status, output.text, errors.all)
    }

    func title(_ json: String) -> String? {
        let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        return object?["title"] as? String
    }

    @Test func printsTheSchemaAskedFor() {
        let (status, config, errors) = schema(["config"])
        #expect(status == ExitStatus.success)
        #expect(errors.isEmpty)
        #expect(title(config) == "uwb2mqtt configuration")
        #expect(title(schema(["rules"]).1) == "uwb2mqtt proximity rules, version 1")
    }

    @Test func badUsage() {
        #expect(schema([]).0 == ExitStatus.usage)
        let (status, output, errors) = schema(["cfg"])
        #expect(status == ExitStatus.usage)
        #expect(output.isEmpty)
        #expect(errors == ["uwb2mqtt: schema: expected config, rules or api, found 'cfg' (run 'uwb2mqtt help schema')"])
        #expect(schema(["--help"]).1.hasPrefix("Usage: uwb2mqtt schema config|rules|api"))
    }
}
