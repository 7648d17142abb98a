#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
@testable import EventLoop
import Testing

/// The loop's own promises: timers in deadline order, descriptors, work from other threads.
@Suite struct EventLoopTests {
    @Test func timersFireInDeadlineOrderAndCancelledOnesNever() throws {
        let loop = try EventLoop()
        var fired: [String] = []
        let start = loop.now
        loop.schedule(at: start + 0.03) { fired.append("c") }
        loop.schedule(at: start + 0.01) { fired.append("a") }
        let cancelled = loop.schedule(at: start + 0.015) { fired.append("never") }
        loop.schedule(at: start + 0.02) { fired.append("b") }
        loop.cancel(cancelled)
        loop.run(until: { fired.count == 3 }, deadline: start + 5)
        #expect(fired == ["a", "b", "c"])
        #expect(Clocks.monotonic() >= start + 0.03)
    }

    @Test func aTimerWithSlackRidesOnAnEarlierWakeUpInItsWindow() throws {
        let loop = try EventLoop()
        var fired: Double?
        loop.schedule(after: 0.02, slack: 10) { fired = Clocks.monotonic() }
        let start = loop.now
        // Something else wakes the loop 50 ms in: inside the window, so the timer runs then,
        // not ten seconds later.
        loop.schedule(after: 0.05) {}
        loop.run(until: { fired != nil }, deadline: start + 5)
        let at = try #require(fired)
        #expect(at - start >= 0.02 && at - start < 1)
    }

    @Test func aReadableDescriptorCallsItsHandlerAndUnwatchStopsIt() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var received: [UInt8] = []
        let watch = loop.watch(fds[0], events: Int16(POLLIN)) { _ in
            var byte: UInt8 = 0
            if read(fds[0], &byte, 1) == 1 { received.append(byte) }
        }
        var byte: UInt8 = 7
        _ = write(fds[1], &byte, 1)
        loop.run(until: { received == [7] }, deadline: loop.now + 5)
        #expect(received == [7])
        loop.unwatch(watch)
        byte = 8
        _ = write(fds[1], &byte, 1)
        loop.runOnce(maximumWait: Clocks.monotonic() + 0.05)
        #expect(received == [7])
    }

    /// A loop that found nothing to read and waited says it rested; one whose descriptor still
    /// holds input (a reader that cannot keep up) does not, however long its handlers take.
    @Test func aLoopRestsOnlyWhenNothingWasWaiting() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var rests = 0
        loop.onRest = { rests += 1 }
        // Read a byte at a time, 5 ms each, from a pipe kept full: never idle.
        var reads = 0
        _ = loop.watch(fds[0], events: Int16(POLLIN)) { _ in
            var byte: UInt8 = 0
            if read(fds[0], &byte, 1) == 1 { reads += 1 }
            usleep(5_000)
        }
        var bytes = [UInt8](repeating: 1, count: 20)
        _ = write(fds[1], &bytes, bytes.count)
        loop.run(until: { reads == 20 }, deadline: loop.now + 5)
        #expect(reads == 20 && rests == 0)
        // Drained: the next wait finds nothing for 20 ms.
        loop.runOnce(maximumWait: Clocks.monotonic() + 0.02)
        #expect(rests == 1)
    }

    /// A connection closed before its watch is given up, and the next one getting the same
    /// descriptor number, as a reconnect can: the new watch works, and the old `unwatch` does not
    /// take the new descriptor out of the wait set.
    @Test func aReusedDescriptorNumberIsWatchedAndTheStaleUnwatchLeavesIt() throws {
        let loop = try EventLoop()
        var first: [Int32] = [-1, -1]
        #expect(pipe(&first) == 0)
        var oldCalls = 0
        let old = loop.watch(first[0], events: Int16(POLLIN)) { _ in oldCalls += 1 }
        let number = first[0]
        close(first[1])
        var second: [Int32] = [-1, -1]
        #expect(pipe(&second) == 0)
        // The new pipe's read end takes the old number in one step (the old read end is closed
        // by it): the number is never free, so no other test's thread can take it meanwhile, as
        // it could between a close and the next open.
        try #require(dup2(second[0], number) == number)
        close(second[0])
        defer { close(number); close(second[1]) }
        var received: [UInt8] = []
        _ = loop.watch(number, events: Int16(POLLIN)) { _ in
            var byte: UInt8 = 0
            if read(number, &byte, 1) == 1 { received.append(byte) }
        }
        loop.unwatch(old)
        var byte: UInt8 = 9
        _ = write(second[1], &byte, 1)
        loop.run(until: { received == [9] }, deadline: loop.now + 5)
        #expect(received == [9])
        #expect(oldCalls == 0)
    }

    /// Descriptors ready in one wake-up are handled in the order they were watched, whatever
    /// order they became ready in.
    @Test func readyDescriptorsAreHandledInTheOrderTheyWereWatched() throws {
        let loop = try EventLoop()
        var pipes: [[Int32]] = []
        var handled: [Int] = []
        for index in 0..<3 {
            var fds: [Int32] = [-1, -1]
            #expect(pipe(&fds) == 0)
            pipes.append(fds)
            _ = loop.watch(fds[0], events: Int16(POLLIN)) { _ in
                var byte: UInt8 = 0
                if read(fds[0], &byte, 1) == 1 { handled.append(index) }
            }
        }
        defer { for fds in pipes { close(fds[0]); close(fds[1]) } }
        for index in [2, 0, 1] {
            var byte: UInt8 = 1
            _ = write(pipes[index][1], &byte, 1)
        }
        loop.runOnce(maximumWait: Clocks.monotonic() + 5)
        #expect(handled == [0, 1, 2])
    }

    /// epoll refuses regular files, which `poll` reports always readable: so does the loop.
    @Test func aRegularFileIsAlwaysReadable() throws {
        let loop = try EventLoop()
        let path = "/tmp/uwb2mqtt-eventloop-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(created >= 0)
        close(created)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var calls: [Int16] = []
        let watch = loop.watch(fd, events: Int16(POLLIN)) { calls.append($0) }
        loop.run(until: { calls.count == 3 }, deadline: loop.now + 5)
        #expect(calls == Array(repeating: Int16(POLLIN), count: 3))
        loop.unwatch(watch)
        loop.runOnce(maximumWait: Clocks.monotonic() + 0.01)
        #expect(calls.count == 3)
    }

    /// A descriptor that is not open is reported as `poll` reports it, POLLNVAL, so that its
    /// handler can tell (and not read it as data).
    @Test func aDescriptorThatIsNotOpenIsReportedInvalid() throws {
        let loop = try EventLoop()
        // Far above what the suite opens, and checked: a number just closed could be taken by
        // another test's thread before the watch.
        let number: Int32 = 4_000
        try #require(fcntl(number, F_GETFD) == -1 && errno == EBADF)
        var calls: [Int16] = []
        let watch = loop.watch(number, events: Int16(POLLIN)) { calls.append($0) }
        loop.run(until: { !calls.isEmpty }, deadline: loop.now + 5)
        #expect(calls.first == Int16(POLLNVAL))
        loop.unwatch(watch)
    }

    @Test func workFromAnotherThreadRunsOnTheLoopInOrder() throws {
        let thread = try EventLoopThread()
        defer { thread.stop() }
        let order = thread.run { _ in [Int]() }
        #expect(order.isEmpty)
        final class Box: @unchecked Sendable { var values: [Int] = [] }
        let box = Box()
        for value in 0..<100 {
            try thread.sync { _ in box.values.append(value) }
        }
        #expect(thread.run { _ in box.values } == Array(0..<100))
    }

    @Test func soonRunsBeforeTheNextWaitAndBeforeWaitHooksRunEachWakeUp() throws {
        let loop = try EventLoop()
        var log: [String] = []
        loop.beforeWait { log.append("flush") }
        loop.soon { log.append("soon") }
        loop.runOnce(maximumWait: loop.now)
        #expect(log == ["soon", "flush"])
    }

    @Test func pollTimeoutRoundsUpSoATimerIsNeverEarly() {
        #expect(EventLoop.pollTimeout(until: .infinity, now: 0) == -1)
        #expect(EventLoop.pollTimeout(until: 1.0001, now: 1) == 1)
        #expect(EventLoop.pollTimeout(until: 0.5, now: 1) == 0)
    }
}

