#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinuxEvents

/// One thread's event loop: file descriptors, timers in deadline order and work posted from other
/// threads, all waited for in one `epoll_wait`, the way gpsd, chrony and mosquitto run on small
/// boards.
///
/// Why: handing each UWB notification from a device thread through a stream and a thread pool to
/// an MQTT network thread costs about six context switches and as many futex calls per
/// notification — measured, an agent as expensive as a Python script. Here everything the agent
/// owns is touched by the thread that runs the loop and by nothing else, so nothing is locked and
/// a notification is read, decided on and published in one wake-up.
///
/// The loop is not `Sendable`: it and every handler registered on it belong to the thread that
/// calls `run`. Other threads reach it only through `remote` (a `RemoteQueue`), whose work runs
/// on the loop.
///
/// Re-entrancy: a handler may register, unregister, schedule and cancel, and may run the loop
/// itself (`run(until:deadline:)`, as a shutdown that waits for acknowledgements does); what a
/// nested run changed is seen by the outer iteration, which skips sources that went away.
public final class EventLoop {
    public typealias IOHandler = (_ revents: Int16) -> Void

    /// A watched descriptor, for `setEvents` and `unwatch`.
    public struct Watch: Hashable, Sendable {
        fileprivate let id: Int
    }

    /// A scheduled timer, for `cancel`.
    public struct Timer: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct Source {
        let fd: Int32
        var events: Int16
        let handler: IOHandler
    }

    private var nextID = 1
    private var sources: [Int: Source] = [:]
    /// The wait set: every watched descriptor, added once with its source's id and level-triggered,
    /// as with `poll`. (`poll` hooked every descriptor onto its wait queue and off again at every
    /// wake-up: with the agent's six descriptors, `poll_freewait` alone was 6 % of its CPU.)
    private let epollFD: Int32
    /// Which source each descriptor in the wait set belongs to, so that the `unwatch` of a
    /// descriptor closed (and its number reused by a new watch) takes nothing out of the set.
    private var registered: [Int32: Int] = [:]
    /// Sources whose descriptor epoll refuses, with what `poll` reports for them at every
    /// wake-up, and so does the loop (it does not sleep while there is one): a regular file is
    /// ready for what it waits for, a descriptor that is not open is POLLNVAL.
    private var alwaysReady: [Int: Bool] = [:]
    /// What `epoll_wait` reported, one buffer per nesting level (a handler may run the loop).
    private var readyBuffers: [[clinux_ready]] = []
    private var depth = 0

    private var timers = TimerQueue()
    private var timerHandlers: [Int: () -> Void] = [:]
    /// Timers with slack: id → the deadline from which they may run. The heap holds them at their
    /// latest time (deadline + slack); a wake-up for anything else after the deadline runs them.
    private var earlyFrom: [Int: Double] = [:]
    /// Work to run before the next wait, in order (`soon`).
    private var soonQueue: [() -> Void] = []
    /// Called before every wait, after everything due ran: where buffered output is flushed once
    /// per wake-up rather than once per message.
    private var beforeWaitHooks: [() -> Void] = []

    /// Work other threads hand to the loop; its wake-up descriptor is one of the watched ones.
    public let remote: RemoteQueue

    /// CLOCK_MONOTONIC seconds at the last wake-up: one reading shared by everything that wake-up runs.
    public private(set) var now: Double
    /// Called at the start of a wake-up that came more than `lateWakeThreshold` seconds after it
    /// was due, with how late it was: the process was not scheduled (stopped, starved) or a
    /// handler blocked the loop. It runs before anything the wake-up found to do, so that what
    /// arrived meanwhile is read knowing that the silence before it was the loop's own.
    public var onLateWake: ((Double) -> Void)?
    public var lateWakeThreshold = 0.5
    /// Called at the end of a wait that began with nothing ready and found nothing for at least
    /// `restThreshold` seconds: everything the descriptors held had been read, and whoever writes
    /// to them had that long to write more, so nothing read after it waited on this process
    /// (a `fuse` that cannot keep up never rests: its socket always holds the next message).
    /// Setting it costs a look before every wait that would block.
    public var onRest: (() -> Void)?
    public var restThreshold = 0.002

    public init() throws(EventLoopError) {
        remote = try RemoteQueue()
        epollFD = clinux_epoll_create()
        guard epollFD >= 0 else { throw EventLoopError("epoll_create1", errno: errno) }
        now = Clocks.monotonic()
        let remote = self.remote
        _ = watch(remote.descriptor, events: Int16(POLLIN)) { _ in
            while let work = remote.next() { work() }
        }
    }

    // MARK: Descriptors

    deinit {
        close(epollFD)
    }

