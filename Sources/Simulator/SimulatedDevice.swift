import Vocabulary
import UCI

/// A Qorvo DWM3001C running the QM33 SDK UCI firmware, as seen from its serial port.
///
/// It is a pure, deterministic state machine: command bytes and the time go in, the bytes the
/// module would write (and control actions such as an unplug) come out. No clock, no I/O, no
/// global state; randomness comes from the scenario seed. A runner owns the pseudo-terminal and
/// calls, in a loop:
///
/// ```swift
/// let wait = device.nextEventTime.map { max(0, $0 - now) }      // poll timeout
/// if let bytes = readAvailable(timeout: wait) { outputs += device.receive(bytes, at: now) }
/// outputs += device.advance(to: now)                             // rounds, faults, flushes
/// perform(outputs)                                               // write / pause / unplug
/// ```
///
/// Times are seconds on any monotonic clock (the runner's); scenario time 0 is `startTime`.
/// A time earlier than one already seen is treated as "now": time never runs backwards. The
/// device never reads a clock itself: a runner that wants wall-clock aligned scenes
/// (`clock: wall`) computes `startTime` with `Scenario.startTime(monotonicNow:wallNow:)`.
public struct SimulatedDevice: Sendable {
    /// What `receive` and `advance` return, in order.
    public typealias Output = DeviceOutput

    public let scenario: Scenario
    /// Device time at which scenario time is 0.
    public let startTime: Double
    /// Where this device's gateway stands in the site frame; needed by site-frame paths.
    public let gatewayPosition: SitePoint?
    /// The latest time the device has been advanced to.
    public private(set) var now: Double
    public private(set) var deviceState: DeviceState = .ready
    /// Bytes received that did not form a command (garbage, flushed partial packets).
    public private(set) var discardedInputBytes = 0

    var sessions: [SimulatedSession] = []
    var nextHandle: UInt32 = 1
    var deviceConfig: [UInt8: [UInt8]] = SimulatedDevice.defaultDeviceConfig
    private var reassembler = Reassembler(accepting: Reassembler.deviceSide)
    private var lastInputTime: Double
    var noiseRNG: SplitMix64
    private var faultRNG: SplitMix64
    /// Draws the delays and order of status notifications (`device.status_delay_ms`,
    /// `status_reorder`), a stream of its own so that other draws stay as they were.
    private var statusRNG: SplitMix64
    /// Status notifications written late, in the order they fall due.
    private var heldStatus: [(time: Double, message: RawMessage)] = []
    /// While a command is being answered with held status notifications: the ones it caused.
    private var collectedStatus: [RawMessage]?
    private var faults: FaultSchedule
    /// While unplugged: the time the cable goes back in.
    private var replugTime: Double?
    private var endAnnounced = false
    /// The phones among the peers: the scenario's Android phones, then the phones started from
    /// code (every iPhone is: its app starts it).
    var phones: [SimulatedPhone]

    /// How long the firmware waits before dropping an incomplete packet (UCI_GARBAGE_TIMEOUT_MS).
    public static let partialPacketTimeout = 0.1
    /// Events this close after the target time are treated as due (seconds).
    static let timeTolerance = 1e-9
    static let defaultDeviceConfig: [UInt8: [UInt8]] = [0x01: [1]]  // LOW_POWER_MODE on (QM33 default)

