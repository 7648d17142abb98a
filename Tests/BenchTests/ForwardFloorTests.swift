import DeviceLink
import EventLoop
import Foundation
import Synchronization
import TestSupport
import Testing
import UCI
@testable import UCIBench

/// `uwb2mqtt-bench forward-floor`: the floor `make bench` sets beside the Python baseline does the
/// work its figure stands for — every notification read from the pty leaves as the baseline's
/// eight `range` messages, with the notification's sequence number.
@Suite struct ForwardFloorTests {
    @Test func eachSegmentedNotificationLeavesAsEightRangeMessages() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["bench/floor/peer/+/range"], qos: 0)
        defer { subscriber.stop() }
        let directory = try TemporaryDirectory(prefix: "forward-floor")
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let link = directory.file("dwm3001c")
        try terminal.link(at: link)

        // The forwarder returns when the broker closes its connection (the deferred stop above).
        let exitStatus = Mutex<Int32?>(nil)
        let arguments = ["--port", link, "--broker-port", String(broker.port)]
        DetachedThread.start(name: "forward floor") {
            let status = runForwardFloor(arguments)
            exitStatus.withLock { $0 = status }
        }
        try await broker.waitForLog(containing: "bench-floor")

        // Two notifications back to back: each is one message of two packets (PBF), read
        // together or apart as the pty hands them over.
        var bytes: [UInt8] = []
        for sequence in [4242, 4243] as [UInt32] {
            var notification = sessionInfo(measurements: 8)
            withUnsafeBytes(of: sequence.littleEndian) { notification.payload.replaceSubrange(0..<4, with: $0) }
            #expect(notification.packets().count == 2)
            bytes += notification.encoded()
        }
        try terminal.write(bytes)

        for peer in benchPeers {
            let messages = try await subscriber.waitForMessages(topic: "bench/floor/peer/\(peer.name)/range", count: 2)
            let objects = try messages.map { message in
                try #require(try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
            }
            #expect(objects.map { $0["seq"] as? Int } == [4242, 4243] && objects.allSatisfy { $0["peer"] as? String == peer.name })
        }
        #expect(subscriber.messages.count == 16)

        broker.stop()
        #expect(await waitUntil(timeout: 10) { exitStatus.withLock { $0 } != nil }, "the forwarder ends when the broker goes")
        #expect(exitStatus.withLock { $0 } == 0)
    }

    /// `--packets FILE --render`: each notification leaves as the recorded group made again, its
    /// timestamps from the clock at that notification.
    @Test func theRenderedFloorSendsTheRecordedMessagesWithTheirTimeRenderedAgain() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["bench/own/#"], qos: 0)
        defer { subscriber.stop() }
        let directory = try TemporaryDirectory(prefix: "rendered-floor")
        let recordedTime = "2026-01-01T00:00:00.000Z"
        let group = RenderedMessagesTests.publish("bench/own/peer/tag-1/range", #"{"ts": "\#(recordedTime)", "seq": 7, "distance_m": 1.23}"#)
            + RenderedMessagesTests.publish("bench/own/peer/tag-1/feedback", #"{"ts": "\#(recordedTime)", "stage": "near"}"#)
        let packets = directory.file("packets")
        try RecordedTraffic(groups: [group]).write(to: packets)
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let link = directory.file("dwm3001c")
        try terminal.link(at: link)

        let exitStatus = Mutex<Int32?>(nil)
        let arguments = ["--port", link, "--broker-port", String(broker.port), "--packets", packets, "--render"]
        DetachedThread.start(name: "rendered floor") {
            let status = runForwardFloor(arguments)
            exitStatus.withLock { $0 = status }
        }
        try await broker.waitForLog(containing: "bench-own-floor")
        let before = Date()
        try terminal.write(sessionInfo(measurements: 8).encoded())

        let range = try await subscriber.waitForMessages(topic: "bench/own/peer/tag-1/range", count: 1)
        let feedback = try await subscriber.waitForMessages(topic: "bench/own/peer/tag-1/feedback", count: 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(range[0].payload.utf8)) as? [String: Any])
        #expect(object["seq"] as? Int == 7 && object["distance_m"] as? Double == 1.23)
        let ts = try #require(object["ts"] as? String)
        #expect(ts != recordedTime && feedback[0].payload.contains(ts), "\(range[0].payload) \(feedback[0].payload)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let sent = try #require(formatter.date(from: ts))
        #expect(sent.timeIntervalSince(before) > -1 && sent.timeIntervalSince(before) < 30)

        broker.stop()
        #expect(await waitUntil(timeout: 10) { exitStatus.withLock { $0 } != nil }, "the forwarder ends when the broker goes")
        #expect(exitStatus.withLock { $0 } == 0)
    }
}
