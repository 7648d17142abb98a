import DeviceLink
import Foundation
import Simulator
import Synchronization
import UCI

/// A device that powers on wanting CORE_DEVICE_RESET before anything else, as some firmware
/// does: it answers every other command with DEVICE_STATUS_NTF(ERROR) until it is reset, and
/// then like the simulated DWM3001C. With `acceptsReset: false` it answers the reset that way too;
/// with `resetAnswer` it answers the reset with those bytes instead.
/// Its thread serves the terminal's master side until `stop()`.
final class ResetFirstDevice: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(terminal: PseudoTerminal, acceptsReset: Bool = true, resetAnswer: [UInt8]? = nil) {
        let box = UncheckedTerminal(terminal)
        Thread.detachNewThread { [self] in
            var device = try? SimulatedDevice()
            var wasReset = false
            var reassembler = Reassembler(accepting: Reassembler.deviceSide)
            let started = ContinuousClock.now
            while !stopping.load(ordering: .relaxed) {
                guard let bytes = try? box.terminal.read(maximum: 256, timeout: .milliseconds(50)) else { break }
                for case let .message(raw) in reassembler.feed(bytes) {
                    let isReset = raw.gid == 0 && raw.oid == 0x00
                    if isReset && acceptsReset { wasReset = true }
                    if isReset, let resetAnswer {
                        try? box.terminal.write(resetAnswer)
                    } else if wasReset, var simulated = device {
                        let elapsed = ContinuousClock.now - started
                        let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                        try? box.terminal.write(simulated.receive(raw.encoded(), at: now).writtenBytes)
                        device = simulated
                    } else {
                        try? box.terminal.write(UCINotification.coreDeviceStatus(.error).raw.encoded())
                    }
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

/// The terminal handed to a scripted device's thread; only that thread reads and writes it until `stop()`.
struct UncheckedTerminal: @unchecked Sendable {
    let terminal: PseudoTerminal
    init(_ terminal: PseudoTerminal) { self.terminal = terminal }
}
