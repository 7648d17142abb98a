import DeviceLink
import UCI

/// `doctor`'s conversation with the device: the agent's own bring-up, CORE_DEVICE_RESET (a
/// device in ERROR accepts nothing else), CORE_GET_DEVICE_INFO and CORE_GET_CAPS_INFO, each
/// answered within the probe's time and, as `DeviceSession` does, followed by the status
/// notifications the command promises (the READY after a reset) before the next one is sent,
/// for up to the session's `notificationTimeout` after the answer. It remembers what the device
/// sent besides, so that a failure can say what was actually seen rather than guess at the cause.
struct DeviceProbe {
    /// How one question ended.
    enum Outcome {
        case answered(UCIResponse)
        /// The response came but cannot be decoded.
        case malformed(RawMessage)
        /// No response to it in time; `bytes` counts everything the device sent meanwhile.
        case silent(bytes: Int)
        case readFailed(TransportError)
    }

    let transport: any ByteTransport
    let timeout: Duration
    private var reassembler = Reassembler()
    /// Names of the messages the device sent that were not the awaited answer, in order, each
    /// once (`DEVICE_STATUS_NTF(DEVICE_STATE_ERROR)`), for the report.
    private(set) var seen: [String] = []
    private(set) var messagesSeen = 0

    init(transport: any ByteTransport, timeout: Duration) {
        self.transport = transport
        self.timeout = timeout
    }

    /// Sends `command`, waits up to the probe's timeout for its response, then for what it
    /// promises (see the type).
    mutating func ask(_ command: UCICommand) throws(TransportError) -> Outcome {
        try transport.write(UCIMessage.command(command).encoded())
        var bytesSeen = 0
        var awaiting = StatusPromise(for: command).awaited
        var answer: UCIResponse?
        let clock = ContinuousClock()
        var deadline = clock.now + timeout
        while clock.now < deadline {
            let bytes: [UInt8]
            do {
                bytes = try transport.read(maximum: 4096, timeout: min(clock.now.duration(to: deadline), .milliseconds(100)))
            } catch {
                return .readFailed(error)
            }
            bytesSeen += bytes.count
            var events = reassembler.feed(bytes)
            if bytes.isEmpty && reassembler.hasPartialPacket { events += reassembler.flushPartialPacket() }
            for case let .message(raw) in events {
                messagesSeen += 1
                let decoded = try? UCIMessage(decoding: raw)
                if answer == nil, raw.messageType == .response, raw.gid == command.opcode.gid, raw.oid == command.opcode.oid {
                    guard case let .response(response)? = decoded else { return .malformed(raw) }
                    answer = response
                    deadline = min(deadline, clock.now + Self.notificationTimeout)
                    continue
                }
                // The promised status may come before the answer as well as after it.
                if case let .notification(notification)? = decoded, let index = awaiting.firstIndex(where: { $0.matches(notification) }) {
                    awaiting.remove(at: index)
                    continue
                }
                note(decoded.map(Self.describe) ?? raw.name)
            }
            if let answer, awaiting.isEmpty { return .answered(answer) }
        }
        // A firmware that does not send every promised status is answered all the same, as the
        // agent goes on without it.
        return answer.map(Outcome.answered) ?? .silent(bytes: bytesSeen)
    }

    /// How long after an answer its promised notifications are waited for: the agent's.
    static let notificationTimeout = Duration.milliseconds(Int64(DeviceSession.Timing().notificationTimeout * 1000))

    /// Reads what the device still sends (a reset's second READY) until it is quiet for a tenth
    /// of a second, at most `notificationTimeout`: a connection closed with bytes unread ends
    /// with a TCP reset, which a `tcp://` device's controller takes for an error.
    mutating func settle() {
        let clock = ContinuousClock()
        let deadline = clock.now + Self.notificationTimeout
        while clock.now < deadline {
            guard let bytes = try? transport.read(maximum: 4096, timeout: .milliseconds(100)), !bytes.isEmpty else { return }
            _ = reassembler.feed(bytes)
        }
    }

    /// What was seen, for a report: `DEVICE_STATUS_NTF(DEVICE_STATE_ERROR), …`, or nil.
    var seenSummary: String? { seen.isEmpty ? nil : seen.joined(separator: ", ") }

    private mutating func note(_ name: String) {
        guard !seen.contains(name), seen.count < 6 else { return }
        seen.append(name)
    }

    private static func describe(_ message: UCIMessage) -> String {
        switch message {
        case let .notification(.coreDeviceStatus(state)): "\(message.name)(\(state))"
        case let .notification(.coreGenericError(status)): "\(message.name)(\(status))"
        case let .notification(.sessionStatus(_, state, reason)): "\(message.name)(\(state), \(reason))"
        default: message.name
        }
    }
}
