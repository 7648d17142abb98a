import Dispatch
import EventLoop
import Foundation
@testable import MQTTClient
import Testing

/// The journal's appends are synced off the loop: a sync that takes long (a slow SD card) leaves
/// the loop free, one sync covers every record written before it, and what is written while it
/// runs gets exactly one more.
@Suite struct JournalSyncTests {
    /// A disk whose every sync waits until the test lets it finish.
    final class HeldDisk: @unchecked Sendable {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var count = 0
        var calls: Int { lock.withLock { count } }

        func sync(_ fd: Int32) -> Int32 {
            lock.withLock { count += 1 }
            started.signal()
            _ = release.wait(timeout: .now() + 30)
            return fdatasync(fd)
        }

        /// Waits (bounded, so that a broken sync fails the test rather than hangs it) for a sync to start.
        func awaitStart() -> Bool {
            started.wait(timeout: .now() + 10) == .success
        }
    }

    func event(_ n: Int) -> SpooledMessage {
        SpooledMessage(topic: "uwb2mqtt/gw/peer/a/event", payload: Array("{\"n\":\(n)}".utf8), qos: 1, retain: false)
    }

    @Test func aHeldSyncLeavesTheLoopFreeAndWritesMeanwhileGetOneMoreSync() throws {
        let directory = NSTemporaryDirectory() + "journal-sync-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = try EventLoop()
        let disk = HeldDisk()
        var failures: [String] = []
        do {
            let spool = try Spool(directory: directory, maximumBytes: 1 << 20)
            let sync = JournalSync(spool: spool, loop: loop, syncFile: { disk.sync($0) }) { failures.append($0) }
            for n in 0..<3 { try spool.append(event(n), sync: false) }
            #expect(spool.hasUnsyncedAppends)
            sync.request()
            // The sync is held on its thread; the loop's side returned at once and runs on.
            #expect(disk.awaitStart())
            #expect(sync.isSyncing && !spool.hasUnsyncedAppends)
            var ticked = false
            loop.schedule(after: 0.001) { ticked = true }
            _ = loop.run(until: { ticked }, deadline: Clocks.monotonic() + 10)
            #expect(ticked && sync.isSyncing)

            // Written while it runs: no second sync at once, one after it.
            for n in 3..<5 { try spool.append(event(n), sync: false) }
            sync.request()
            sync.request()
            #expect(disk.calls == 1)
            disk.release.signal()
            // The first one's end reaches the loop, which starts the second.
            loop.runOnce(maximumWait: Clocks.monotonic() + 10)
            #expect(disk.awaitStart())
            #expect(disk.calls == 2)
            disk.release.signal()
            _ = loop.run(until: { !sync.isSyncing }, deadline: Clocks.monotonic() + 10)
            #expect(!sync.isSyncing && !spool.hasUnsyncedAppends && disk.calls == 2)
            #expect(failures.isEmpty)
        }
        // Everything written is in the journal, in order.
        let reopened = try Spool(directory: directory, maximumBytes: 1 << 20)
        #expect(reopened.pending(upTo: .max).map(\.payload) == (0..<5).map { event($0).payload })
    }

    @Test func aFailedSyncIsReportedOnTheLoop() throws {
        let directory = NSTemporaryDirectory() + "journal-sync-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = try EventLoop()
        let spool = try Spool(directory: directory, maximumBytes: 1 << 20)
        var failures: [String] = []
        let sync = JournalSync(spool: spool, loop: loop, syncFile: { _ in errno = EIO; return -1 }) { failures.append($0) }
        try spool.append(event(0), sync: false)
        sync.request()
        _ = loop.run(until: { !sync.isSyncing }, deadline: Clocks.monotonic() + 10)
        #expect(failures.count == 1)
        #expect(failures.first?.hasPrefix("cannot sync the journal: Input/output error") == true)
    }
}