    /// Calls `handler` on the loop with the descriptor's `revents` (poll(2) bits) whenever one of
    /// `events` is ready (or an error or hang-up, which are always reported).
    public func watch(_ fd: Int32, events: Int16, _ handler: @escaping IOHandler) -> Watch {
        let id = takeID()
        sources[id] = Source(fd: fd, events: events, handler: handler)
        let bits = Self.epollBits(events)
        // EEXIST: the number of a descriptor closed without `unwatch` and now reused.
        if clinux_epoll_ctl(epollFD, Self.add, fd, bits, UInt64(id)) == 0
            || (errno == EEXIST && clinux_epoll_ctl(epollFD, Self.change, fd, bits, UInt64(id)) == 0) {
            registered[fd] = id
        } else {
            alwaysReady[id] = errno == EBADF
        }
        return Watch(id: id)
    }

    /// Changes what a watched descriptor waits for (e.g. POLLOUT only while output is queued).
    public func setEvents(_ watch: Watch, _ events: Int16) {
        guard let source = sources[watch.id], source.events != events else { return }
        sources[watch.id]!.events = events
        if registered[source.fd] == watch.id {
            _ = clinux_epoll_ctl(epollFD, Self.change, source.fd, Self.epollBits(events), UInt64(watch.id))
        }
    }

    /// Stops watching; the descriptor is the caller's to close.
    public func unwatch(_ watch: Watch) {
        guard let source = sources.removeValue(forKey: watch.id) else { return }
        alwaysReady[watch.id] = nil
        guard registered[source.fd] == watch.id else { return }
        registered[source.fd] = nil
        // Fails harmlessly when the descriptor was closed first (closing took it out of the set).
        _ = clinux_epoll_ctl(epollFD, Self.delete, source.fd, 0, 0)
    }

    private static let add: Int32 = 1, delete: Int32 = 2, change: Int32 = 3

    /// epoll's event bits have poll's values (EPOLLIN = POLLIN, EPOLLOUT = POLLOUT, ...).
    private static func epollBits(_ events: Int16) -> UInt32 { UInt32(UInt16(bitPattern: events)) }

    // MARK: Timers

    /// Runs `handler` once, on the loop, when CLOCK_MONOTONIC reaches `deadline`.
    @discardableResult
    public func schedule(at deadline: Double, _ handler: @escaping () -> Void) -> Timer {
        let id = takeID()
        timerHandlers[id] = handler
        timers.insert(deadline: deadline, id: id)
        return Timer(id: id)
    }

    @discardableResult
    public func schedule(after seconds: Double, _ handler: @escaping () -> Void) -> Timer {
        schedule(at: Clocks.monotonic() + max(0, seconds), handler)
    }

    /// Runs `handler` once between `deadline` and `deadline + slack`: at the first wake-up of the
    /// loop in that window, and only at its end if nothing woke the loop before. For periodic
    /// work whose exact moment does not matter (the proximity engine's tick): while data flows it
    /// rides on the wake-ups the data causes instead of adding its own.
    @discardableResult
    public func schedule(after seconds: Double, slack: Double, _ handler: @escaping () -> Void) -> Timer {
        let deadline = Clocks.monotonic() + max(0, seconds)
        let timer = schedule(at: deadline + max(0, slack), handler)
        earlyFrom[timer.id] = deadline
        return timer
    }

    /// Cancels a timer that has not fired; harmless for one that has.
    public func cancel(_ timer: Timer) {
        timerHandlers.removeValue(forKey: timer.id)
        earlyFrom.removeValue(forKey: timer.id)
    }

    // MARK: Work

    /// Runs `work` on the loop before its next wait: for a handler that must not re-enter the code
    /// that called it.
    public func soon(_ work: @escaping () -> Void) {
        soonQueue.append(work)
    }

    /// Adds a hook that runs before every wait.
    public func beforeWait(_ hook: @escaping () -> Void) {
        beforeWaitHooks.append(hook)
    }

    // MARK: Running

    /// Runs until `condition` holds (checked after every wake-up) or `deadline` (monotonic) passes.
    /// Output queued on the way (what the before-wait hooks write) is flushed before it returns.
    /// Returns whether the condition held.
    @discardableResult
    public func run(until condition: () -> Bool, deadline: Double = .infinity) -> Bool {
        defer { for hook in beforeWaitHooks { hook() } }
        while !condition() {
            if Clocks.monotonic() >= deadline { return false }
            runOnce(maximumWait: deadline, unless: condition)
        }
        return true
    }

