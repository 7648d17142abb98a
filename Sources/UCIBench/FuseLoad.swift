#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import EventLoop
import Synchronization
import TestSupport

/// `uwb2mqtt fuse` at site scale, through a real broker: fake gateways (one TCP connection, raw
/// MQTT 3.1.1 PUBLISH packets encoded here) publish their retained status and, round after round,
/// each tag's ranges from the gateways that hear it, staggered over the round as gateways range
/// in turn; the real `uwb2mqtt fuse` process(es) fuse them; a subscriber here times the positions.
///
/// Noise-free ranges of tags walking along x at 1 m/s, each range measured where the tag is when
/// it is sent: a position's x says when the newest range it fused was sent (the solver, with the
/// fuse's motion compensation, is exact to a few millimetres: a few milliseconds), so its latency
/// is measured from that moment to the moment the position arrived — a fuse that falls behind
/// shows as latency, however it dates its fixes.
///
/// Ranging stops for every tag at once at the end of the run: no next round comes to close each
/// tag's last one, which the window's deadline closes instead, a round or more after its first
/// range. That one position per tag (2.5 % of a 10 s run's, enough to be its p99) is timed on
/// its own, as the latency when a tag's ranging ends; p50 and p99 are of the positions before.
struct FuseLoadCase: Sendable {
    var name: String
    var gateways: [(id: String, x: Double, y: Double)]
    /// Each tag's start and the gateways (indices) that range it, in the order they range it.
    var tags: [(x: Double, y: Double, gateways: [Int])]
    var shards = 1
    var roundSeconds = 0.2
    var seconds = 10.0

    var rangesPerSecond: Double { Double(tags.reduce(0) { $0 + $1.gateways.count }) / roundSeconds }

    /// 121 gateways on a 4 m grid, each tag ranged by its 4 nearest (5,000 ranges/s at 250 tags).
    static func dense(tags count: Int = 250) -> FuseLoadCase {
        var gateways: [(String, Double, Double)] = []
        for i in 0..<11 { for j in 0..<11 { gateways.append(("gw-\(i)-\(j)", Double(i) * 4, Double(j) * 4)) } }
        var random = BenchRandom(seed: 7)
        let tags = (0..<count).map { _ in
            let x = 2 + random.next() * 20, y = 2 + random.next() * 36
            let nearest = gateways.indices.sorted { hypot(gateways[$0].1 - x, gateways[$0].2 - y) < hypot(gateways[$1].1 - x, gateways[$1].2 - y) }
            return (x, y, Array(nearest.prefix(4)))
        }
        return FuseLoadCase(name: "dense: \(count) tags, 4 of 121 gateways each", gateways: gateways, tags: tags)
    }

    /// 8 gateways around a 20 m square, each ranging every tag (10,000 ranges/s at 250 tags).
    static func stress(tags count: Int = 250, shards: Int = 1) -> FuseLoadCase {
        let gateways = [(0.0, 0.0), (10, 0), (20, 0), (20, 10), (20, 20), (10, 20), (0, 20), (0, 10)].enumerated()
            .map { ("gw-\($0.offset)", $0.element.0, $0.element.1) }
        var random = BenchRandom(seed: 11)
        let tags = (0..<count).map { _ in (2 + random.next() * 4, 2 + random.next() * 16, Array(0..<8)) }
        return FuseLoadCase(name: "stress: \(count) tags, 8 gateways each\(shards > 1 ? ", \(shards) shards" : "")",
                            gateways: gateways, tags: tags, shards: shards)
    }
}

/// The loads `make bench` runs: the dense site and the stress case, then the stress case with
/// fewer tags (how the cost grows) and split between 2 and 4 fuse processes (`shard`).
func fuseLoads(tags: Int = 250) -> [FuseLoadCase] {
    [.dense(tags: tags), .stress(tags: tags), .stress(tags: tags / 5), .stress(tags: tags, shards: 2), .stress(tags: tags, shards: 4)]
}

