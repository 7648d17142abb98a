import Foundation
import Testing
@testable import Recording

/// Size-based rotation: bounded files, every file replays alone, the set replays in order.
@Suite struct RecordingRotationTests {
    @Test func rotatesAndMergesInOrder() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("rec")
        let packets = RecordingRoundTripTests.packets(300)
        let writer = try RecordingWriter(path: path, startTime: RecordingRoundTripTests.start, metadata: "m",
                                         rotation: RotationPolicy(maxBytes: 2_000, maxFiles: 4), sync: .everyRecord)
        for p in packets { try writer.append(p.bytes, receivedAt: p.receiveTime) }
        try writer.close()

        let files = RecordingReader.rotatedPaths(of: path)
        #expect(files == [path + ".3", path + ".2", path + ".1", path])
        #expect(!FileManager.default.fileExists(atPath: path + ".4"))
        for file in files {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size <= 2_000)
            let alone = try RecordingReader(path: file)
            #expect(alone.readAll().problems.isEmpty)
            #expect(alone.header?.metadata == "m")
        }

        // Given in any order, the set replays in segment order and ends with the last packet.
        let merged = try RecordingReader(paths: files.reversed())
        #expect(merged.segments.map(\.path) == files)
        let segments = merged.segments.compactMap(\.header?.segment)
        #expect(segments == segments.sorted() && Set(segments).count == 4)
        let (read, problems) = merged.readAll()
        #expect(problems.isEmpty)
        let tail = RecordingRoundTripTests.strip(read)
        #expect(tail == Array(packets.suffix(tail.count)))
        #expect(tail.count > 50)

        // The reader's position reaches the total for a progress bar.
        var iterator = merged.makeIterator()
        while iterator.next() != nil {}
        #expect(iterator.position == merged.totalBytes)
    }

    @Test func singleFileRotationReplacesTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("rec")
        let writer = try RecordingWriter(path: path, startTime: 0, rotation: RotationPolicy(maxBytes: 500, maxFiles: 1))
        let packets = RecordingRoundTripTests.packets(40)
        for p in packets { try writer.append(p.bytes, receivedAt: p.receiveTime) }
        try writer.close()
        #expect(RecordingReader.rotatedPaths(of: path) == [path])
        let reader = try RecordingReader(path: path)
        #expect(reader.header!.segment > 0)
        #expect(RecordingRoundTripTests.strip(reader.readAll().packets) == Array(packets.suffix(reader.readAll().packets.count)))
    }

    /// A restart continues the numbering of the set, even when a crash came between rotation's
    /// rename of `path` to `path.1` and the creation of the new `path`.
    @Test func newFileContinuesSegmentNumbering() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("rec")
        let writer = try RecordingWriter(path: path, startTime: 0, rotation: RotationPolicy(maxBytes: 300, maxFiles: 3))
        for p in RecordingRoundTripTests.packets(30) { try writer.append(p.bytes, receivedAt: p.receiveTime) }
        try writer.close()
        let newest = try #require(try RecordingReader(path: path).header?.segment)
        try FileManager.default.removeItem(atPath: path + ".1")
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        let again = try RecordingWriter(path: path, startTime: 0)
        try again.close()
        #expect(try RecordingReader(path: path).header?.segment == newest + 1)
    }
}
