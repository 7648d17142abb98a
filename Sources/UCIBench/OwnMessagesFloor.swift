import Synchronization
import TestSupport
import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The agent's own messages, per notification: the PUBLISH packets it sent for each
/// SESSION_INFO_NTF, exactly as they left it (topics, payloads, properties, QoS, packet ids),
/// recorded from a run of the agent on the bench's load. The forwarder of them
/// (`uwb2mqtt-bench forward-floor --packets FILE`, ForwardFloor.swift) sends one group per
/// notification it reads: the least a gateway that says what the agent says can cost.
struct RecordedTraffic: Sendable {
    /// The packets of one notification each, in the order the agent sent them.
    var groups: [[UInt8]] = []
    /// Of all the groups: PUBLISH packets, those at QoS 1, and bytes.
    var packets = 0
    var acknowledgedPackets = 0

    var bytes: Int { groups.reduce(0) { $0 + $1.count } }
    var packetsPerNotification: Double { groups.isEmpty ? .nan : Double(packets) / Double(groups.count) }
    var acknowledgedPerNotification: Double { groups.isEmpty ? .nan : Double(acknowledgedPackets) / Double(groups.count) }
    var bytesPerNotification: Double { groups.isEmpty ? .nan : Double(bytes) / Double(groups.count) }

    /// Each group as its length (4 bytes, little-endian) and its bytes.
    func write(to path: String) throws {
        var file: [UInt8] = []
        file.reserveCapacity(bytes + 4 * groups.count)
        for group in groups {
            let length = UInt32(group.count)
            file += [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
            file += group
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(file)) else { throw BenchError("cannot write \(path)") }
    }

    static func groups(from path: String) -> [[UInt8]]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        var groups: [[UInt8]] = []
        var index = 0
        while index + 4 <= bytes.count {
            let length = Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3]) << 24
            index += 4
            guard index + length <= bytes.count else { return nil }
            groups.append(Array(bytes[index..<index + length]))
            index += length
        }
        return groups
    }
}

/// A TCP proxy between the agent and the broker that keeps, while `record` is on, the PUBLISH
/// packets the agent sends, grouped by notification: a group starts with a `range` whose `seq`
/// differs from the last one's, and holds everything the agent publishes until the next (its
/// feedback, events, state; `metrics` where they fall). Runs on a thread of its own.
final class RecordingProxy: Sendable {
    let port: UInt16
    private let listener: Int32
    private let brokerPort: UInt16
    private let recording = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex(false)
    private let recorded = Mutex(Recorder())

    init(brokerPort: UInt16) throws {
        self.brokerPort = brokerPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw BenchError("bind/listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in
            relay()
            finished.withLock { $0 = true }
        }
        thread.name = "bench-recording-proxy"
        thread.start()
    }

    /// Starts a recording; `take()` ends it and returns it.
    func start() { recording.store(true, ordering: .relaxed) }

    func take() -> RecordedTraffic {
        recording.store(false, ordering: .relaxed)
        return recorded.withLock { recorder in
            defer { recorder = Recorder() }
            return recorder.traffic
        }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        while !finished.withLock({ $0 }) { usleep(1000) }
        close(listener)
    }