struct FuseLoadFigures: Sendable {
    var name: String
    var rangesPerSecond: Double
    /// Positions received per tag per round (1 is the goal).
    var positionsPerTagRound: Double
    var fixesPerSecond: Double
    /// The fuse processes' CPU, all shards together.
    var cpuPercent: Double
    var cpuMicrosecondsPerFix: Double
    var latencyP50Milliseconds: Double
    var latencyP99Milliseconds: Double
    /// The median latency of each tag's last position, of the round in which ranging stopped.
    var lastRoundLatencyMilliseconds: Double
    /// The largest of the shards' peak resident sets.
    var peakRSSKiB: Int
}

/// What the subscriber's thread read: each position's tag, x and arrival.
private final class PositionLog: Sendable {
    let entries = Mutex<[(tag: Int, x: Double, at: UInt64)]>([])
    let finished = Atomic<Bool>(false)
}

/// A tiny deterministic generator for the layouts.
struct BenchRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state >> 11) / Double(1 << 53)
    }
}

func benchFuseLoad(_ load: FuseLoadCase, fuse binary: String) throws -> FuseLoadFigures {
    let broker = try BenchBroker()
    defer { broker.stop() }
    let tagHeight = 1.0, gatewayHeight = 2.5, speed = 1.0
    // The positions, as (tag, x, arrival), read by a thread of their own.
    let received = PositionLog()
    guard let subscriber = connectToLoopback(port: broker.port) else { throw BenchError("subscriber: connect") }
    defer { close(subscriber) }
    try mqttConnect(subscriber, clientID: "bench-fuse-sub")
    try mqttSubscribe(subscriber, filter: "uwb2mqtt/site/bench/peer/+/position")
    DetachedThread.start(name: "bench positions") {
        defer { received.finished.store(true, ordering: .releasing) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(subscriber, &chunk, chunk.count, 0)
            if n <= 0 { return }
            let now = monotonicNanoseconds()
            buffer += chunk[0..<n]
            var offset = 0
            var batch: [(Int, Double, UInt64)] = []
            while let (type, body, next) = mqttPacket(buffer, at: offset) {
                offset = next
                guard type == 0x30, body.count > 2 else { continue }
                let topicLength = Int(body[body.startIndex]) << 8 | Int(body[body.startIndex + 1])
                let topic = String(decoding: body[(body.startIndex + 2)..<(body.startIndex + 2 + topicLength)], as: UTF8.self)
                let payload = String(decoding: body[(body.startIndex + 2 + topicLength)...], as: UTF8.self)
                guard let tag = topic.split(separator: "/").dropFirst(4).first.flatMap({ Int($0.dropFirst(4)) }),
                      let x = jsonNumber(payload, "x") else { continue }
                batch.append((tag, x, now))
            }
            buffer.removeFirst(offset)
            received.entries.withLock { $0 += batch.map { (tag: $0.0, x: $0.1, at: $0.2) } }
        }
    }

    // The fuse, or its shards.
    var fuses: [ChildProcess] = []
    defer { for fuse in fuses { fuse.terminate() } }
    for shard in 0..<load.shards {
        let shardLine = load.shards > 1 ? "shard: {index: \(shard), count: \(load.shards)}\n" : ""
        let config = try broker.directory.write("fuse-\(shard).yaml", """
            site: bench
            mqtt: {url: "mqtt://127.0.0.1:\(broker.port)", base_topic: uwb2mqtt, client_id: bench-fuse-\(shard)}
            tag_height: \(tagHeight)
            \(shardLine)
            """)
        fuses.append(try ChildProcess(executable: binary, arguments: ["fuse", "--config", config],
                                      stdoutPath: broker.directory.file("fuse-\(shard).out"),
                                      stderrPath: broker.directory.file("fuse-\(shard).err")))
    }

    guard let gatewaysSocket = connectToLoopback(port: broker.port) else { throw BenchError("gateways: connect") }
    defer { close(gatewaysSocket) }
    var noDelay: Int32 = 1
    setsockopt(gatewaysSocket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
    try mqttConnect(gatewaysSocket, clientID: "bench-gateways")
    var statuses: [UInt8] = []
    for g in load.gateways {
        let payload = #"{"state": "online", "ts": "2026-12-05T00:00:00.000Z", "version": "bench", "position": {"x": \#(g.x), "y": \#(g.y), "z": \#(gatewayHeight)}, "heading_deg": 0, "ranging_interval_ms": \#(Int(load.roundSeconds * 1000))}"#
        mqttAppendPublish(&statuses, topic: "uwb2mqtt/\(g.id)/status", payload: Array(payload.utf8), retain: true)
    }
    try sendAll(gatewaysSocket, statuses)
    // The fuse stands by for a second for another instance before it takes the site.
    sleepSeconds(2.5)

    let rounds = Int(load.seconds / load.roundSeconds)
    let phases = load.tags.map(\.gateways.count).max() ?? 1
    let cpuBefore = fuses.map { ProcFS.cpuSeconds($0.pid) ?? 0 }
    let start = monotonicNanoseconds()
    var packets: [UInt8] = []
    packets.reserveCapacity(load.tags.count * 220)
    for round in 0..<rounds {
        for phase in 0..<phases {
            let due = start + UInt64((Double(round) + Double(phase) / Double(phases)) * load.roundSeconds * 1e9)
            let now = monotonicNanoseconds()
            if due > now { usleep(UInt32((due - now) / 1000)) }
            let ts = rfc3339Now()
            let walked = speed * Double(monotonicNanoseconds() - start) / 1e9
            packets.removeAll(keepingCapacity: true)
            for (t, tag) in load.tags.enumerated() where phase < tag.gateways.count {
                let g = load.gateways[tag.gateways[phase]]
                let x = tag.x + walked
                let d = ((x - g.x) * (x - g.x) + (tag.y - g.y) * (tag.y - g.y) + (gatewayHeight - tagHeight) * (gatewayHeight - tagHeight)).squareRoot()
                let payload = #"{"ts": "\#(ts)", "peer": "tag-\#(t)", "mac": "0x0001", "session": 42, "seq": \#(round), "status": "ok", "distance_m": \#(d), "raw_distance_m": \#(d), "nlos": false}"#
                mqttAppendPublish(&packets, topic: "uwb2mqtt/\(g.id)/peer/tag-\(t)/range", payload: Array(payload.utf8), retain: false)
            }
            try sendAll(gatewaysSocket, packets)
        }
    }
    let loadEnd = monotonicNanoseconds()
    let cpuAfterLoad = fuses.map { ProcFS.cpuSeconds($0.pid) ?? 0 }
    // The tail: positions still on their way.
    sleepSeconds(2)
    let peak = fuses.map { ProcFS.peakRSSKiB($0.pid) ?? 0 }.max() ?? 0
    shutdown(subscriber, Int32(SHUT_RDWR))
    while !received.finished.load(ordering: .acquiring) { usleep(1000) }

    let positions = received.entries.withLock { $0 }
    var latencies: [Double] = []
    var lastRound: [Double] = []
    // The first two seconds are the fuse learning the tags.
    let settled = 2.0
    var counted = 0
    // Positions arrive in order: each tag's last is the one of the round in which ranging stopped.
    var lastOfTag: [Int: Int] = [:]
    for (index, p) in positions.enumerated() where p.tag < load.tags.count { lastOfTag[p.tag] = index }
    for (index, p) in positions.enumerated() where p.tag < load.tags.count {
        let sentAt = (p.x - load.tags[p.tag].x) / speed
        guard sentAt >= settled, sentAt < load.seconds else { continue }
        counted += 1
        let latency = (Double(p.at) - Double(start)) / 1e6 - sentAt * 1000
        if lastOfTag[p.tag] == index { lastRound.append(latency) } else { latencies.append(latency) }
    }
    latencies.sort()
    lastRound.sort()
    let loadSeconds = Double(loadEnd - start) / 1e9
    let cpu = zip(cpuAfterLoad, cpuBefore).reduce(0) { $0 + $1.0 - $1.1 }
    let fixes = Double(positions.count)
    func percentile(_ q: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] }
    return FuseLoadFigures(name: load.name, rangesPerSecond: load.rangesPerSecond,
                           positionsPerTagRound: Double(counted) / (Double(load.tags.count) * (load.seconds - settled) / load.roundSeconds),
                           fixesPerSecond: fixes / loadSeconds, cpuPercent: cpu / loadSeconds * 100,
                           cpuMicrosecondsPerFix: fixes > 0 ? cpu / fixes * 1e6 : .nan,
                           latencyP50Milliseconds: percentile(0.5), latencyP99Milliseconds: percentile(0.99),
                           lastRoundLatencyMilliseconds: lastRound.isEmpty ? .nan : lastRound[lastRound.count / 2], peakRSSKiB: peak)
}

