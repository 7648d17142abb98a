import DeviceLink
import UCI

/// `doctor`'s conversation with the device: the first steps of the agent's own bring-up,
/// CORE_DEVICE_RESET (a device in ERROR accepts nothing else) then CORE_GET_DEVICE_INFO, each
/// answered within the probe's time. It remembers what the device sent besides the answers, so
/// that a failure can say what was actually seen rather than guess at the cause.
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

    /// Sends `command` and waits up to the probe's timeout for its response.
    mutating func ask(_ command: UCICommand) throws(TransportError) -> Outcome {
        try transport.write(UCIMessage.command(command).encoded())
        var bytesSeen = 0
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
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
                if raw.messageType == .response, raw.gid == command.opcode.gid, raw.oid == command.opcode.oid {
                    guard case let .response(response)? = decoded else { return .malformed(raw) }
                    return .answered(response)
                }
                note(decoded.map(Self.describe) ?? raw.name)
            }
        }
        return .silent(bytes: bytesSeen)
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