    /// Accepts the agent's connections one at a time, each relayed to a connection of its own to
    /// the broker, until stopped.
    private func relay() {
        while !stopping.load(ordering: .relaxed) {
            var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 100) > 0 else { continue }
            let agent = accept(listener, nil, nil)
            guard agent >= 0 else { continue }
            guard let broker = connectToLoopback(port: brokerPort) else { close(agent); continue }
            var noDelay: Int32 = 1
            for socket in [agent, broker] {
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            }
            relay(agent: agent, broker: broker)
            close(agent)
            close(broker)
        }
    }

    private func relay(agent: Int32, broker: Int32) {
        var parser = PacketParser()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var descriptors = [pollfd(fd: agent, events: Int16(POLLIN), revents: 0), pollfd(fd: broker, events: Int16(POLLIN), revents: 0)]
        while !stopping.load(ordering: .relaxed) {
            guard poll(&descriptors, 2, 100) > 0 else { continue }
            for (index, (from, to)) in [(agent, broker), (broker, agent)].enumerated() where descriptors[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                guard buffer.withUnsafeBytes({ sendAll(to, $0.baseAddress!, count) }) else { return }
                guard from == agent else { continue }
                let isRecording = recording.load(ordering: .relaxed)
                parser.feed(buffer[..<count]) { packet in
                    recorded.withLock { $0.take(packet, recording: isRecording) }
                }
            }
        }
    }

    private func sendAll(_ socket: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Bool {
        var sent = 0
        while sent < count {
            let n = send(socket, bytes + sent, count - sent, Int32(MSG_NOSIGNAL))
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }
}

/// Splits the agent's side of an MQTT connection into packets.
private struct PacketParser {
    private var pending: [UInt8] = []
    /// MQTT 5 (from the CONNECT): PUBLISH packets carry properties.
    fileprivate private(set) var version5 = true

    mutating func feed(_ bytes: ArraySlice<UInt8>, _ packet: (PublishPacket) -> Void) {
        pending += bytes
        var start = 0
        while let (header, total) = Self.lengths(pending, from: start), start + total <= pending.count {
            let body = pending[(start + header)..<(start + total)]
            switch pending[start] >> 4 {
            case 1: if body.count > 6 { version5 = body[body.startIndex + 6] == 5 }
            case 3: if let publish = PublishPacket(pending[start..<(start + total)], bodyStart: start + header, version5: version5) { packet(publish) }
            default: break
            }
            start += total
        }
        pending.removeFirst(start)
    }

    /// The fixed header's length and the whole packet's, once the remaining length is complete.
    private static func lengths(_ bytes: [UInt8], from start: Int) -> (Int, Int)? {
        var remaining = 0, multiplier = 1, index = start + 1
        while index < bytes.count, index - start <= 4 {
            remaining += Int(bytes[index] & 0x7F) * multiplier
            if bytes[index] & 0x80 == 0 { return (index - start + 1, index - start + 1 + remaining) }
            multiplier *= 128
            index += 1
        }
        return nil
    }
}

/// A PUBLISH as recorded: its bytes, whether it is QoS 1 or 2, and for a `range`, its `seq`.
private struct PublishPacket {
    var bytes: ArraySlice<UInt8>
    var acknowledged: Bool
    var rangeSequence: Int?

    init?(_ bytes: ArraySlice<UInt8>, bodyStart: Int, version5: Bool) {
        self.bytes = bytes
        let qos = (bytes[bytes.startIndex] >> 1) & 3
        acknowledged = qos > 0
        var index = bodyStart
        guard index + 2 <= bytes.endIndex else { return nil }
        let topicLength = Int(bytes[index]) << 8 | Int(bytes[index + 1])
        index += 2
        guard index + topicLength <= bytes.endIndex else { return nil }
        let topic = bytes[index..<(index + topicLength)]
        index += topicLength
        guard topic.count > 6, topic.suffix(6).elementsEqual("/range".utf8) else { return }
        if qos > 0 { index += 2 }
        if version5 {
            var length = 0, multiplier = 1
            while index < bytes.endIndex {
                let byte = bytes[index]
                index += 1
                length += Int(byte & 0x7F) * multiplier
                multiplier *= 128
                if byte & 0x80 == 0 { break }
            }
            index += length
        }
        guard index < bytes.endIndex else { return }
        let payload = bytes[index...]
        let key = Array("\"seq\":".utf8)
        guard let found = payload.indices.first(where: { payload[$0...].starts(with: key) }) else { return }
        var digits = found + key.count
        while digits < payload.endIndex, payload[digits] == 0x20 { digits += 1 }
        var value = 0, any = false
        while digits < payload.endIndex, payload[digits] >= 0x30, payload[digits] <= 0x39 {
            value = value * 10 + Int(payload[digits] - 0x30)
            digits += 1
            any = true
        }
        if any { rangeSequence = value }
    }
}

/// The groups being recorded; a group is complete once the next begins, so the one still open
/// when a recording ends is left out, as are packets before the first `range` of a recording.
private struct Recorder {
    var traffic = RecordedTraffic()
    var sequence: Int?
    var group: [UInt8] = []
    var groupPackets = 0
    var groupAcknowledged = 0

    mutating func take(_ packet: PublishPacket, recording: Bool) {
        guard recording else {
            sequence = nil
            return
        }
        if let next = packet.rangeSequence, next != sequence {
            if sequence != nil {
                traffic.groups.append(group)
                traffic.packets += groupPackets
                traffic.acknowledgedPackets += groupAcknowledged
            }
            sequence = next
            group = []
            groupPackets = 0
            groupAcknowledged = 0
        }
        guard sequence != nil else { return }
        group += packet.bytes
        groupPackets += 1
        if packet.acknowledged { groupAcknowledged += 1 }
    }
}

/// Runs the agent once more on the bench's load, through a `RecordingProxy`, and records at each
/// rate a window of what it published per notification.
func recordAgentTraffic(executable: String, broker: BenchBroker, settings: PipelineSettings) throws -> [Int: RecordedTraffic] {
    let proxy = try RecordingProxy(brokerPort: broker.port)
    defer { proxy.stop() }
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-recording")
    let link = directory.file("dwm3001c")
    let writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: true)
    defer { writer.stop() }
    let agent = try startBenchAgent(executable: executable, brokerPort: proxy.port, link: link, writer: writer, directory: directory)
    defer { agent.terminate() }
    var traffic: [Int: RecordedTraffic] = [:]
    for rate in settings.rates {
        writer.setRate(measurementsPerSecond: rate)
        sleepSeconds(1.5)
        proxy.start()
        sleepSeconds(settings.window)
        let recording = proxy.take()
        guard !recording.groups.isEmpty else { throw BenchError("nothing recorded of the agent at \(rate)/s") }
        log("the agent's own messages at \(rate)/s: \(recording.groups.count) notifications, "
            + "\(recording.packetsPerNotification) packets (\(recording.acknowledgedPerNotification) at QoS 1) and "
            + "\(recording.bytesPerNotification) bytes per notification")
        traffic[rate] = recording
    }
    writer.setRate(measurementsPerSecond: 0)
    return traffic
}

/// The forwarder of the agent's own recorded messages at each rate (a process per rate, since
/// each rate has its recording), measured as the other floors are.
func measureOwnMessagesFloor(settings: PipelineSettings, broker: BenchBroker,
                             traffic: [Int: RecordedTraffic]) throws -> [FloorFigure] {
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-own")
    var floors: [FloorFigure] = []
    for rate in settings.rates {
        guard let recording = traffic[rate] else { continue }
        let file = directory.file("packets-\(rate)")
        try recording.write(to: file)
        var one = settings
        one.rates = [rate]
        let subscriber = try Subscriber(port: broker.port, filter: "bench/swift/peer/+/range", clientID: "bench-sub-own-\(rate)")
        defer { subscriber.close() }
        floors += try measureFloor(name: "forwarder of the agent's own messages", settings: one, subscriber: subscriber) { link, directory in
            try ChildProcess(executable: executableDirectory() + "/uwb2mqtt-bench",
                             arguments: ["forward-floor", "--port", link, "--broker-port", String(broker.port), "--packets", file],
                             stdoutPath: directory.file("floor.stdout"), stderrPath: directory.file("floor.stderr"))
        }
    }
    return floors
}
