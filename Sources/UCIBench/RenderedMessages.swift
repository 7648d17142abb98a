import Vocabulary

/// The agent's recorded messages (OwnMessagesFloor.swift) made again for every notification
/// instead of replayed: the least work any gateway saying exactly what the agent says must do
/// beyond forwarding. Each recorded PUBLISH becomes a template once, at start: its topic and
/// properties, and its payload as literal JSON with the numbers and timestamps taken out. Per
/// notification every number is formatted again from its value, every timestamp from the clock
/// (one text per notification, as the agent renders it once for all its messages), with the
/// agent's own formatters (`JSONBytes`, `Timestamp`), and each packet's header is written around
/// its payload. No rules, no state, no decisions: what is said is fixed by the recording.
struct RenderedMessages {
    private enum Piece {
        case literal(Range<Int>)
        case integer(Int64)
        case decimal(Double)
        case timestamp
    }

    private struct Template {
        var flags: UInt8
        /// Topic, packet identifier and properties: everything between the remaining length and
        /// the payload, as recorded.
        var head: Range<Int>
        var payload: [Piece]
    }

    /// Every literal byte of every template, which pieces point into.
    private var literals: [UInt8] = []
    private var groups: [[Template]] = []
    /// What a payload is written into, as the agent's outbox keeps it (a writer continues it).
    private var payloadBytes: ByteBuffer? = ByteBuffer(capacity: 1024)
    private(set) var formattedNumbers = 0

    var count: Int { groups.count }

    /// Nil when a group is not a run of MQTT 5 PUBLISH packets.
    init?(groups recorded: [[UInt8]]) {
        for group in recorded {
            var templates: [Template] = []
            var index = 0
            while index < group.count {
                guard group[index] >> 4 == 3, let (remaining, lengthBytes) = Self.variableInteger(group, at: index + 1) else { return nil }
                let body = (index + 1 + lengthBytes)..<(index + 1 + lengthBytes + remaining)
                guard body.upperBound <= group.count, body.count >= 2 else { return nil }
                var cursor = body.lowerBound
                cursor += 2 + (Int(group[cursor]) << 8 | Int(group[cursor + 1]))
                if group[index] & 0x06 != 0 { cursor += 2 }
                guard cursor < body.upperBound, let (propertiesLength, propertiesBytes) = Self.variableInteger(group, at: cursor) else { return nil }
                cursor += propertiesBytes + propertiesLength
                guard cursor <= body.upperBound else { return nil }
                let headStart = literals.count
                literals += group[body.lowerBound..<cursor]
                templates.append(Template(flags: group[index], head: headStart..<literals.count,
                                          payload: pieces(of: group[cursor..<body.upperBound])))
                index = body.upperBound
            }
            groups.append(templates)
        }
    }

    /// Group `index` rendered at `seconds` since the epoch, appended to `out`.
    mutating func render(_ index: Int, at seconds: Double, into out: inout [UInt8]) {
        let timestamp = Timestamp.rfc3339(seconds)
        for template in groups[index] {
            var payload = JSONBytes(continuing: payloadBytes.take()!)
            payload.removeAll()
            for piece in template.payload {
                switch piece {
                case let .literal(range):
                    literals.withUnsafeBufferPointer { payload.appendRendered(UnsafeBufferPointer(rebasing: $0[range])) }
                case let .integer(value):
                    payload.appendNumber(value)
                    formattedNumbers += 1
                case let .decimal(value):
                    payload.appendNumber(value)
                    formattedNumbers += 1
                case .timestamp:
                    payload.appendString(timestamp)
                }
            }
            var remaining = template.head.count + payload.count
            out.append(template.flags)
            repeat {
                let byte = UInt8(remaining & 0x7F)
                remaining >>= 7
                out.append(remaining > 0 ? byte | 0x80 : byte)
            } while remaining > 0
            out += literals[template.head]
            payload.withBytes(in: 0..<payload.count) { out.append(contentsOf: $0) }
            payloadBytes = payload.finish()
        }
    }

    /// A payload's bytes as pieces: numbers outside strings, and strings that are timestamps
    /// (24 bytes, `YYYY-MM-DDTHH:MM:SS.mmmZ`), taken out; the rest literal.
    private mutating func pieces(of bytes: ArraySlice<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        var literalStart = literals.count
        func closeLiteral() {
            if literals.count > literalStart { pieces.append(.literal(literalStart..<literals.count)) }
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                var end = index + 1
                while end < bytes.endIndex, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                guard end < bytes.endIndex else {
                    // A string without its closing quote (not JSON): the rest stays as it is.
                    literals += bytes[index...]
                    break
                }
                let content = bytes[(index + 1)..<end]
                if content.count == 24, content[content.startIndex + 10] == UInt8(ascii: "T"), content.last == UInt8(ascii: "Z") {
                    closeLiteral()
                    pieces.append(.timestamp)
                    literalStart = literals.count
                } else {
                    literals += bytes[index...end]
                }
                index = end + 1
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var end = index + 1
                while end < bytes.endIndex, Self.numberBytes.contains(bytes[end]) { end += 1 }
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                let piece: Piece? = Int64(text).map(Piece.integer) ?? Double(text).flatMap { $0.isFinite ? Piece.decimal($0) : nil }
                if let piece {
                    closeLiteral()
                    pieces.append(piece)
                    literalStart = literals.count
                } else {
                    // Not a number JSON has (`-`, `1e999`): kept as it is.
                    literals += bytes[index..<end]
                }
                index = end
            } else {
                literals.append(byte)
                index += 1
            }
        }
        closeLiteral()
        return pieces
    }

    private static let numberBytes = Set("0123456789.eE+-".utf8)

    private static func variableInteger(_ bytes: [UInt8], at start: Int) -> (value: Int, length: Int)? {
        var value = 0, shift = 0, index = start
        while index < bytes.count, index - start < 4 {
            value |= Int(bytes[index] & 0x7F) << shift
            if bytes[index] & 0x80 == 0 { return (value, index - start + 1) }
            shift += 7
            index += 1
        }
        return nil
    }
}
