import DeviceLink
import Testing
import UCI

/// The one reading of device bytes that the live link, `replay` and the core's fuzzer share:
/// which messages are rounds of the session, which are frames, what a stop and damage report.
@Suite struct DeviceIntakeTests {
    static func round(_ handle: UInt32, sequence: UInt32 = 1) -> UCIMessage {
        .notification(.sessionInfo(SessionInfo(sequenceNumber: sequence, sessionHandle: handle, currentRangingInterval: 100,
                                               measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(2), distanceRaw: 300)]))))
    }

    static let bringUp = UCIMessage.response(.coreDeviceReset(status: .ok)).encoded()
        + UCIMessage.response(.sessionInit(status: .ok, sessionHandle: 7)).encoded()

    /// A report in words, for comparing sequences.
    static func summary(_ report: DeviceReport) -> String {
        switch report {
        case let .measurements(info, receivedAt, _, _): "round \(info.sessionHandle)#\(info.sequenceNumber) at \(receivedAt)"
        case let .frame(raw, _, valid): "frame \(raw.name)\(valid ? "" : " invalid")"
        case let .sessionStopped(reason): "stopped \(reason.map { "\($0.rawValue)" } ?? "-")"
        case let .log(level, text): "\(level): \(text)"
        default: "other"
        }
    }

    @Test func aRoundOfTheSessionIsMeasurementsAndEveryOtherMessageAFrame() {
        var intake = DeviceIntake()
        var session = RecordedSession()
        let bytes = Self.bringUp + Self.round(7).encoded() + Self.round(9).encoded()
            + UCIMessage.notification(.sessionStatus(sessionHandle: 7, state: .idle, reason: 0x01)).encoded()
        let reports = intake.take(bytes, at: 100, session: &session).map(Self.summary)
        #expect(reports == ["frame CORE_DEVICE_RESET_RSP", "frame SESSION_INIT_RSP", "round 7#1 at 100.0",
                            "frame SESSION_INFO_NTF", "frame SESSION_STATUS_NTF", "stopped 1"])
    }

    @Test func aMessageSplitAcrossReadsIsReadOnceWhole() {
        var intake = DeviceIntake()
        var session = RecordedSession()
        let bytes = Self.bringUp + Self.round(7).encoded()
        var reports: [String] = []
        for (i, byte) in bytes.enumerated() {
            reports += intake.take([byte], at: Double(i), session: &session).map(Self.summary)
        }
        #expect(reports == ["frame CORE_DEVICE_RESET_RSP", "frame SESSION_INIT_RSP", "round 7#1 at \(Double(bytes.count - 1))"])
        #expect(!intake.hasPartialPacket)
    }

    /// Hostile or broken bytes: an invalid frame each, and warnings throttled to one per 10 s
    /// with a count when the link stops.
    @Test func malformedMessagesAreInvalidFramesWithThrottledWarnings() {
        var intake = DeviceIntake()
        var session = RecordedSession()
        // SESSION_INFO_NTF with a payload far too short for a round.
        let truncated = RawMessage(messageType: .notification, gid: 0x02, oid: 0x00, payload: [1, 2, 3]).encoded()
        var reports: [String] = []
        for second in 0..<5 { reports += intake.take(truncated, at: Double(second), session: &session).map(Self.summary) }
        #expect(reports.filter { $0 == "frame SESSION_INFO_NTF invalid" }.count == 5)
        let warnings = reports.filter { $0.hasPrefix("warning: malformed SESSION_INFO_NTF from the device") }
        #expect(warnings.count == 1, "\(reports)")
        let summary = intake.flushLogs(at: 5).map(Self.summary)
        #expect(summary == ["warning: … 4 more like it in the last 5 s"])
    }
}
