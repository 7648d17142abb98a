// `uwb2mqtt-bench link-order BINARY CALLGRIND_OUT...`: the agent's link order
// (Sources/uwb2mqtt/link.order) from callgrind profiles of the agent, which `make link-order`
// takes while a quick bench drives it.
//
// Why an order at all: the kernel maps an executable's pages in blocks around each page a process
// touches (fault-around), and the functions a running agent needs are a megabyte spread over
// the 11 MB of code of the static binary, so that most of its resident set would be code it
// never runs. With the executed functions first in `.text` (lld's --symbol-ordering-file),
// they share a few contiguous pages; a function the order does not name is only placed after
// them.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The functions of one object that callgrind profiles saw execute, with their own (exclusive)
/// instruction counts.
struct ExecutedFunctions {
    private(set) var selfCost: [String: Int] = [:]

    /// Reads one callgrind output file (`--demangle=no`, so names are the symbols the linker
    /// knows) and adds the functions of the object at `objectPath`.
    ///
    /// The format names objects and functions once in full, then by number ("fn=(12) name",
    /// later "fn=(12)"); cost lines follow the function they belong to, and the one line after
    /// "calls=" is the callee's inclusive cost, which is not the caller's own.
    mutating func add(callgrindText text: Substring, objectPath: String) {
        var objects: [Substring: Substring] = [:]
        var functions: [Substring: Substring] = [:]
        var object: Substring = ""
        var function: Substring?
        var afterCall = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("ob=") {
                object = Self.name(line.dropFirst(3), table: &objects)
            } else if line.hasPrefix("fn=") {
                let name = Self.name(line.dropFirst(3), table: &functions)
                function = object == objectPath[...] ? Self.symbol(name) : nil
                // Listed even when all of its cost is in its callees: it ran, its page is needed.
                if let function { selfCost[String(function), default: 0] += 0 }
            } else if line.hasPrefix("cob=") {
                _ = Self.name(line.dropFirst(4), table: &objects)
            } else if line.hasPrefix("cfn=") {
                _ = Self.name(line.dropFirst(4), table: &functions)
            } else if line.hasPrefix("calls=") {
                afterCall = true
            } else if let first = line.first, first.isNumber || first == "+" || first == "-" || first == "*" {
                if afterCall { afterCall = false; continue }
                let fields = line.split(separator: " ")
                if let function, fields.count > 1, let cost = Int(fields[1]) { selfCost[String(function), default: 0] += cost }
            }
        }
    }

    /// The linker's name of a profiled function: callgrind marks a function's recursive or
    /// cycle contexts with a suffix ("swift_release'2"), and names code without a symbol by its
    /// address ("0x000000000060d270"), which no linker knows.
    private static func symbol(_ name: Substring) -> Substring? {
        if name.hasPrefix("0x") { return nil }
        if let quote = name.lastIndex(of: "'"), name[name.index(after: quote)...].allSatisfy(\.isNumber),
           quote != name.index(before: name.endIndex) {
            return name[..<quote]
        }
        return name
    }

    /// "(12) name" defines number 12, "(12)" uses it; a plain name stands for itself.
    private static func name(_ reference: Substring, table: inout [Substring: Substring]) -> Substring {
        guard reference.first == "(", let close = reference.firstIndex(of: ")") else { return reference }
        let number = reference[reference.index(after: reference.startIndex)..<close]
        let rest = reference[reference.index(after: close)...].drop { $0 == " " }
        if !rest.isEmpty { table[number] = rest }
        return table[number] ?? reference
    }

    /// Hottest first, so that the steady state's code shares the fewest pages; ties by name, so
    /// that the same profile gives the same file.
    var linkOrder: [String] {
        selfCost.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    }
}

/// A section larger than this holds many functions, most of which the agent does not run: our
/// largest function is some 10 KiB.
let largestOrderedSection = 32 * 1024

/// The `link-order` subcommand: prints the order, one symbol a line. With `--map`, the link map
/// of BINARY, names in sections larger than `largestOrderedSection` are left out (LinkerMap.swift).
func printLinkOrder(_ arguments: [String]) -> Int32 {
    var arguments = arguments[...]
    var leftOut: Set<String> = []
    if arguments.first == "--map", arguments.count >= 2 {
        guard let text = ProcFS.read(arguments[arguments.startIndex + 1]) else {
            fputs("uwb2mqtt-bench: cannot read \(arguments[arguments.startIndex + 1])\n", stderr)
            return 1
        }
        leftOut = LinkerMap(text: text[...]).symbols(inSectionsLargerThan: largestOrderedSection)
        arguments = arguments.dropFirst(2)
    }
    guard arguments.count >= 2, let binary = arguments.first else {
        fputs("usage: uwb2mqtt-bench link-order [--map LINK_MAP] BINARY CALLGRIND_OUT...\n", stderr)
        return 2
    }
    var executed = ExecutedFunctions()
    for path in arguments.dropFirst() {
        guard let text = ProcFS.read(path) else {
            fputs("uwb2mqtt-bench: cannot read \(path)\n", stderr)
            return 1
        }
        executed.add(callgrindText: text[...], objectPath: binary)
    }
    let order = executed.linkOrder.filter { !leftOut.contains($0) }
    guard !order.isEmpty else {
        fputs("uwb2mqtt-bench: no function of \(binary) in the profiles\n", stderr)
        return 1
    }
    print(order.joined(separator: "\n"))
    return 0
}
