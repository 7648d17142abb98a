import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT/SIGTERM (and, for the agent, SIGHUP) into calls on a queue instead of the default
/// "die now", so that commands can close terminals, publish `offline` and remove links first.
public final class SignalWaiter {
    private let sources: [any DispatchSourceSignal]

    /// Installs handlers; `handler` runs on a private queue with the signal number.
    public init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "uwb2mqtt.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Blocks the calling thread until one of `signals` arrives; returns its number.
    public static func wait(for signals: [Int32]) -> Int32 {
        let semaphore = DispatchSemaphore(value: 0)
        let received = ReceivedSignal()
        let waiter = SignalWaiter(signals) { number in
            received.set(number)
            semaphore.signal()
        }
        semaphore.wait()
        withExtendedLifetime(waiter) {}
        return received.value
    }
}

private final class ReceivedSignal: Sendable {
    private let number = Atomic<Int32>(0)
    func set(_ value: Int32) { number.store(value, ordering: .relaxed) }
    var value: Int32 { number.load(ordering: .relaxed) }
}
