import Vocabulary
import YAMLCoding

/// A byte count: `65536`, `64KiB`, `64MiB`, `1GiB` (also KB/MB/GB as powers of 1000).
public struct ByteSize: Hashable, Sendable, Decodable {
    public var bytes: Int

    public init(bytes: Int) { self.bytes = bytes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self), number >= 0 {
            bytes = number
            return
        }
        let text = (try? container.decode(String.self)) ?? ""
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1000),
                                      ("MB", 1_000_000), ("GB", 1_000_000_000), ("B", 1)]
        for (unit, factor) in units where text.hasSuffix(unit) {
            if let value = Double(String(text.dropLast(unit.count)).trimmingWhitespace()), value >= 0, value * Double(factor) < Double(Int.max) {
                bytes = Int(value * Double(factor))
                return
            }
        }
        let mark = SourceLocating.mark(of: decoder) ?? SourceMark(file: "<config>", line: 0, column: 0)
        throw SourceError(at: mark, "expected a size such as 64MiB or 1048576, found \(Excerpt.quoted(text))")
    }
}

/// A short MAC address as the config writes it: `0x0001` (the notation of `decode`) or a plain
/// integer.
public struct ShortAddress: Hashable, Sendable, Decodable, CustomStringConvertible {
    public var value: UInt16

    public init(_ value: UInt16) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let mark = SourceLocating.mark(of: decoder) ?? SourceMark(file: "<config>", line: 0, column: 0)
        if let number = try? container.decode(Int.self) {
            guard (0...0xFFFF).contains(number) else {
                throw SourceError(at: mark, "a short address is 0x0000 to 0xFFFF, found \(number)")
            }
            value = UInt16(number)
            return
        }
        let text = (try? container.decode(String.self)) ?? ""
        var digits = Substring(text.trimmingWhitespace())
        if digits.lowercased().hasPrefix("0x") { digits = digits.dropFirst(2) }
        guard let parsed = UInt16(digits, radix: 16), !digits.isEmpty else {
            throw SourceError(at: mark, "expected a short address such as 0x0001, found \(Excerpt.quoted(text))")
        }
        value = parsed
    }

    public var description: String { "0x" + String(value, radix: 16, uppercase: true).leftPadded(to: 4) }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
