import Foundation
import Testing
@testable import MQTTClient

/// The journal keeps events and retained state across restarts, in order, within its bound.
@Suite struct SpoolTests {
    func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "spool-test-" + UUID().uuidString
        return path
    }

    func event(_ n: Int) -> SpooledMessage {
        SpooledMessage(topic: "uwb2mqtt/gw/peer/a/event", payload: Array("{\"n\":\(n)}".utf8), qos: 1, retain: false)
    }

    @Test func messagesSurviveARestartInOrder() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var spool = try Spool(directory: dir, maximumBytes: 1 << 20)
        for n in 0..<5 { try spool.append(event(n)) }
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(reopened.messages.map(\.payload) == (0..<5).map(event).map(\.payload))
        #expect(reopened.recoveryNote == nil)
    }

    /// An empty retained payload deletes a retained message on the broker: the journal keeps it
    /// as it is, empty, across a restart.
    @Test func anEmptyRetainedPayloadSurvivesARestart() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var spool = try Spool(directory: dir, maximumBytes: 1 << 20)
        try spool.append(SpooledMessage(topic: "uwb2mqtt/gw/peer/a/state", payload: [], qos: 1, retain: true))
        try spool.append(event(1))
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(reopened.messages.map(\.topic) == ["uwb2mqtt/gw/peer/a/state", "uwb2mqtt/gw/peer/a/event"])
        #expect(reopened.messages.first?.payload == [] && reopened.messages.first?.retain == true)
        #expect(reopened.recoveryNote == nil)
    }

    @Test func deliveredMessagesAreForgotten() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var spool = try Spool(directory: dir, maximumBytes: 1 << 20)
        for n in 0..<5 { try spool.append(event(n)) }
        try spool.removeFirst(3)
        #expect(try Spool(directory: dir, maximumBytes: 1 << 20).messages.map(\.payload) == [event(3), event(4)].map(\.payload))
        try spool.remove(sequences: [spool.messages[1].sequence, 999])
        #expect(spool.messages.map(\.payload) == [event(3).payload])
    }

    @Test func aTornLastRecordIsDroppedAndTheRestKept() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var spool = try Spool(directory: dir, maximumBytes: 1 << 20)
        for n in 0..<3 { try spool.append(event(n)) }
        let path = dir + "/journal"
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.dropLast(5).write(to: URL(fileURLWithPath: path))
        let reopened = try Spool(directory: dir, maximumBytes: 1 << 20)
        #expect(reopened.messages.map(\.payload) == [event(0), event(1)].map(\.payload))
        #expect(reopened.recoveryNote != nil)
    }

    @Test func theBoundDropsSupersededRetainedStateThenTheOldest() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var spool = try Spool(directory: dir, maximumBytes: 1024)
        let state1 = SpooledMessage(topic: "t/state", payload: Array("one".utf8), qos: 1, retain: true)
        let state2 = SpooledMessage(topic: "t/state", payload: Array("two".utf8), qos: 1, retain: true)
        try spool.append(state1)
        try spool.append(event(1))
        try spool.append(state2)
        // Within the bound everything is kept, in order.
        #expect(spool.messages.map(\.payload) == [state1, event(1), state2].map(\.payload))
        #expect(spool.dropped == 0)
        for n in 2..<100 { try spool.append(event(n)) }
        #expect(spool.bytes <= 1024)
        #expect(spool.messages.last?.payload == event(99).payload)
        // The superseded state went first, the newest state is still there.
        #expect(!spool.messages.contains { $0.payload == state1.payload })
        #expect(spool.dropped > 1)
        #expect(try Spool(directory: dir, maximumBytes: 1024).messages.map(\.payload) == spool.messages.map(\.payload))
    }

    @Test func anUnwritableDirectoryIsAClearError() {
        #expect(throws: Spool.SpoolError.self) { try Spool(directory: "/proc/no-such-dir/spool", maximumBytes: 1024) }
    }
}
