import UCI
import Vocabulary

/// Bytes from the device to ``DeviceReport``s: the one reading of what a device sends, for the
/// live link, `replay` and the core's fuzzer alike (as gpsd's daemon, its offline decoder and its
/// fuzzer all go through one `gpsd_poll()`).
///
/// It reassembles packets, decodes each message, and asks the caller's session which rounds of
/// it count (``Reading``): the live link's `DeviceSession`, which also answers the device, or a
/// recording's ``RecordedSession``, which only listens. A round that counts is a `measurements`
/// report, any other message a `frame`; a message that does not decode is a frame marked invalid,
/// and it and damaged bytes are warnings, throttled, since hostile or broken bytes come per packet.
public struct DeviceIntake: Sendable {
    /// What a session made of one message.
    public enum Reading: Equatable, Sendable {
        /// A round of one of its sessions, while it ranges.
        case rounds(SessionInfo)
        /// It stopped ranging without the host asking (for this reason; nil when the device
        /// failed or reset): its peers' links are lost. The live link's `DeviceSession` says this
        /// with the rest of its news; a recording's session says it here.
        case stopped(ReasonCode?)
    }

    /// A decoded message, or what to report instead of one (an undecodable frame, damage).
    public enum Item: Sendable {
        case message(UCIMessage, RawMessage)
        case report(DeviceReport)
    }

    private var reassembler = Reassembler()
    private var collected: [Reassembler.Event] = []
    private var malformedLog = LogThrottle()
    private var discardLog = LogThrottle()

    public init() {}

    /// Whether the last bytes ended inside a packet (the firmware drops it after 100 ms).
    public var hasPartialPacket: Bool { reassembler.hasPartialPacket }

    /// Forgets a partial packet: the transport was closed or opened again.
    public mutating func restart() {
        reassembler = Reassembler()
    }

    /// The messages in `bytes`, appended to `items`; `now` dates the warnings' throttle. The caller
    /// asks its session about each message after this returns, so that what the session does (a
    /// disconnect restarts the intake) never happens while the intake is still reading.
    public mutating func read(_ bytes: some Sequence<UInt8>, receivedAt: Double, now: Double, into items: inout [Item]) {
        reassembler.feed(bytes) { collected.append($0) }
        decodeCollected(receivedAt: receivedAt, now: now, into: &items)
    }

    /// The partial packet given up on (its bytes reported as damage), appended to `items`.
    public mutating func flushPartialPacket(receivedAt: Double, now: Double, into items: inout [Item]) {
        collected.append(contentsOf: reassembler.flushPartialPacket())
        decodeCollected(receivedAt: receivedAt, now: now, into: &items)
    }

    /// The throttled warnings' summaries, when the link stops.
    public mutating func flushLogs(at now: Double) -> [DeviceReport] {
        [malformedLog.flush(at: now), discardLog.flush(at: now)].compactMap { $0.map { .log(.warning, $0) } }
    }

    private mutating func decodeCollected(receivedAt: Double, now: Double, into items: inout [Item]) {
        for event in collected {
            switch event {
            case let .message(raw):
                do {
                    items.append(.message(try UCIMessage(decoding: raw), raw))
                } catch {
                    items.append(.report(.frame(raw, receivedAt: receivedAt, valid: false)))
                    for line in malformedLog.lines(for: "malformed \(raw.name) from the device: \(error.description)", at: now) {
                        items.append(.report(.log(.warning, line)))
                    }
                }
            case let .discarded(discard):
                for line in discardLog.lines(for: "\(discard)", at: now) { items.append(.report(.log(.warning, line))) }
            }
        }
        collected.removeAll(keepingCapacity: true)
    }

    /// What a decoded message reports, given what the session made of it: each round that counts,
    /// or the frame when none does; then a stop.
    public static func reports(of raw: RawMessage, _ readings: some Sequence<Reading>, receivedAt: Double, monotonic: Double,
                               into report: (DeviceReport) -> Void) {
        var measured = false
        var stop: ReasonCode?? = nil
        for reading in readings {
            switch reading {
            case let .rounds(info):
                measured = true
                report(.measurements(info, receivedAt: receivedAt, monotonic: monotonic, raw: raw))
            case let .stopped(reason):
                stop = .some(reason)
            }
        }
        if !measured { report(.frame(raw, receivedAt: receivedAt, valid: true)) }
        if case let .some(reason) = stop { report(.sessionStopped(reason)) }
    }

    /// Everything `bytes` of a recording report, read with `session` (`replay`, the fuzzer): the
    /// time of the recording is the only clock.
    public mutating func take(_ bytes: some Sequence<UInt8>, at time: Double, session: inout RecordedSession) -> [DeviceReport] {
        var items: [Item] = []
        read(bytes, receivedAt: time, now: time, into: &items)
        var reports: [DeviceReport] = []
        for item in items {
            switch item {
            case let .report(report):
                reports.append(report)
            case let .message(message, raw):
                Self.reports(of: raw, session.read(message), receivedAt: time, monotonic: time) { reports.append($0) }
            }
        }
        return reports
    }
}