    /// A powered, READY module. Throws if the scenario is not valid, or if it places peers in
    /// site coordinates and no `gatewayPosition` says where this gateway stands (the distance
    /// could only be made up).
    ///
    /// - Parameters:
    ///   - startTime: device time at which scene time is 0.
    ///   - gatewayPosition: this gateway's position in the site frame (the config's
    ///     `gateway.position`); site-frame paths are measured from it.
    ///   - poweredOnAt: device time at which the module powers on, default `startTime`. Later
    ///     than `startTime` when the scene was already running (`clock: wall`): the scene's
    ///     faults before it are skipped, as a module plugged in mid-scene never saw them, instead
    ///     of all firing at once on the first `advance`.
    public init(scenario: Scenario = .default, startTime: Double = 0, gatewayPosition: SitePoint? = nil,
                poweredOnAt: Double? = nil) throws(ScenarioError) {
        try scenario.validate()
        guard startTime.isFinite else { throw .notFinite(field: "startTime") }
        if let poweredOnAt, !poweredOnAt.isFinite { throw .notFinite(field: "poweredOnAt") }
        if let gatewayPosition, !gatewayPosition.isFinite { throw .notFinite(field: "gatewayPosition") }
        if gatewayPosition == nil, let peer = scenario.peers.first(where: \.isSiteFrame) {
            throw .gatewayPositionRequired(peer: peer.label)
        }
        self.scenario = scenario
        self.startTime = startTime
        self.gatewayPosition = gatewayPosition
        now = max(startTime, poweredOnAt ?? startTime)
        lastInputTime = now
        noiseRNG = SplitMix64(seed: scenario.seed, stream: 1)
        faultRNG = SplitMix64(seed: scenario.seed, stream: 2)
        statusRNG = SplitMix64(seed: scenario.seed, stream: 3)
        faults = FaultSchedule(scenario)
        faults.skip(before: now - startTime)
        let period = scenario.atEnd == .loop ? scenario.duration : nil
        let poweredOn = max(startTime, poweredOnAt ?? startTime)
        phones = scenario.peers.compactMap { peer in
            peer.phone.map { SimulatedPhone($0, startTime: startTime, poweredOnAt: poweredOn, period: period) }
        }
    }

    // MARK: Inspection

    /// False between an `unplug` fault and the moment the cable goes back in.
    public var isPluggedIn: Bool { replugTime == nil }
    /// Handles of the sessions that exist, oldest first.
    public var sessionHandles: [UInt32] { sessions.map(\.handle) }
    public func sessionState(handle: UInt32) -> SessionState? { sessions.first { $0.handle == handle }?.state }
    /// Scenario time now (wrapped when looping).
    public var sceneTime: Double { scenario.sceneTime(now - startTime) }

    // MARK: Pump

    /// Feeds bytes the host wrote (any chunking) and returns everything the device writes in
    /// answer, preceded by whatever fell due up to `time`. Bytes sent while unplugged are lost.
    public mutating func receive(_ bytes: [UInt8], at time: Double) -> [DeviceOutput] {
        var out = advance(to: time)
        guard isPluggedIn, !bytes.isEmpty else { return out }
        lastInputTime = now
        for event in reassembler.feed(bytes) {
            switch event {
            case let .message(raw): answer(raw, into: &out)
            case let .discarded(discard): discardedInputBytes += discard.byteCount
            }
        }
        return out
    }

    /// Runs the device up to `time`: ranging rounds, scenario faults, the flush of an
    /// incomplete input packet, the end of the scenario, in time order.
    public mutating func advance(to time: Double) -> [DeviceOutput] {
        var out: [DeviceOutput] = []
        let target = time.isFinite ? max(time, now) : now
        // The tolerance absorbs rounding in `start + k × interval`, so that advancing to 0.6 s
        // includes the round computed as 0.6000000000000001 s.
        while let (eventTime, event) = nextEvent(), eventTime <= target + Self.timeTolerance {
            now = max(now, min(eventTime, target))
            perform(event, into: &out)
        }
        now = target
        return out
    }

    /// The earliest time at which `advance` has something to do, nil if nothing is scheduled
    /// (the device then only answers commands).
    public var nextEventTime: Double? { nextEvent()?.time }

    // MARK: Events

    private enum Event {
        case replug, flushInput, fault, heldStatus, round(index: Int), phoneStart(index: Int), phoneGivesUp(index: Int), scenarioEnd
    }

