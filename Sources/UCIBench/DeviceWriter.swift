import EventLoop
import DeviceLink
import Foundation
import Simulator
import Synchronization
import UCI
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Nanoseconds on CLOCK_MONOTONIC: the one clock the writer, the subscriber and the phases share.
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// The bench's DWM3001C: a pseudo-terminal whose master this thread owns.
///
/// It answers the agent's bring-up (reset, device info, caps, SESSION_INIT, SET_APP_CONFIG,
/// SESSION_START) with the project's `SimulatedDevice` — whose own ranging rounds are pushed an
/// hour away — and, once a session is ACTIVE (or at once, for a gateway that does no bring-up),
/// writes SESSION_INFO_NTFs of `peers.count` TWR measurements at the rate set with
/// `setRate(measurementsPerSecond:)`, paced on CLOCK_MONOTONIC with absolute deadlines. Each
/// notification's sequence number is its index from 0, and the time just before its `write()`
/// is kept per sequence number: the latency figure's starting point.
///
/// The measurements are cheap to make and move: peer i swings between 0.05 m and 12.05 m on a
/// 20 s sine with a phase of i·45°, so zones, stages, approaches and rankings keep changing.
final class DeviceWriter: Sendable {
    struct Stats: Sendable {
        var sessionActive = false
        /// Write time (monotonic ns) of notification `seq`, indexed by `seq`.
        var writeTimes: [UInt64] = []
        var writeFailures = 0
        var lastError: String?
    }

    let terminal: PseudoTerminal
    let peers: [UInt16]
    let requiresBringUp: Bool
    private let rate = Atomic<Int>(0)          // measurements per second
    private let stopping = Atomic<Bool>(false)
    private let stats = Mutex(Stats())
    private let finished = Mutex(false)

    init(linkPath: String, peers: [UInt16], requiresBringUp: Bool) throws {
        terminal = try PseudoTerminal(writeTimeout: .seconds(600))
        try terminal.link(at: linkPath)
        self.peers = peers
        self.requiresBringUp = requiresBringUp
        let device = try SimulatedDevice(scenario: Scenario(name: "bench", device: ScenarioDevice(rangingInterval: 3600)),
                                         startTime: Clocks.monotonic())
        let thread = Thread { [self] in
            var owned = device
            run(&owned)
            finished.withLock { $0 = true }
        }
        thread.name = "bench-device-writer"
        thread.start()
    }

    var sessionActive: Bool { stats.withLock { $0.sessionActive } }
    var written: Int { stats.withLock { $0.writeTimes.count } }
    var writeFailures: Int { stats.withLock { $0.writeFailures } }
    func writeTimes() -> [UInt64] { stats.withLock { $0.writeTimes } }

    func setRate(measurementsPerSecond: Int) { rate.store(measurementsPerSecond, ordering: .relaxed) }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        while !finished.withLock({ $0 }) { usleep(1000) }
        terminal.close()
    }

    private func activeHandle(_ device: SimulatedDevice) -> UInt32? {
        device.sessionHandles.first { device.sessionState(handle: $0) == .active }
    }

    private func run(_ device: inout SimulatedDevice) {
        var template = Self.payloadTemplate(peers: peers)
        var seq: UInt32 = 0
        var nextDue: UInt64 = 0
        var lastCommandPoll: UInt64 = 0
        var handle: UInt32? = requiresBringUp ? nil : 1
        while !stopping.load(ordering: .relaxed) {
            let perSecond = rate.load(ordering: .relaxed)
            let streaming = perSecond > 0 && handle != nil
            let now = monotonicNanoseconds()
            // Commands: every pass while idle (with a short wait), every 5 ms while streaming.
            if !streaming || now - lastCommandPoll > 5_000_000 {
                lastCommandPoll = now
                do {
                    let bytes = try terminal.read(maximum: 4096, timeout: streaming ? .zero : .milliseconds(5))
                    if !bytes.isEmpty {
                        for case let .write(reply) in device.receive(bytes, at: Clocks.monotonic()) { try terminal.write(reply) }
                        if requiresBringUp {
                            handle = activeHandle(device)
                            let active = handle != nil
                            stats.withLock { $0.sessionActive = active }
                        }
                    }
                } catch {
                    stats.withLock { $0.writeFailures += 1; $0.lastError = "\(error)" }
                    usleep(10_000)
                }
            }
            guard streaming, let handle else {
                nextDue = 0
                continue
            }
            let period = UInt64(1e9 * Double(peers.count) / Double(perSecond))
            if nextDue == 0 || now > nextDue + 200_000_000 { nextDue = now }   // never burst more than 0.2 s behind
            if now < nextDue {
                var until = timespec(tv_sec: Int(nextDue / 1_000_000_000), tv_nsec: Int(nextDue % 1_000_000_000))
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil)
                continue
            }
            let bytes = Self.notification(&template, seq: seq, handle: handle, peers: peers,
                                          at: Double(now) / 1e9, intervalMilliseconds: UInt32(period / 1_000_000))
            let writtenAt = monotonicNanoseconds()
            do {
                try terminal.write(bytes)
                stats.withLock { $0.writeTimes.append(writtenAt) }
                seq &+= 1
            } catch {
                stats.withLock { $0.writeFailures += 1; $0.lastError = "\(error)" }
            }
            nextDue += period
        }
    }

    /// SESSION_INFO_NTF payload: 25-byte header + one 31-byte TWR entry per peer.
    static func payloadTemplate(peers: [UInt16]) -> [UInt8] {
        let measurements = peers.map { TwoWayRangingMeasurement(macAddress: .short($0), distanceRaw: 100, rssiRaw: 150) }
        let info = SessionInfo(sequenceNumber: 0, sessionHandle: 1, currentRangingInterval: 8, measurements: .twoWay(measurements))
        return UCINotification.sessionInfo(info).raw.payload
    }

    static func notification(_ payload: inout [UInt8], seq: UInt32, handle: UInt32, peers: [UInt16], at t: Double,
                             intervalMilliseconds: UInt32) -> [UInt8] {
        func put32(_ value: UInt32, at offset: Int) {
            for i in 0..<4 { payload[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        put32(seq, at: 0)
        put32(handle, at: 4)
        put32(max(1, intervalMilliseconds), at: 9)
        for i in peers.indices {
            let metres = 6.05 + 6 * sin(2 * Double.pi * t / 20 + Double(i) * Double.pi / 4)
            let centimetres = UInt16(max(0, metres * 100).rounded())
            let offset = SessionInfo.headerSize + 31 * i + 4
            payload[offset] = UInt8(truncatingIfNeeded: centimetres)
            payload[offset + 1] = UInt8(truncatingIfNeeded: centimetres >> 8)
        }
        return RawMessage(messageType: .notification, gid: 2, oid: 0, payload: payload).encoded()
    }
}
