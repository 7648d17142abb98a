/// The input sections of an lld link map (`-Map=FILE`), as far as the link order needs them:
/// which section each symbol was defined in, and how large that section is.
///
/// The order moves input sections, not functions. Our modules are compiled with a section per
/// function (`-function-sections`, Package.swift), but a prebuilt library may hold all of an
/// object's code in one section: a name in libswiftCore's 1.5 MB `Swift.o` would pull all of it
/// in among the hot functions, most of it code the agent never runs.
struct LinkerMap {
    /// The size of each named symbol's input section, in bytes.
    private(set) var sectionSize: [String: Int] = [:]

    /// lld's map has a header line, then one line per output section, input section and symbol:
    /// `VMA LMA Size Align` in hexadecimal (the alignment in decimal) and a name whose
    /// indentation says which it is: none for an output section, 8 spaces for an input
    /// section, 16 for a symbol, which belongs to the input section above it.
    init(text: Substring) {
        var currentSize: Int?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let (size, depth, name) = Self.entry(line) else { continue }
            switch depth {
            case 0: currentSize = nil
            case 8: currentSize = size
            default: if let currentSize { sectionSize[String(name)] = currentSize }
            }
        }
    }

    /// The symbols defined in input sections larger than `limit` bytes.
    func symbols(inSectionsLargerThan limit: Int) -> Set<String> {
        Set(sectionSize.compactMap { $0.value > limit ? $0.key : nil })
    }

    private static func entry(_ line: Substring) -> (size: Int, depth: Int, name: Substring)? {
        var rest = line[...]
        var fields: [Substring] = []
        for _ in 0..<4 {
            rest = rest.drop { $0 == " " }
            let field = rest.prefix { $0 != " " }
            guard !field.isEmpty else { return nil }
            fields.append(field)
            rest = rest.dropFirst(field.count)
        }
        // One space separates the alignment from the name's column.
        guard let size = Int(fields[2], radix: 16), Int(fields[3]) != nil, rest.first == " " else { return nil }
        rest = rest.dropFirst()
        let name = rest.drop { $0 == " " }
        guard !name.isEmpty else { return nil }
        return (size, rest.count - name.count, name)
    }
}