    private func nextEvent() -> (time: Double, event: Event)? {
        var best: (time: Double, event: Event)?
        func consider(_ time: Double?, _ event: Event) {
            guard let time, best == nil || time < best!.time else { return }
            best = (time, event)
        }
        consider(replugTime, .replug)
        if reassembler.hasPartialPacket { consider(lastInputTime + Self.partialPacketTimeout, .flushInput) }
        consider(faults.nextTime.map { startTime + $0 }, .fault)
        consider(heldStatus.first?.time, .heldStatus)
        if isPluggedIn && deviceState != .error {
            for (index, session) in sessions.enumerated() where session.state == .active {
                consider(session.nextRoundTime, .round(index: index))
            }
        }
        // Phones keep their own time, whatever state the module is in.
        for (index, phone) in phones.enumerated() {
            consider(phone.nextScheduledStart, .phoneStart(index: index))
            consider(phone.giveUpTime, .phoneGivesUp(index: index))
        }
        if !endAnnounced, scenario.atEnd == .stop, let duration = scenario.duration {
            consider(startTime + duration, .scenarioEnd)
        }
        return best
    }

    private mutating func perform(_ event: Event, into out: inout [DeviceOutput]) {
        switch event {
        case .replug:
            replugTime = nil
        case .flushInput:
            for case let .discarded(discard) in reassembler.flushPartialPacket() { discardedInputBytes += discard.byteCount }
        case .fault:
            if let fault = faults.pop(), isPluggedIn { inject(fault.kind, into: &out) }
        case .heldStatus:
            send(heldStatus.removeFirst().message, into: &out)
        case let .round(index):
            round(index, into: &out)
        case let .phoneStart(index):
            phones[index].startScheduled(at: now)
        case let .phoneGivesUp(index):
            phoneGivesUp(index, into: &out)
        case .scenarioEnd:
            endAnnounced = true
            out.append(.scenarioEnded)
        }
    }

    private mutating func round(_ index: Int, into out: inout [DeviceOutput]) {
        var session = sessions[index]
        let model = RangingModel(scenario: scenario, gatewayPosition: gatewayPosition)
        let t = sceneTime
        diagnosePhones(in: session, into: &out)
        var measurements: [TwoWayRangingMeasurement] = []
        for address in session.peers { measurements.append(measure(address, in: session, model: model, at: t)) }
        let intervalMilliseconds = scenario.device.rangingInterval.map { UInt32(($0 * 1000).rounded()) }
            ?? session.rangingDurationMilliseconds
        let info = SessionInfo(sequenceNumber: session.roundCount, sessionHandle: session.handle,
                               currentRangingInterval: intervalMilliseconds, measurements: .twoWay(measurements))
        session.roundCount &+= 1
        session.roundsSinceStart += 1
        session.nextRoundTime = session.rangingStart + Double(session.roundsSinceStart + 1) * roundInterval(session)
        sessions[index] = session
        send(UCINotification.sessionInfo(info).raw, into: &out)
    }

    /// Seconds between rounds: the scenario's override, else RANGING_DURATION.
    func roundInterval(_ session: SimulatedSession) -> Double {
        scenario.device.rangingInterval ?? Double(session.rangingDurationMilliseconds) / 1000
    }

    // MARK: Faults

    /// Pulls the cable at `time` for `duration` seconds, as an `unplug` fault does: for tests
    /// that unplug when they are ready rather than at a scene time.
    public mutating func unplug(for duration: Double, at time: Double) -> [DeviceOutput] {
        var out = advance(to: time)
        inject(.unplug(duration: duration), into: &out)
        return out
    }

    private mutating func inject(_ kind: ScenarioFault.Kind, into out: inout [DeviceOutput]) {
        switch kind {
        case let .garbage(count):
            var bytes: [UInt8] = []
            while bytes.count < count {
                let byte = UInt8(truncatingIfNeeded: faultRNG.next())
                if ScenarioFault.isGarbageByte(byte) { bytes.append(byte) }
            }
            out.append(.write(bytes))
        case .splitWrites:
            break  // a window, consulted by `send`
        case .deviceReset:
            powerCycle()
            send(UCINotification.coreDeviceStatus(.ready).raw, into: &out)
        case .deviceError:
            deviceState = .error
            send(UCINotification.coreDeviceStatus(.error).raw, into: &out)
        case let .unplug(duration):
            powerCycle()
            reassembler = Reassembler(accepting: Reassembler.deviceSide)
            heldStatus = []
            replugTime = now + duration
            out.append(.unplug(seconds: duration))
        case let .sessionStopped(reason):
            var stoppedAny = false
            for index in sessions.indices where sessions[index].state == .active {
                sessions[index].state = .idle
                sessions[index].nextRoundTime = nil
                stoppedAny = true
                send(UCINotification.sessionStatus(sessionHandle: sessions[index].handle, state: .idle, reason: reason).raw,
                     into: &out)
            }
            if stoppedAny { updateDeviceActivity(into: &out) }
        }
    }

