/// One thing the simulated device does to the outside world, in order.
///
/// The core performs no I/O; a runner (pseudo-terminal, test) carries these out one by one.
/// Each `write` is meant as its own `write(2)` call, so that a split packet really reaches the
/// host in pieces; `pause` is how split writes are spread in time.
public enum DeviceOutput: Hashable, Sendable {
    /// Bytes for the host, written in one call.
    case write([UInt8])
    /// Sleep this long before the next output (seconds), to keep the pieces of a split packet
    /// from being coalesced by the tty layer. Always far below the 100 ms the firmware waits
    /// before flushing an incomplete packet.
    case pause(seconds: Double)
    /// The USB cable is pulled: close the pseudo-terminal now and open a new one after
    /// `seconds`. The device loses all its state; what the host writes meanwhile is lost.
    case unplug(seconds: Double)
    /// A scenario with `at_end: stop` has reached its `duration`; a runner may exit.
    case scenarioEnded
    /// A line for the log about the simulated world that no UCI message shows: why a phone
    /// does not range with the gateway's session, or that it gave up. Nothing is written.
    case diagnostic(String)
}

extension Array where Element == DeviceOutput {
    /// All written bytes back to back, ignoring pauses and control actions (for tests and logs).
    public var writtenBytes: [UInt8] {
        var out: [UInt8] = []
        for case let .write(bytes) in self { out.append(contentsOf: bytes) }
        return out
    }
}
