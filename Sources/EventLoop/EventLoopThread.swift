import Dispatch
import Synchronization

/// An event loop running on a thread of its own, for code that is not itself a loop — tests and
/// one-shot tools — to use loop-bound objects (the MQTT client, the device link) through `sync`.
///
/// The agent does not use this: it runs its loop on the thread that starts it.
public final class EventLoopThread: Sendable {
    private let remote: RemoteQueue
    private let stopped = StopFlag()
    private let ended = DispatchSemaphore(value: 0)
    /// The loop, reachable only from its own thread (through `sync`).
    private let box: LoopBox

    private final class LoopBox: @unchecked Sendable {
        // Written once on the loop's thread before `init` returns; read only on that thread.
        var loop: EventLoop?
    }

    public init(name: String = "event loop") throws {
        let ready = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<RemoteQueue, EventLoopError>?>(nil)
        let box = LoopBox()
        let stopped = self.stopped
        let ended = self.ended
        DetachedThread.start(name: name) {
            let loop: EventLoop
            do throws(EventLoopError) {
                loop = try EventLoop()
            } catch {
                outcome.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            box.loop = loop
            outcome.withLock { $0 = .success(loop.remote) }
            ready.signal()
            loop.run(until: { stopped.isSet })
            box.loop = nil
            ended.signal()
        }
        ready.wait()
        self.box = box
        remote = try outcome.withLock { $0! }.get()
    }

    deinit {
        stop()
    }

    /// Runs `body` on the loop's thread with the loop, waits for it and returns its result.
    public func sync<T>(_ body: @escaping (EventLoop) throws -> T) throws -> T {
        let result = Mutex<Result<Transfer<T>, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let box = self.box
        let call = Transfer(body)
        remote.post {
            do {
                let value = try call.value(box.loop!)
                result.withLock { $0 = .success(Transfer(value)) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get().value
    }

    /// `sync` for a body that does not throw.
    public func run<T>(_ body: @escaping (EventLoop) -> T) -> T {
        try! sync(body)
    }

    /// Runs `body` on the loop's thread and returns its result without blocking the caller's thread
    /// meanwhile: for work that runs the loop for a while (a disconnect that waits for
    /// acknowledgements), called from Swift concurrency, whose few threads must not be held.
    public func perform<T>(_ body: @escaping (EventLoop) -> T) async -> T {
        let box = self.box
        let call = Transfer(body)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Transfer<T>, Never>) in
            remote.post { continuation.resume(returning: Transfer(call.value(box.loop!))) }
        }
        return result.value
    }

    /// Ends the loop and waits for its thread.
    public func stop() {
        guard stopped.set() else { return }
        remote.post {}
        ended.wait()
    }
}

/// Carries a value of a type that is not `Sendable` to or from the loop's thread. Only for
/// `EventLoopThread.sync`, where the other side waits until the loop is done with it.
private struct Transfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Set once by `stop`, read by the loop after every wake-up.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    /// Sets the flag; false when it was already set.
    func set() -> Bool { !value.exchange(true, ordering: .acquiringAndReleasing) }
}
