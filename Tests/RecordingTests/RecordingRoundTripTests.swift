import Foundation
import Testing
@testable import Recording
import Vocabulary

/// Writer and reader agree, damage costs only the damaged record, rotation keeps order and bounds.
@Suite struct RecordingRoundTripTests {
    static let start: Int64 = 1_790_000_000_000_000

    /// Ranging-notification-sized packets with distinct bytes, 200 ms apart.
    static func packets(_ count: Int) -> [RecordedPacket] {
        (0..<count).map { i in
            let length = 20 + (i * 7) % 60
            let bytes = [0x62, 0x00, 0x00, UInt8(length - 4)] + (0..<(length - 4)).map { UInt8(truncatingIfNeeded: i &* 31 &+ $0) }
            return RecordedPacket(receiveTime: start + Int64(i) * 200_000 + Int64(i % 3), bytes: bytes)
        }
    }

    static func write(_ packets: [RecordedPacket], to path: String, metadata: String = "") throws -> RecordingWriter {
        let writer = try RecordingWriter(path: path, startTime: start, metadata: metadata)
        for p in packets { try writer.append(p.bytes, receivedAt: p.receiveTime, flags: p.flags) }
        try writer.close()
        return writer
    }

    static func strip(_ packets: [RecordedPacket]) -> [RecordedPacket] {
        packets.map { RecordedPacket(receiveTime: $0.receiveTime, bytes: $0.bytes, flags: $0.flags) }
    }

    @Test func roundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("walk.uwbrec")
        var written = Self.packets(200)
        written[5].flags = .hostToDevice
        written[6].receiveTime = Self.start - 1_500_000   // the wall clock stepped back
        written.append(RecordedPacket(receiveTime: Self.start + 99, bytes: [UInt8](repeating: 0xA5, count: RecordingFormat.maximumPacketLength)))
        let metadata = #"{"gateway": "lobby", "peers": [{"address": "0x0001", "name": "tool-cart"}]}"#
        let writer = try Self.write(written, to: path, metadata: metadata)
        #expect(writer.recordCount == written.count)

