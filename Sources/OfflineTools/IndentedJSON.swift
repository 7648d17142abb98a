import Vocabulary

/// JSON for people to read and diff: one member or item a line, indented by two spaces a level,
/// scalars as the one writer (`JSONBytes`) writes them. What `uwb2mqtt schema api` prints.
enum IndentedJSON {
    static func text(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out
    }

    private static func write(_ value: JSONValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case let .object(members) where !members.isEmpty:
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += inner + JSONValue.string(member.key).json + ": "
                write(member.value, indent: inner, into: &out)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        case let .list(items) where !items.isEmpty && items.contains(where: { if case .object = $0 { true } else if case .list = $0 { true } else { false } }):
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += inner
                write(item, indent: inner, into: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        default:
            // Scalars, empty containers and lists of scalars stay on one line.
            out += value.json
        }
    }
}
