import DeviceLink
import Foundation
import Simulator
import Synchronization
import UCI

/// A device whose READY comes `readyDelay` after it answered CORE_DEVICE_RESET, as real
/// firmware's may, and which is not ready before it: a command in between is answered with
/// STATUS_REJECTED (and counted in `commandsBeforeReady`). Otherwise the simulated DWM3001C.
/// Its thread serves the terminal's master side until `stop()`.
final class LateReadyDevice: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let early = Atomic<Int>(0)
    private let received = Mutex<[String]>([])

    /// Commands that came between the reset's answer and its READY.
    var commandsBeforeReady: Int { early.load(ordering: .relaxed) }
    /// The names of the commands received, in order.
    var commands: [String] { received.withLock { $0 } }

    init(terminal: PseudoTerminal, readyDelay: Duration) {
        let box = UncheckedTerminal(terminal)
        Thread.detachNewThread { [self] in
            var device = try? SimulatedDevice()
            var commands = Reassembler(accepting: Reassembler.deviceSide)
            var held: [RawMessage] = []
            var readyAt: ContinuousClock.Instant?
            let started = ContinuousClock.now
            while !stopping.load(ordering: .relaxed) {
                if let due = readyAt, ContinuousClock.now >= due {
                    for message in held { try? box.terminal.write(message.encoded()) }
                    held = []
                    readyAt = nil
                }
                guard let bytes = try? box.terminal.read(maximum: 256, timeout: .milliseconds(10)) else { break }
                for case let .message(raw) in commands.feed(bytes) {
                    received.withLock { $0.append(raw.name) }
                    if readyAt != nil {
                        early.add(1, ordering: .relaxed)
                        let rejected = RawMessage(messageType: .response, gid: raw.gid, oid: raw.oid, payload: [Status.rejected.rawValue])
                        try? box.terminal.write(rejected.encoded())
                        continue
                    }
                    guard var simulated = device else { continue }
                    let elapsed = ContinuousClock.now - started
                    let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    let written = simulated.receive(raw.encoded(), at: now).writtenBytes
                    device = simulated
                    guard raw.gid == 0, raw.oid == 0x00 else {
                        try? box.terminal.write(written)
                        continue
                    }
                    // The reset: its answer now, its notifications (READY) later.
                    var answers = Reassembler()
                    for case let .message(message) in answers.feed(written) {
                        if message.messageType == .notification { held.append(message) } else { try? box.terminal.write(message.encoded()) }
                    }
                    readyAt = ContinuousClock.now + readyDelay
                }
            }
            finished.signal()
        }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        _ = finished.wait(timeout: .now() + 2)
    }
}