    /// One wake-up: runs what is due, flushes, waits for a descriptor, the next timer or
    /// `maximumWait` (a monotonic deadline), then dispatches what the wait reported. The wait is
    /// skipped when `condition` already holds after the flush (a flush can end a connection that
    /// a caller of `run(until:)` waits for).
    public func runOnce(maximumWait: Double = .infinity, unless condition: () -> Bool = { false }) {
        runDue()
        for hook in beforeWaitHooks { hook() }
        if condition() { return }
        // Cancelled timers at the front would only cause an empty wake-up.
        while let id = timers.earliestID, timerHandlers[id] == nil { _ = timers.removeEarliest() }
        // Work queued by the hooks (rare) runs at once rather than after a sleep.
        let wakeAt = soonQueue.isEmpty && alwaysReady.isEmpty ? min(timers.earliest ?? .infinity, maximumWait) : now
        let level = depth
        if readyBuffers.count <= level { readyBuffers.append(Array(repeating: clinux_ready(), count: 16)) }
        depth += 1
        defer { depth -= 1 }
        func wait(_ timeout: Int32) -> Int {
            readyBuffers[level].withUnsafeMutableBufferPointer {
                Int(clinux_epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeout))
            }
        }
        let timeout = Self.pollTimeout(until: wakeAt, now: Clocks.monotonic())
        var found: Int
        // A rest is known only from a look that found nothing ready before the wait: a wait that
        // took long may have been this process not running while its input was waiting.
        var restFrom: Double?
        if onRest != nil, timeout != 0 {
            found = wait(0)
            if found == 0 {
                restFrom = Clocks.monotonic()
                found = wait(timeout)
            }
        } else {
            found = wait(timeout)
        }
        // A process stopped (SIGSTOP, a debugger) and continued gets EINTR from epoll_wait, where
        // `poll` is restarted: what became ready meanwhile is read now, before the timers that came
        // due (a device's data before its silence is judged).
        if found < 0 && errno == EINTR { found = wait(0) }
        now = Clocks.monotonic()
        if let onLateWake, wakeAt.isFinite, now - wakeAt > lateWakeThreshold { onLateWake(now - wakeAt) }
        if let onRest, let restFrom, now - restFrom >= restThreshold { onRest() }
        let count = max(found, 0)
        // In the order the descriptors were watched, as `poll` reported them: the same order
        // whatever order the kernel found them in. (Sorted in place through the buffer: sorting
        // a slice of it would copy it, an allocation per wake-up.)
        if count > 1 {
            readyBuffers[level].withUnsafeMutableBufferPointer { ready in
                for next in 1..<count {
                    var index = next
                    while index > 0 && ready[index - 1].id > ready[index].id {
                        ready.swapAt(index - 1, index)
                        index -= 1
                    }
                }
            }
        }
        // Dispatch by id: a handler may have removed (or, through a nested run, replaced) another
        // source since the wait began; its stale readiness is skipped.
        for index in 0..<count {
            let entry = readyBuffers[level][index]
            if let source = sources[Int(entry.id)] { source.handler(Int16(truncatingIfNeeded: entry.events)) }
        }
        if !alwaysReady.isEmpty {
            for (id, notOpen) in alwaysReady.sorted(by: { $0.key < $1.key }) {
                guard let source = sources[id] else { continue }
                source.handler(notOpen ? Int16(POLLNVAL) : source.events & Int16(POLLIN | POLLOUT))
            }
        }
    }

    /// Runs the `soon` queue and the timers whose deadline has come.
    private func runDue() {
        runSoon()
        while let deadline = timers.earliest, deadline <= now {
            let id = timers.removeEarliest()
            earlyFrom.removeValue(forKey: id)
            if let handler = timerHandlers.removeValue(forKey: id) { handler() }
            runSoon()
        }
        // Timers with slack whose window has begun; their heap entries are skipped later.
        for (id, from) in earlyFrom where from <= now {
            earlyFrom.removeValue(forKey: id)
            if let handler = timerHandlers.removeValue(forKey: id) { handler() }
            runSoon()
        }
    }

    private func runSoon() {
        while !soonQueue.isEmpty {
            let work = soonQueue
            soonQueue.removeAll(keepingCapacity: true)
            for item in work { item() }
        }
    }

    /// Milliseconds for the wait: rounded up, so a timer never fires (and finds itself not yet due)
    /// a fraction of a millisecond early.
    static func pollTimeout(until deadline: Double, now: Double) -> Int32 {
        guard deadline.isFinite else { return -1 }
        let milliseconds = ((deadline - now) * 1000).rounded(.up)
        if milliseconds <= 0 { return 0 }
        return Int32(min(milliseconds, Double(Int32.max)))
    }

    private func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }
}

/// Why an event loop could not be made.
public struct EventLoopError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ operation: String, errno code: Int32) {
        description = "\(operation): \(String(cString: strerror(code)))"
    }
}
