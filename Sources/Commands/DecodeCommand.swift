import Vocabulary
import Gateway
import UCI

/// `uwb2mqtt decode [--json] [HEX …]`: UCI packets given as hex, one per argument or one per
/// stdin line, decoded to text or JSON lines (cli-and-config.md, "decode --json output").
///
/// Consecutive segments of one message (PBF) are joined and decoded once. A line holding
/// several whole packets back to back (a capture pasted as is) is split into them; anything
/// else whose length disagrees with its header is reported as malformed. Arguments that are all
/// shorter than a header (a packet typed unquoted, one byte an argument) are read as one packet. Malformed input yields
/// `{"error", "payload"}` and exit status 1 after the rest is decoded.
public struct DecodeCommand: Command {
    static let json = Option.flag("--json", help: "one JSON object per decoded message (keys as in cli-and-config.md)")
    static let packets = Operand("HEX", .variadic, .text, help: "one UCI packet in hex; without any, one a line from standard input")

    static let declaration = CommandDeclaration(
        name: "decode", abstract: "decode UCI packets given as hex",
        discussion: """
        Each argument is one UCI packet in hex; spaces, ':', '.', ',' separators and 0x prefixes
        are allowed. Without arguments, reads one packet a line from standard input (blank lines
        and lines starting with '#' are skipped). Segments of one message (PBF) given as
        consecutive packets are joined and decoded once; a line with several whole packets back
        to back is split into them.
        """,
        arguments: [.option(json), .operand(packets)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "when every packet decoded"),
                       ExitStatus.Meaning(ExitStatus.failure, "when any was malformed (reported as {\"error\": …, \"payload\": …} after the rest are decoded)")])

    /// JSON lines rather than text.
    public var json: Bool
    /// The packets given as arguments; none: read standard input.
    public var hex: [String]

    public init(json: Bool, hex: [String] = []) {
        self.json = json
        self.hex = hex
    }

    init(_ arguments: ParsedArguments) {
        self.init(json: arguments.isSet(Self.json), hex: arguments.values(Self.packets))
    }

    /// What one input produced: a decoded message, or an error with the bytes it concerns.
    public enum Outcome: Equatable {
        case message(UCIMessage)
        case error(String, bytes: [UInt8])
    }

    /// Decodes inputs (hex strings) in order, joining segments across them.
    public static func decode(_ inputs: [String]) -> [Outcome] {
        var decoder = Decoder()
        var outcomes: [Outcome] = []
        for input in inputs { outcomes += decoder.feed(input) }
        outcomes += decoder.finish()
        return outcomes
    }

    /// The rendering of one outcome: a JSON object, or a block of text.
    public func render(_ outcome: Outcome) -> String {
        switch outcome {
        case let .message(message):
            let raw = message.raw
            if json {
                return FieldRendering.json([
                    JSONMember("mt", .string(raw.messageType.description)), JSONMember("gid", .int(Int64(raw.gid))),
                    JSONMember("oid", .int(Int64(raw.oid))), JSONMember("name", .string(raw.name)), JSONMember("pbf", .bool(false)),
                    JSONMember("payload", .string(Hex.string(raw.payload))),
                ] + message.fields)
            }
            var head = "\(raw.name) (\(raw.messageType), gid \(hexByte(raw.gid)), oid \(hexByte(raw.oid)), \(raw.payload.count) payload byte\(raw.payload.count == 1 ? "" : "s"))"
            if case .other = message { head += "\n  payload: \(Hex.string(raw.payload))" }
            if case .command(.unknown) = message { head += "\n  payload: \(Hex.string(raw.payload))" }
            if case .response(.unknown) = message { head += "\n  payload: \(Hex.string(raw.payload))" }
            if case .notification(.unknown) = message { head += "\n  payload: \(Hex.string(raw.payload))" }
            let body = FieldRendering.text(message.fields, indent: 2)
            return body.isEmpty ? head : head + "\n" + body
        case let .error(what, bytes):
            if json {
                return FieldRendering.json([JSONMember("error", .string(what)), JSONMember("payload", .string(Hex.string(bytes)))])
            }
            return "malformed: \(what)\n  payload: \(Hex.string(bytes))"
        }
    }

    /// The longest input line decoded (a UCI message is at most a few KiB as hex); a longer one
    /// is skipped with an error, never held whole.
    static let maximumLineBytes = 1 << 20

    func run(_ console: Console) -> Int32 {
        run(readLine: nil, write: console.output)
    }

    /// Decodes `hex` (or stdin lines when there are none) and returns the exit status: 0 when
    /// everything decoded, 1 when anything was malformed.
    public func run(readLine: (() -> InputLine?)?, write: (String) -> Void) -> Int32 {
        var stdin = BoundedLineReader(limit: Self.maximumLineBytes)
        let readLine = readLine ?? { stdin.next() }
        var decoder = Decoder()
        var failed = false
        func emit(_ outcomes: [Outcome]) {
            for outcome in outcomes {
                if case .error = outcome { failed = true }
                write(render(outcome))
            }
        }
        if hex.isEmpty {
            var number = 0
            while let input = readLine() {
                number += 1
                guard case let .text(line) = input else {
                    if case let .tooLong(bytes) = input {
                        emit([.error("line \(number) is \(bytes) bytes; lines are at most \(Self.maximumLineBytes) bytes", bytes: [])])
                    }
                    continue
                }
                let trimmed = line.trimmingWhitespace()
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                emit(decoder.feed(trimmed))
            }
        } else if hex.count > 1, hex.allSatisfy({ ((try? Hex.bytes($0))?.count ?? 4) < PacketHeader.size }) {
            // `decode 62 00 00 38 …` unquoted: no argument can be a packet alone, so they are one.
            emit(decoder.feed(hex.joined(separator: " ")))
        } else {
            for argument in hex { emit(decoder.feed(argument)) }
        }
        emit(decoder.finish())
        return failed ? ExitStatus.failure : ExitStatus.success
    }

    /// Parses inputs one at a time and carries PBF segments from one input to the next.
    struct Decoder {
        private var pending: (header: PacketHeader, payload: [UInt8])?

        mutating func feed(_ text: String) -> [Outcome] {
            let bytes: [UInt8]
            do {
                bytes = try Hex.bytes(text)
            } catch {
                return [.error(error.description, bytes: [])]
            }
            if bytes.isEmpty { return [] }
            let packets: [Packet]
            do {
                packets = try Self.split(bytes)
            } catch {
                return [.error(error.description, bytes: bytes)]
            }
            var outcomes: [Outcome] = []
            for packet in packets { outcomes += take(packet) }
            return outcomes
        }

        /// Reports a segmented message whose last segment never came.
        mutating func finish() -> [Outcome] {
            guard let open = pending else { return [] }
            pending = nil
            return [.error("incomplete segmented message: the last segment (PBF=0) of \(Self.name(open.header)) is missing",
                           bytes: open.payload)]
        }

        private mutating func take(_ packet: Packet) -> [Outcome] {
            var outcomes: [Outcome] = []
            var header = packet.header
            var payload = packet.payload
            if let open = pending {
                if Self.sameMessage(open.header, header) {
                    payload = open.payload + payload
                    pending = nil
                } else {
                    outcomes.append(.error("segmented message \(Self.name(open.header)) interrupted by \(Self.name(header)) before its last segment",
                                           bytes: open.payload))
                    pending = nil
                }
            }
            if header.moreSegmentsFollow {
                pending = (header, payload)
                return outcomes
            }
            header.payloadLength = payload.count
            let raw = RawMessage(messageType: header.messageType, gid: header.gid, oid: header.oid, payload: payload)
            do {
                outcomes.append(.message(try UCIMessage(decoding: raw)))
            } catch {
                outcomes.append(.error("\(raw.name): \(Self.strip(error.description, raw.name))", bytes: payload))
            }
            return outcomes
        }

        private static func strip(_ text: String, _ name: String) -> String {
            text.hasPrefix(name + ": ") ? String(text.dropFirst(name.count + 2)) : text
        }

        private static func sameMessage(_ a: PacketHeader, _ b: PacketHeader) -> Bool {
            a.messageType == b.messageType && a.gid == b.gid && a.oid == b.oid
        }

        private static func name(_ h: PacketHeader) -> String { MessageName.name(h.messageType, gid: h.gid, oid: h.oid) ?? "UNKNOWN" }

        /// One packet, or several whole packets back to back; otherwise the first header's
        /// length mismatch.
        static func split(_ bytes: [UInt8]) throws(UCIDecodingError) -> [Packet] {
            let first = try PacketHeader(decoding: bytes)
            let actual = bytes.count - PacketHeader.size
            if actual == first.payloadLength { return [try Packet(decoding: bytes)] }
            if actual > first.payloadLength {
                var packets: [Packet] = []
                var offset = 0
                while offset < bytes.count {
                    let rest = Array(bytes[offset...])
                    guard let header = try? PacketHeader(decoding: rest),
                          rest.count >= PacketHeader.size + header.payloadLength else {
                        throw .lengthMismatch(declared: first.payloadLength, actual: actual)
                    }
                    let end = offset + PacketHeader.size + header.payloadLength
                    packets.append(Packet(header: header, payload: Array(bytes[offset + PacketHeader.size..<end])))
                    offset = end
                }
                return packets
            }
            throw .lengthMismatch(declared: first.payloadLength, actual: actual)
        }
    }
}