        let reader = try RecordingReader(path: path)
        #expect(reader.header == RecordingHeader(startTime: Self.start, segment: 0, metadata: metadata))
        let (packets, problems) = reader.readAll()
        #expect(problems.isEmpty)
        #expect(Self.strip(packets) == written)
        #expect(packets.allSatisfy { $0.file == path })
        #expect(packets[1].offset > packets[0].offset)
    }

    @Test func framingIsCompact() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("a")
        let packets = Self.packets(100)
        _ = try Self.write(packets, to: path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let payload = packets.reduce(0) { $0 + $1.bytes.count }
        let header = RecordingHeader(startTime: Self.start).encoded().count
        #expect((size - header - payload) / packets.count <= 12)
    }

    @Test func appendsToAnExistingRecording() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("a")
        let packets = Self.packets(10)
        _ = try Self.write(Array(packets[0..<4]), to: path)
        let again = try RecordingWriter(path: path, startTime: Self.start + 10_000_000, metadata: "ignored")
        for p in packets[4...] { try again.append(p.bytes, receivedAt: p.receiveTime) }
        try again.close()
        let reader = try RecordingReader(path: path)
        #expect(reader.header?.startTime == Self.start)
        #expect(Self.strip(reader.readAll().packets) == packets)
    }

    @Test func refusesToOverwriteOtherFiles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("notes.txt")
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RecordingError.notARecording(path: path)) { try RecordingWriter(path: path, startTime: 0) }
        #expect(throws: RecordingError.notARecording(path: path)) { try RecordingReader(path: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious\n")
    }

    @Test func rejectsPacketsTheFormatCannotHold() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let writer = try RecordingWriter(path: dir.file("a"), startTime: 0)
        #expect(throws: RecordingError.invalidPacket(length: 0)) { try writer.append([], receivedAt: 0) }
        #expect(throws: RecordingError.invalidPacket(length: 65_540)) { try writer.append([UInt8](repeating: 0, count: 65_540), receivedAt: 0) }
        try writer.close()
        #expect(throws: RecordingError.closed(path: dir.file("a"))) { try writer.append([1, 2, 3, 4], receivedAt: 0) }
    }

    /// Cutting the file anywhere inside the last record (a torn write) keeps every earlier record
    /// and reports exactly one problem: the truncated record at its offset.
    @Test func truncatedAtEveryByteOfTheLastRecord() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("a")
        let packets = Self.packets(12)
        _ = try Self.write(packets, to: path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let lastOffset = try #require(try RecordingReader(bytes: bytes).readAll().packets.last?.offset)
        for cut in lastOffset..<bytes.count {
            let (read, problems) = try RecordingReader(bytes: Array(bytes[0..<cut])).readAll()
            #expect(Self.strip(read) == Array(packets.dropLast()), "cut at \(cut)")
            if cut == lastOffset {
                #expect(problems.isEmpty)
            } else {
                #expect(problems.count == 1, "cut at \(cut)")
                #expect(problems.first?.kind == .truncated)
                #expect(problems.first?.offset == lastOffset)
                #expect(problems.first?.length == cut - lastOffset)
            }
        }
    }

    /// One flipped byte anywhere in a middle record costs that record and nothing else.
    @Test func corruptedByteSkipsOnlyThatRecord() throws {
        let packets = Self.packets(9)
        var bytes = RecordingHeader(startTime: Self.start).encoded()
        var offsets: [Int] = []
        for p in packets {
            offsets.append(bytes.count)
            bytes += RecordCodec.encode(p.bytes, receiveTime: p.receiveTime, startTime: Self.start, flags: p.flags)
        }
        let victim = 4
        for position in offsets[victim]..<offsets[victim + 1] {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = bytes
                damaged[position] ^= flip
                let (read, problems) = try RecordingReader(bytes: damaged).readAll()
                var expected = packets
                expected.remove(at: victim)
                #expect(Self.strip(read) == expected, "byte \(position) ^ \(flip)")
                #expect(problems.count == 1)
                #expect(problems.first?.kind == .corrupted)
                #expect(problems.first?.offset == offsets[victim])
                #expect(problems.first?.length == offsets[victim + 1] - offsets[victim])
            }
        }
    }

    @Test func garbageBetweenRecordsIsSkipped() throws {
        let packets = Self.packets(4)
        var bytes = RecordingHeader(startTime: Self.start).encoded()
        for (i, p) in packets.enumerated() {
            if i == 2 { bytes += [0xA5, 0xA5, 0x00, 0x13, 0x37] + [UInt8](repeating: 0xA5, count: 40) }
            bytes += RecordCodec.encode(p.bytes, receiveTime: p.receiveTime, startTime: Self.start, flags: [])
        }
        let (read, problems) = try RecordingReader(bytes: bytes).readAll()
        #expect(Self.strip(read) == packets)
        #expect(problems.map(\.length) == [45])
    }

    @Test func damagedHeaderIsReportedNotThrown() throws {
        var bytes = RecordingHeader(startTime: Self.start, metadata: "x").encoded()
        bytes[14] ^= 1
        let (read, problems) = try RecordingReader(bytes: bytes + RecordCodec.encode([1, 2, 3, 4], receiveTime: Self.start, startTime: Self.start, flags: [])).readAll()
        #expect(read.isEmpty)
        #expect(problems.map(\.kind) == [.damagedHeader])
        #expect(throws: RecordingError.unsupportedVersion(path: "<memory>", version: 2)) {
            var v2 = RecordingHeader(startTime: 0).encoded()
            v2[8] = 2
            _ = try RecordingReader(bytes: v2)
        }
    }

    @Test func varintsAndZigzag() {
        for value: Int64 in [0, 1, -1, 63, -64, 64, 1 << 40, -(1 << 40), .max, .min] {
            var out: [UInt8] = []
            Varint.append(Varint.zigzag(value), to: &out)
            var offset = 0
            #expect(Varint.read(out, at: &offset, end: out.count).map(Varint.unzigzag) == value)
            #expect(offset == out.count)
        }
        var offset = 0
        #expect(Varint.read([UInt8](repeating: 0xFF, count: 11), at: &offset, end: 11) == nil)
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
