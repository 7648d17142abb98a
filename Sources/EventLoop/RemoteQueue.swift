#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinuxEvents
import Synchronization

/// How another thread hands work to an event loop: the work is queued under a lock and the loop
/// is woken through an eventfd it polls. The only part of a loop that is `Sendable`.
///
/// For the few threads the agent has besides its loop (a blocking broker connect, a test driving
/// a loop on its own thread); never on the per-measurement path.
public final class RemoteQueue: Sendable {
    private let queue = Mutex<[@Sendable () -> Void]>([])
    let descriptor: Int32

    init() throws(EventLoopError) {
        descriptor = clinux_eventfd()
        guard descriptor >= 0 else { throw EventLoopError("eventfd", errno: errno) }
    }

    deinit {
        close(descriptor)
    }

    /// Queues `work` to run on the loop's thread, in the order posted, and wakes the loop.
    public func post(_ work: @escaping @Sendable () -> Void) {
        let first = queue.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        // One wake-up per batch of posts: once woken, the loop runs all that is queued.
        if first { _ = clinux_eventfd_signal(descriptor) }
    }

    /// The oldest queued work, or nil. On the loop's thread.
    ///
    /// One at a time, not the whole queue: a piece of work may run the loop itself (a shutdown
    /// that waits for acknowledgements), and work posted before it then runs in that nested run
    /// instead of waiting behind it. The wake-up is reset only when the queue is empty, under the
    /// lock, so that a queue with work in it always leaves the descriptor readable.
    func next() -> (@Sendable () -> Void)? {
        queue.withLock { queue in
            guard !queue.isEmpty else {
                _ = clinux_eventfd_drain(descriptor)
                return nil
            }
            let work = queue.removeFirst()
            if queue.isEmpty { _ = clinux_eventfd_drain(descriptor) }
            return work
        }
    }
}
