import Dispatch
import Synchronization

/// A command whose work is async (`doctor` awaits the device and broker probes). It is the one
/// way to run async work from a command: the synchronous `run` that the dispatcher calls blocks
/// until the async one is done.
protocol AsyncCommand: Command, Sendable {
    func run(_ console: Console) async -> Int32
}

extension AsyncCommand {
    /// Blocks the calling thread (the `uwb2mqtt` main thread) until the async `run` is done. The
    /// work runs on Swift concurrency's threads, so the caller must never be one of them: it would
    /// wait for a thread it holds.
    func run(_ console: Console) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let slot = StatusSlot()
        Task.detached {
            slot.set(await self.run(console))
            done.signal()
        }
        done.wait()
        return slot.get()
    }

    /// `main` for async callers (tests): the same path, without blocking a thread.
    static func main(_ arguments: [String], console: Console = .standard) async -> Int32 {
        switch prepare(arguments, console: console) {
        case let .finished(status): status
        case let .ready(command): await command.run(console)
        }
    }
}

/// Hands the exit status from the detached task to the thread that waits for it.
private final class StatusSlot: Sendable {
    private let status = Mutex<Int32>(ExitStatus.failure)
    func set(_ value: Int32) { status.withLock { $0 = value } }
    func get() -> Int32 { status.withLock { $0 } }
}
