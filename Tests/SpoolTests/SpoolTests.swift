import Foundation
import Testing
@testable import MQTTClient
import Vocabulary

/// The journal keeps events and retained state across restarts, in order, within its bound; a
/// damaged record costs that record; a second owner is refused.
@Suite struct SpoolTests {
    func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "spool-test-" + UUID().uuidString
    }

    func event(_ n: Int) -> SpooledMessage {
        SpooledMessage(topic: "uwb2mqtt/gw/peer/a/event", payload: Array("{\"n\":\(n)}".utf8), qos: 1, retain: false)
    }

    /// Everything not yet delivered, in order.
    func undelivered(_ spool: Spool) -> [[UInt8]] {
        spool.pending(upTo: .max).map(\.payload)
    }

    func segmentFiles(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".seg") }.sorted()
    }

    /// Byte offsets of the records in a segment file.
    func recordOffsets(_ data: Data) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        let bytes = [UInt8](data)
        while offset + 8 <= bytes.count {
            offsets.append(offset)
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            offset += 8 + length + 4
        }
        return offsets
    }

    /// Messages delivered by other means (sent again by the MQTT client after a reconnect) are
    /// forgotten without being read first: the count, the pending messages and a restart agree.
    @Test func messagesDeliveredWithoutBeingReadAreForgotten() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            _ = try spool.append(event(1))
            let second = try spool.append(event(2))
            _ = try spool.append(event(3))
            try spool.delivered(through: second)
            #expect(spool.count == 1)
            #expect(undelivered(spool) == [event(3).payload])
            try spool.delivered(through: second + 1)
            #expect(spool.isEmpty)
        }
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(reopened.isEmpty && undelivered(reopened).isEmpty)
    }

    @Test func messagesSurviveARestartInOrder() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            for n in 0..<5 { try spool.append(event(n)) }
        }
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(undelivered(reopened) == (0..<5).map(event).map(\.payload))
        #expect(reopened.count == 5)
        #expect(reopened.recoveryNote == nil)
    }

    /// An empty retained payload deletes a retained message on the broker: the journal keeps it
    /// as it is, empty, across a restart.
    @Test func anEmptyRetainedPayloadSurvivesARestart() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            try spool.append(SpooledMessage(topic: "uwb2mqtt/gw/peer/a/state", payload: [], qos: 1, retain: true))
            try spool.append(event(1))
        }
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        let pending = reopened.pending(upTo: 10)
        #expect(pending.map(\.topic) == ["uwb2mqtt/gw/peer/a/state", "uwb2mqtt/gw/peer/a/event"])
        #expect(pending.first?.payload == [] && pending.first?.retain == true)
        #expect(reopened.recoveryNote == nil)
    }

    @Test func deliveredMessagesAreForgottenAcrossARestart() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            for n in 0..<5 { try spool.append(event(n)) }
            let batch = spool.pending(upTo: 3)
            #expect(batch.map(\.payload) == (0..<3).map(event).map(\.payload))
            try spool.delivered(through: batch.last!.sequence)
            #expect(spool.count == 2)
            #expect(undelivered(spool) == [event(3), event(4)].map(\.payload))
            // Acknowledging again what was delivered changes nothing.
            try spool.delivered(through: batch[0].sequence)
            #expect(spool.count == 2)
        }
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(undelivered(reopened) == [event(3), event(4)].map(\.payload))
        try reopened.append(event(5))
        #expect(undelivered(reopened) == [event(3), event(4), event(5)].map(\.payload))
    }

    /// Draining touches only the cursor: no record is written again, and every segment it passed
    /// is deleted.
    @Test func drainingRewritesNothingAndDeletesDeliveredSegments() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let spool = try Spool(directory: dir, maximumBytes: 64 << 10)
        for n in 0..<600 { try spool.append(event(n)) }
        #expect(segmentFiles(dir).count > 3)
        let appended = spool.bytesWritten
        var delivered: [[UInt8]] = []
        var batches = 0
        while !spool.isEmpty {
            let batch = spool.pending(upTo: 50)
            delivered += batch.map(\.payload)
            try spool.delivered(through: batch.last!.sequence)
            batches += 1
        }
        #expect(delivered == (0..<600).map(event).map(\.payload))
        #expect(spool.bytesWritten - appended == batches * 16, "one 16-byte cursor write per batch")
        #expect(segmentFiles(dir).isEmpty)
        #expect(spool.bytes == 0)
    }

    @Test func aTornLastRecordIsDroppedAndTheRestKept() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            for n in 0..<3 { try spool.append(event(n)) }
        }
        let path = dir + "/" + segmentFiles(dir)[0]
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.dropLast(5).write(to: URL(fileURLWithPath: path))
        do {
            let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
            #expect(undelivered(reopened) == [event(0), event(1)].map(\.payload))
            #expect(reopened.recoveryNote?.contains("interrupted write") == true, "\(reopened.recoveryNote ?? "")")
            // Appends go on after the last whole record.
            try reopened.append(event(3))
        }
        #expect(undelivered(try Spool(directory: dir, maximumBytes: 1 << 20)) == [event(0), event(1), event(3)].map(\.payload))
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).contains { $0.hasSuffix(".damaged") })
    }

    enum Flip: String, CaseIterable, Sendable {
        case payload, marker, length
    }

    /// One flipped bit in record 11 of 300, spread over several segments: that record is lost,
    /// the other 299 are delivered in order, the note says how many and why, the damaged segment
    /// is kept aside.
    @Test(arguments: Flip.allCases)
    func aFlippedBitCostsOneRecord(_ flip: Flip) throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 256 << 10)
            for n in 0..<300 { try spool.append(event(n)) }
        }
        #expect(segmentFiles(dir).count >= 1)
        let segment = dir + "/" + segmentFiles(dir)[0]
        var data = try Data(contentsOf: URL(fileURLWithPath: segment))
        let offset = recordOffsets(data)[10]
        switch flip {
        case .payload: data[offset + 8 + 12 + event(0).topic.utf8.count + 2] ^= 0x04
        case .marker: data[offset + 1] ^= 0x01
        case .length: data[offset + 6] ^= 0x10
        }
        try data.write(to: URL(fileURLWithPath: segment))

        let reopened = try Spool(directory: dir, maximumBytes: 256 << 10)
        #expect(undelivered(reopened) == (0..<300).filter { $0 != 10 }.map(event).map(\.payload))
        #expect(reopened.count == 299)
        let note = try #require(reopened.recoveryNote)
        #expect(note.contains("1 record lost in \(segmentFiles(dir)[0]) at byte \(offset)"), "\(note)")
        #expect(note.contains(".damaged"), "\(note)")
        let damaged = try Data(contentsOf: URL(fileURLWithPath: segment + ".damaged"))
        #expect(damaged == data, "the damaged segment is kept as it was")
    }

    @Test func aRecoveredJournalLoadsCleanlyNextTime() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            for n in 0..<20 { try spool.append(event(n)) }
        }
        let segment = dir + "/" + segmentFiles(dir)[0]
        var data = try Data(contentsOf: URL(fileURLWithPath: segment))
        data[recordOffsets(data)[4] + 30] ^= 0x80
        try data.write(to: URL(fileURLWithPath: segment))
        do {
            let first = try Spool(directory: dir, maximumBytes: 1 << 20)
            #expect(first.count == 19)
            #expect(first.recoveryNote?.contains("checksum mismatch") == true)
        }
        let second = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(second.recoveryNote == nil)
        #expect(undelivered(second) == (0..<20).filter { $0 != 4 }.map(event).map(\.payload))
    }

    /// Beyond the bound the oldest segments go, whole: the newest messages are kept, what was
    /// lost is counted and said once, and a reopened journal holds the same.
    @Test func theBoundDropsTheOldestSegments() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var kept: [[UInt8]] = []
        do {
            let spool = try Spool(directory: dir, maximumBytes: 4096)
            var notices: [String] = []
            for n in 0..<500 {
                try spool.append(event(n))
                if let notice = spool.takeNotice() { notices.append(notice) }
                #expect(spool.bytes <= 4096)
            }
            #expect(notices.count == 1, "\(notices)")
            #expect(spool.dropped > 0)
            #expect(spool.dropped + spool.count == 500)
            kept = undelivered(spool)
            #expect(kept.last == event(499).payload)
            #expect(kept == (500 - kept.count..<500).map(event).map(\.payload), "the newest, in order, with no gap")
        }
        #expect(undelivered(try Spool(directory: dir, maximumBytes: 4096)) == kept)
    }

    @Test func aTopicLongerThanMQTTAllowsIsRefused() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            try spool.append(event(0))
            let long = SpooledMessage(topic: String(repeating: "x", count: 70_000), payload: [1], qos: 1, retain: true)
            #expect(throws: Spool.SpoolError.topicTooLong(bytes: 70_000)) { try spool.append(long) }
            try spool.append(event(1))
            #expect(spool.count == 2)
        }
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(undelivered(reopened) == [event(0), event(1)].map(\.payload))
        #expect(reopened.recoveryNote == nil)
    }

    @Test func aSecondOwnerOfTheDirectoryIsRefused() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let first = try Spool(directory: dir, maximumBytes: 1 << 20)
            try first.append(event(0))
            let error = #expect(throws: Spool.SpoolError.self) { try Spool(directory: dir, maximumBytes: 1 << 20) }
            #expect(error == .locked(directory: dir, owner: getpid()))
            #expect(error.map { "\($0)" }?.contains("\(dir) is in use by another uwb2mqtt agent (pid \(getpid()))") == true)
        }
        // Released with its owner.
        #expect(undelivered(try Spool(directory: dir, maximumBytes: 1 << 20)) == [event(0).payload])
    }

    /// The single-file journal of the previous version is read once into segments, then removed.
    @Test func thePreviousVersionsJournalIsMigrated() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let state = SpooledMessage(topic: "uwb2mqtt/gw/device", payload: Array("{}".utf8), qos: 1, retain: true)
        var old: [UInt8] = []
        for message in [event(0), state, event(1)] { old += Self.previousVersionRecord(message) }
        old += Self.previousVersionRecord(event(2)).dropLast(3)   // an interrupted write
        try Data(old).write(to: URL(fileURLWithPath: dir + "/journal"))
        do {
            let spool = try Spool(directory: dir, maximumBytes: 1 << 20)
            let messages = spool.pending(upTo: 10)
            #expect(messages.map(\.payload) == [event(0), state, event(1)].map(\.payload))
            #expect(messages.map(\.retain) == [false, true, false])
            #expect(messages[1].topic == state.topic)
            #expect(spool.recoveryNote?.contains("migrated 3 messages from the previous version's journal") == true, "\(spool.recoveryNote ?? "")")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/journal"))
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(reopened.recoveryNote == nil)
        #expect(reopened.count == 3)
    }

    /// `length(4) qos(1) retain(1) topic_length(2) topic payload crc32(4)`, CRC over the body.
    static func previousVersionRecord(_ message: SpooledMessage) -> [UInt8] {
        let topic = Array(message.topic.utf8)
        var body: [UInt8] = [UInt8(message.qos), message.retain ? 1 : 0, UInt8(topic.count & 0xFF), UInt8(topic.count >> 8)]
        body += topic + message.payload
        func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        return le32(UInt32(body.count)) + body + le32(CRC32.checksum(body, 0..<body.count))
    }

    @Test func anUnwritableDirectoryIsAClearError() {
        #expect(throws: Spool.SpoolError.self) { try Spool(directory: "/proc/no-such-dir/spool", maximumBytes: 1024) }
    }
}