// MARK: MQTT 3.1.1 by hand (the bench's own side of the broker)

func mqttConnect(_ socket: Int32, clientID: String) throws {
    let id = Array(clientID.utf8)
    let packet: [UInt8] = [0x10, UInt8(12 + id.count), 0, 4] + Array("MQTT".utf8) + [4, 0x02, 0, 0, 0, UInt8(id.count)] + id
    try sendAll(socket, packet)
    var connack = [UInt8](repeating: 0, count: 4)
    guard recv(socket, &connack, 4, Int32(MSG_WAITALL)) == 4, connack[0] == 0x20, connack[3] == 0 else { throw BenchError("CONNACK for \(clientID)") }
}

func mqttSubscribe(_ socket: Int32, filter: String) throws {
    let topic = Array(filter.utf8)
    var packet: [UInt8] = [0x82]
    appendRemainingLength(&packet, 2 + 2 + topic.count + 1)
    packet += [0, 1, UInt8(topic.count >> 8), UInt8(topic.count & 0xFF)] + topic + [0]
    try sendAll(socket, packet)
    var suback = [UInt8](repeating: 0, count: 5)
    guard recv(socket, &suback, 5, Int32(MSG_WAITALL)) == 5, suback[0] == 0x90 else { throw BenchError("SUBACK for \(filter)") }
}

