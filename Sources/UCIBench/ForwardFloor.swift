import UCI

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The least a gateway that publishes can cost on this machine: a process that reads the pty
/// and, for every SESSION_INFO_NTF, sends the Python baseline's eight `range` messages (QoS 0
/// PUBLISH packets, encoded once at start, the notification's sequence number written into them)
/// to the broker in one `send` — no decoding beyond the packet header, no rules, no JSON
/// rendering, no allocation. Where the Python baseline costs less than ten times this per
/// measurement, a tenfold lead over it is not to be had by any gateway that publishes what it
/// publishes on this machine: the rest of that cost is the kernel's (waking, reading the pty,
/// loopback TCP on both sides of the connection).
///
/// With `--packets FILE` it sends instead, per notification, the next of the agent's own
/// recorded groups of packets (OwnMessagesFloor.swift), over MQTT 5 as the agent does, reading
/// the acknowledgements of those at QoS 1 as the agent must.
///
/// With `--render` as well, it decodes each notification (`UCIMessage`) and makes the recorded
/// packets again instead of replaying them (RenderedMessages.swift): the floor of the agent's own
/// messages with their rendering in it.
///
/// `uwb2mqtt-bench forward-floor --port LINK --broker-port PORT [--packets FILE [--render]]` runs
/// it; the bench measures it as it measures `cat` (Floor.swift).
func runForwardFloor(_ arguments: [String]) -> Int32 {
    var link: String?
    var brokerPort: UInt16?
    var packetsPath: String?
    let render = arguments.contains("--render")
    var index = 0
    let pairs = arguments.filter { $0 != "--render" }
    while index + 1 < pairs.count {
        switch pairs[index] {
        case "--port": link = pairs[index + 1]
        case "--broker-port": brokerPort = UInt16(pairs[index + 1])
        case "--packets": packetsPath = pairs[index + 1]
        default: break
        }
        index += 2
    }
    guard let link, let brokerPort else {
        fputs("usage: uwb2mqtt-bench forward-floor --port LINK --broker-port PORT [--packets FILE [--render]]\n", stderr)
        return 2
    }
    var recorded: [[UInt8]]?
    if let packetsPath {
        guard let groups = RecordedTraffic.groups(from: packetsPath), !groups.isEmpty else { return fail("read \(packetsPath)") }
        recorded = groups
    }
    var rendered: RenderedMessages?
    if render {
        guard let recorded, let messages = RenderedMessages(groups: recorded) else { return fail("--render needs --packets of MQTT 5 PUBLISH packets") }
        rendered = messages
    }
    var notification: [UInt8] = []
    var packets: [UInt8] = []
    packets.reserveCapacity(16_384)
    let device = open(link, O_RDWR | O_NOCTTY)
    guard device >= 0 else { return fail("open \(link)") }
    var attributes = termios()
    tcgetattr(device, &attributes)
    cfmakeraw(&attributes)
    tcsetattr(device, TCSANOW, &attributes)

    guard let broker = connectToLoopback(port: brokerPort) else { return fail("connect to 127.0.0.1:\(brokerPort)") }
    var noDelay: Int32 = 1
    setsockopt(broker, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
    // CONNECT, MQTT 3.1.1 (5 for the agent's own packets, which carry properties), clean
    // session, no keep-alive (nothing to ping for).
    let version5 = recorded != nil
    let clientID = Array((version5 ? "bench-own-floor" : "bench-floor").utf8)
    let variableHeader: [UInt8] = [0, 4] + Array("MQTT".utf8) + [version5 ? 5 : 4, 0x02, 0, 0] + (version5 ? [0] : [])
    let connectBody = variableHeader + [0, UInt8(clientID.count)] + clientID
    let connectPacket: [UInt8] = [0x10, UInt8(connectBody.count)] + connectBody
    guard send(broker, connectPacket, connectPacket.count, Int32(MSG_NOSIGNAL)) == connectPacket.count else { return fail("send CONNECT") }
    // CONNACK: type, remaining length (under 128 here), flags, reason code, MQTT 5 properties.
    var connackHeader = [UInt8](repeating: 0, count: 2)
    guard recv(broker, &connackHeader, 2, Int32(MSG_WAITALL)) == 2, connackHeader[0] == 0x20, connackHeader[1] >= 2 else { return fail("CONNACK") }
    var connack = [UInt8](repeating: 0, count: Int(connackHeader[1]))
    guard recv(broker, &connack, connack.count, Int32(MSG_WAITALL)) == connack.count, connack[1] == 0 else { return fail("CONNACK") }

    var messages = ForwardedMessages(gateway: "floor")
    var next = 0
    print("ready")
    fflush(stdout)

    var input = [UInt8](repeating: 0, count: 4096)
    var pending = 0
    var sink = [UInt8](repeating: 0, count: 4096)
    var descriptors = [pollfd(fd: device, events: Int16(POLLIN), revents: 0), pollfd(fd: broker, events: Int16(POLLIN), revents: 0)]
    // The sequence number of the notification being reassembled (its first segment's bytes 4..<8).
    var sequence: UInt32?
    while true {
        guard poll(&descriptors, 2, -1) > 0 else { continue }
        if descriptors[1].revents != 0 {
            guard recv(broker, &sink, sink.count, 0) > 0 else { return 0 }
        }
        guard descriptors[0].revents & Int16(POLLIN) != 0 else { continue }
        let count = input.withUnsafeMutableBytes { read(device, $0.baseAddress! + pending, $0.count - pending) }
        guard count > 0 else { return count == 0 ? 0 : fail("read \(link)") }
        pending += count
        var start = 0
        // UCI packets: a 4-byte header whose byte 3 is the payload length; PBF (0x10) set on
        // every segment but a message's last.
        while pending - start >= 4, pending - start >= 4 + Int(input[start + 3]) {
            let header0 = input[start], header1 = input[start + 1], length = Int(input[start + 3])
            let isSessionInfo = header0 & 0xEF == 0x62 && header1 & 0x3F == 0
            if isSessionInfo, sequence == nil, length >= 4 {
                sequence = UInt32(input[start + 4]) | UInt32(input[start + 5]) << 8 | UInt32(input[start + 6]) << 16
                    | UInt32(input[start + 7]) << 24
            }
            if isSessionInfo, rendered != nil {
                notification.append(contentsOf: input[(start + 4)..<(start + 4 + length)])
            }
            if isSessionInfo, header0 & 0x10 == 0, let number = sequence {
                if rendered != nil {
                    let message = RawMessage(messageType: .notification, gid: 2, oid: 0, payload: notification)
                    notification.removeAll(keepingCapacity: true)
                    guard case .notification(.sessionInfo)? = try? UCIMessage(decoding: message) else { return fail("decode") }
                    var now = timespec()
                    clock_gettime(CLOCK_REALTIME, &now)
                    packets.removeAll(keepingCapacity: true)
                    rendered!.render(next, at: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9, into: &packets)
                    let sent = packets.withUnsafeBytes { Glibc.send(broker, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard sent == packets.count else { return fail("send") }
                    next = (next + 1) % rendered!.count
                } else if let recorded {
                    let sent = recorded[next].withUnsafeBytes { Glibc.send(broker, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard sent == recorded[next].count else { return fail("send") }
                    next = (next + 1) % recorded.count
                } else {
                    messages.setSequence(number)
                    guard messages.send(to: broker) else { return fail("send") }
                }
                sequence = nil
            }
            start += 4 + length
        }
        if start > 0 {
            input.withUnsafeMutableBytes { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, pending - start)
            }
            pending -= start
        }
    }
}

private func fail(_ what: String) -> Int32 {
    fputs("uwb2mqtt-bench forward-floor: \(what): \(String(cString: strerror(errno)))\n", stderr)
    return 1
}

/// The eight PUBLISH packets, one buffer; the sequence number is a fixed-width field of each
/// payload (the number, then spaces: JSON allows white space before the comma).
private struct ForwardedMessages {
    private var bytes: [UInt8] = []
    private var sequenceOffsets: [Int] = []
    private static let sequenceWidth = 10

    init(gateway: String) {
        for peer in benchPeers {
            let mac = "0x" + String(repeating: "0", count: 4 - String(peer.address, radix: 16).count)
                + String(peer.address, radix: 16, uppercase: true)
            let topic = Array("bench/\(gateway)/peer/\(peer.name)/range".utf8)
            let before = Array(("{\"ts\":\"2026-12-02T08:00:00.000Z\",\"peer\":\"\(peer.name)\",\"mac\":\"\(mac)\",\"session\":42,\"seq\":").utf8)
            let after = Array((",\"status\":\"ok\",\"distance_m\":1.23,\"raw_distance_m\":1.23,\"nlos\":false,\"azimuth_deg\":null,"
                + "\"elevation_deg\":null,\"azimuth_fom\":null,\"elevation_fom\":null,\"rssi_dbm\":-60.5}").utf8)
            let remaining = 2 + topic.count + before.count + Self.sequenceWidth + after.count
            bytes.append(0x30)
            appendRemainingLength(&bytes, remaining)
            bytes += [UInt8(topic.count >> 8), UInt8(topic.count & 0xFF)] + topic + before
            sequenceOffsets.append(bytes.count)
            bytes += [UInt8](repeating: 0x20, count: Self.sequenceWidth) + after
        }
    }

    mutating func setSequence(_ sequence: UInt32) {
        for offset in sequenceOffsets {
            var value = sequence
            var digits = 0
            repeat { digits += 1; value /= 10 } while value > 0
            value = sequence
            for position in stride(from: digits - 1, through: 0, by: -1) {
                bytes[offset + position] = UInt8(48 + value % 10)
                value /= 10
            }
            for position in digits..<Self.sequenceWidth { bytes[offset + position] = 0x20 }
        }
    }

    func send(to socket: Int32) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}