/// Work posted while earlier work runs the loop itself is not held behind it.
@Suite struct NestedRunTests {
    @Test func workQueuedBehindANestedRunRunsInsideIt() throws {
        let loop = try EventLoop()
        final class Box: @unchecked Sendable {
            // Touched only on the loop's thread, which is this one.
            var loop: EventLoop?
            var secondRan = false
            var firstSawIt: Bool?
        }
        let box = Box()
        box.loop = loop
        // Both queued before the loop wakes, as a connect result and a caller's wait can be: the
        // first runs the loop until the second has run.
        loop.remote.post { box.firstSawIt = box.loop!.run(until: { box.secondRan }, deadline: Clocks.monotonic() + 5) }
        loop.remote.post { box.secondRan = true }
        loop.run(until: { box.firstSawIt != nil }, deadline: Clocks.monotonic() + 10)
        #expect(box.firstSawIt == true)
        box.loop = nil
    }
}

/// An edit is seen through inotify on the file's directory, an editor's rename included.
@Suite struct FileChangeWatchTests {
    @Test func aWriteAndAnEditorsRenameAreBothSeenAndOtherFilesAreNot() throws {
        let directory = "/tmp/uwb2mqtt-filewatch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(directory, 0o700) == 0)
        defer {
            for file in ["rules.yaml", "other.yaml", "rules.yaml.tmp"] { unlink(directory + "/" + file) }
            rmdir(directory)
        }
        func write(_ file: String, _ text: String) {
            let fd = open(directory + "/" + file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
            close(fd)
        }
        write("rules.yaml", "version: 1\n")
        let loop = try EventLoop()
        var changes = 0
        let watch = FileChangeWatch(path: directory + "/rules.yaml", loop: loop) { changes += 1 }
        #expect(watch.fallbackReason == nil)

        write("rules.yaml", "version: 1\nzones: []\n")
        #expect(loop.run(until: { changes == 1 }, deadline: Clocks.monotonic() + 5))

        // Another file in the directory: nothing, not even after the settling time.
        write("other.yaml", "x")
        loop.run(until: { false }, deadline: Clocks.monotonic() + 0.2)
        #expect(changes == 1)

        // An editor's save: a new file renamed over the old one.
        write("rules.yaml.tmp", "version: 1\nstages: []\n")
        #expect(rename(directory + "/rules.yaml.tmp", directory + "/rules.yaml") == 0)
        #expect(loop.run(until: { changes == 2 }, deadline: Clocks.monotonic() + 5))
        withExtendedLifetime(watch) {}
    }
}