func mqttAppendPublish(_ bytes: inout [UInt8], topic: String, payload: [UInt8], retain: Bool) {
    let topicBytes = Array(topic.utf8)
    bytes.append(retain ? 0x31 : 0x30)
    appendRemainingLength(&bytes, 2 + topicBytes.count + payload.count)
    bytes += [UInt8(topicBytes.count >> 8), UInt8(topicBytes.count & 0xFF)] + topicBytes + payload
}

/// MQTT's remaining length: seven bits a byte, least significant first.
func appendRemainingLength(_ bytes: inout [UInt8], _ length: Int) {
    var remaining = length
    repeat {
        var byte = UInt8(remaining % 128)
        remaining /= 128
        if remaining > 0 { byte |= 0x80 }
        bytes.append(byte)
    } while remaining > 0
}

/// The packet at `offset` of `buffer` when it is whole: its type (high nibble), its body, and
/// where the next one starts.
func mqttPacket(_ buffer: [UInt8], at offset: Int) -> (UInt8, ArraySlice<UInt8>, Int)? {
    guard offset + 2 <= buffer.count else { return nil }
    var length = 0, multiplier = 1, index = offset + 1
    while true {
        guard index < buffer.count else { return nil }
        let byte = buffer[index]
        length += Int(byte & 0x7F) * multiplier
        multiplier *= 128
        index += 1
        if byte & 0x80 == 0 { break }
    }
    guard index + length <= buffer.count else { return nil }
    return (buffer[offset] & 0xF0, buffer[index..<(index + length)], index + length)
}

func sendAll(_ socket: Int32, _ bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
        let n = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw BenchError("send: \(String(cString: strerror(errno)))") }
        sent += n
    }
}

/// The number after `"key": ` in a flat JSON text.
private func jsonNumber(_ text: String, _ key: String) -> Double? {
    guard let range = text.range(of: "\"\(key)\": ") ?? text.range(of: "\"\(key)\":") else { return nil }
    let rest = text[range.upperBound...]
    return Double(rest.prefix { $0 == "-" || $0 == "." || $0 == "e" || $0 == "E" || $0 == "+" || $0.isNumber })
}

/// The wall clock as RFC 3339 UTC with milliseconds.
private func rfc3339Now() -> String {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    var seconds = spec.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let millis = spec.tv_nsec / 1_000_000
    let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
}
