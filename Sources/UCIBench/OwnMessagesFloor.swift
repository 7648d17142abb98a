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

/// What the agent sends the broker, seen through a `TCPOutageProxy` between them: while `start()`
/// is in effect, the PUBLISH packets grouped by notification. A group starts with a `range`
/// whose `seq` differs from the last one's, and holds everything the agent publishes until the
/// next (its feedback, events, state; `metrics` where they fall).
final class AgentTrafficRecorder: Sendable {
    private let recording = Atomic<Bool>(false)
    private let state = Mutex(State())

    private struct State {
        var parser = PacketParser()
        var recorder = Recorder()
    }

    /// The proxy's observer of the agent's bytes (one connection: the agent's).
    func observe(_ bytes: ArraySlice<UInt8>) {
        let isRecording = recording.load(ordering: .relaxed)
        state.withLock { state in
            state.parser.feed(bytes) { packet in state.recorder.take(packet, recording: isRecording) }
        }
    }

    /// Starts a recording; `take()` ends it and returns it.
    func start() { recording.store(true, ordering: .relaxed) }

    func take() -> RecordedTraffic {
        recording.store(false, ordering: .relaxed)
        return state.withLock { state in
            defer { state.recorder = Recorder() }
            return state.recorder.traffic
        }
    }
}

/// Splits the agent's side of an MQTT connection into packets.
private struct PacketParser: Sendable {
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
private struct PublishPacket: Sendable {
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
private struct Recorder: Sendable {
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

/// What the agent published per notification at `rate` alone, from a five-second window: what
/// the subcommands that study one rate (`hold --floor`, `instructions-only --floor`) replay.
func recordAgentTraffic(executable: String, broker: BenchBroker, rate: Int) throws -> RecordedTraffic {
    var settings = PipelineSettings()
    settings.rates = [rate]
    settings.window = 5
    guard let traffic = try recordAgentTraffic(executable: executable, broker: broker, settings: settings)[rate] else {
        throw BenchError("nothing recorded at \(rate)/s")
    }
    return traffic
}

/// Runs the agent once more on the bench's load, through a proxy that records, and records at
/// each rate a window of what it published per notification.
func recordAgentTraffic(executable: String, broker: BenchBroker, settings: PipelineSettings) throws -> [Int: RecordedTraffic] {
    let recorder = AgentTrafficRecorder()
    let proxy = try TCPOutageProxy(to: broker.port, observingClient: { recorder.observe($0) })
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
        recorder.start()
        sleepSeconds(settings.window)
        let recording = recorder.take()
        guard !recording.groups.isEmpty else { throw BenchError("nothing recorded of the agent at \(rate)/s") }
        log("the agent's own messages at \(rate)/s: \(recording.groups.count) notifications, "
            + "\(recording.packetsPerNotification) packets (\(recording.acknowledgedPerNotification) at QoS 1) and "
            + "\(recording.bytesPerNotification) bytes per notification")
        traffic[rate] = recording
    }
    writer.setRate(measurementsPerSecond: 0)
    return traffic
}

/// The forwarder of the recorded packets in `packets` (`forward-floor --packets FILE`, with
/// `render` made again: `--render`) on the pty `link`, run by `executable` (the bench itself, or
/// a wrapper that runs it under callgrind); with `readyWithin`, once it has said it is connected.
func startOwnMessagesFloor(executable: String = executableDirectory() + "/uwb2mqtt-bench", link: String, brokerPort: UInt16,
                           packets: String, render: Bool, directory: TemporaryDirectory, name: String = "floor",
                           readyWithin seconds: UInt64? = nil) throws -> ChildProcess {
    let process = try ChildProcess(executable: executable,
                                   arguments: ["forward-floor", "--port", link, "--broker-port", String(brokerPort), "--packets", packets]
                                       + (render ? ["--render"] : []),
                                   stdoutPath: directory.file("\(name).stdout"), stderrPath: directory.file("\(name).stderr"))
    guard let seconds else { return process }
    let deadline = monotonicNanoseconds() + seconds * 1_000_000_000
    while ProcFS.read(process.stdoutPath)?.contains("ready") != true {
        guard process.isRunning, monotonicNanoseconds() < deadline else {
            process.terminate()
            throw BenchError("the forwarder of \(packets) did not start: \(ProcFS.read(process.stderrPath) ?? "")")
        }
        usleep(10_000)
    }
    return process
}

/// The forwarder of the agent's own recorded messages at each rate (a process per rate, since
/// each rate has its recording), measured as the other floors are: replaying them, then making
/// them again (`--render`), one after the other at each rate.
func measureOwnMessagesFloor(settings: PipelineSettings, broker: BenchBroker,
                             traffic: [Int: RecordedTraffic]) throws -> (replayed: [FloorFigure], rendered: [FloorFigure]) {
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-own")
    var floors: [FloorFigure] = []
    var renderedFloors: [FloorFigure] = []
    for rate in settings.rates {
        guard let recording = traffic[rate] else { continue }
        let file = directory.file("packets-\(rate)")
        try recording.write(to: file)
        var one = settings
        one.rates = [rate]
        let subscriber = try Subscriber(port: broker.port, filter: "bench/swift/peer/+/range", clientID: "bench-sub-own-\(rate)")
        defer { subscriber.close() }
        for render in [false, true] {
            let figures = try measureFloor(name: "forwarder of the agent's own messages" + (render ? ", rendered" : ""), settings: one,
                                           subscriber: subscriber) { link, directory in
                try startOwnMessagesFloor(link: link, brokerPort: broker.port, packets: file, render: render, directory: directory)
            }
            if render { renderedFloors += figures } else { floors += figures }
        }
    }
    return (floors, renderedFloors)
}