    /// Everything a reboot loses: sessions, handle numbering, device configuration, error state.
    mutating func powerCycle() {
        sessions = []
        nextHandle = 1
        deviceConfig = Self.defaultDeviceConfig
        deviceState = .ready
    }

    /// DEVICE_STATUS_NTF when the device goes ACTIVE (first session ranging) or back to READY
    /// (no session ranging any more), as the firmware reports it (uci.md §7 V10, V13).
    mutating func updateDeviceActivity(into out: inout [DeviceOutput]) {
        guard deviceState != .error else { return }
        let wanted: DeviceState = sessions.contains { $0.state == .active } ? .active : .ready
        guard wanted != deviceState else { return }
        deviceState = wanted
        send(UCINotification.coreDeviceStatus(wanted).raw, into: &out)
    }

    // MARK: Writing

    /// Answers one command. With `status_delay_ms` or `status_reorder`, the status notifications
    /// it causes are not written right after the response: each is held for a delay drawn from
    /// the range, and with reordering they come in any order, about half of them before the
    /// response.
    private mutating func answer(_ raw: RawMessage, into out: inout [DeviceOutput]) {
        guard scenario.device.holdsStatusNotifications else { return handle(raw, into: &out) }
        let start = out.count
        collectedStatus = []
        handle(raw, into: &out)
        var statuses = collectedStatus ?? []
        collectedStatus = nil
        if scenario.device.statusReorder {
            for index in statuses.indices.reversed() where index > 0 {
                statuses.swapAt(index, statusRNG.nextInt(in: 0...index))
            }
        }
        var early: [DeviceOutput] = []
        for message in statuses {
            if scenario.device.statusReorder && statusRNG.nextUnit() < 0.5 {
                send(message, into: &early)
                continue
            }
            let delay = scenario.device.statusDelay.map { $0.lowerBound + statusRNG.nextUnit() * ($0.upperBound - $0.lowerBound) } ?? 0
            let due = now + delay
            let position = heldStatus.firstIndex { $0.time > due } ?? heldStatus.endIndex
            heldStatus.insert((due, message), at: position)
        }
        out.insert(contentsOf: early, at: start)
    }

    /// DEVICE_STATUS_NTF and SESSION_STATUS_NTF: what `status_delay_ms` and `status_reorder` move.
    private static func isStatusNotification(_ message: RawMessage) -> Bool {
        message.messageType == .notification && ((message.gid == 0 && message.oid == 0x01) || (message.gid == 1 && message.oid == 0x02))
    }

    /// Queues a message: one write per packet (a message over 255 bytes is segmented), each
    /// cut into pieces while a `split_writes` window is open.
    mutating func send(_ message: RawMessage, into out: inout [DeviceOutput]) {
        if collectedStatus != nil, Self.isStatusNotification(message) {
            collectedStatus?.append(message)
            return
        }
        let split = FaultSchedule.isSplitting(scenario, at: sceneTime)
        for packet in message.packets() {
            let bytes = packet.bytes
            guard let (maxChunk, gap) = split else {
                out.append(.write(bytes))
                continue
            }
            var start = 0
            while start < bytes.count {
                if start > 0 && gap > 0 { out.append(.pause(seconds: gap)) }
                let end = min(bytes.count, start + faultRNG.nextInt(in: 1...maxChunk))
                out.append(.write(Array(bytes[start..<end])))
                start = end
            }
        }
    }
}
