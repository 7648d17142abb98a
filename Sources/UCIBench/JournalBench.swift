// The store-and-forward journal (`Spool`) at its deployed bound, 64 MiB: filled with events as the
// agent journals them during an outage (one fdatasync per append), appended to at the bound
// (the oldest segments dropped), opened again (every record checked), then drained through a real
// mosquitto in batches of 50 as the agent's Publisher does (publish, wait for the PUBACKs, move
// the read pointer). Disk writes are counted twice: the bytes the journal wrote itself, and
// `write_bytes` of /proc/self/io (what the process sent towards the disk, in whole pages).
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import EventLoop
import MQTTClient
import TestSupport

struct JournalFigure: Sendable {
    var maximumBytes = 0
    var recordBytes = 0
    var fill = Rate()
    var atBound = Rate()
    var openSeconds = 0.0
    var openMessages = 0
    var drain = Rate()
    /// Per delivered record: the journal's own writes, and /proc/self/io write_bytes.
    var drainJournalBytesPerRecord = 0.0
    var drainDiskBytesPerRecord = 0.0
    var appendDiskBytesPerRecord = 0.0
    var dropped = 0
    /// VmRSS of this process with the full journal open, and its peak (VmHWM) after the drain.
    var residentKiBOpen = 0
    var peakKiB = 0

    struct Rate: Sendable {
        var messages = 0
        var seconds = 0.0
        var perSecond: Double { seconds > 0 ? Double(messages) / seconds : 0 }
    }
}

func benchJournal(maximumBytes: Int, broker: BenchBroker?) throws -> JournalFigure {
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-journal")
    let path = directory.file("spool")
    var figure = JournalFigure(maximumBytes: maximumBytes)
    // An event as the agent journals it (a zone enter, ~250 bytes of JSON).
    let payload = Array(#"{"id": "lobby:6f1c2a9e:000001", "ts": "2026-03-01T12:00:00.000Z", "type": "zone_enter", "peer": "phone-anna", "rule": "near-door", "zone": "near", "distance_m": 0.82, "reason": {"threshold_m": 1.0, "dwell_s": 0.5, "held_s": 0.52}}"#.utf8)
    func event(_ n: Int) -> SpooledMessage {
        var bytes = payload
        bytes[28] = UInt8(ascii: "0") + UInt8(n % 10)
        return SpooledMessage(topic: "uwb2mqtt/lobby/peer/phone-anna/event", payload: bytes, qos: 1, retain: false)
    }
    figure.recordBytes = event(0).payload.count + event(0).topic.utf8.count + 24

    do {
        let spool = try Spool(directory: path, maximumBytes: maximumBytes)
        var n = 0
        let started = Clocks.monotonic()
        let before = processWriteBytes()
        while spool.bytes + figure.recordBytes <= maximumBytes {
            try spool.append(event(n))
            n += 1
        }
        figure.fill = .init(messages: n, seconds: Clocks.monotonic() - started)
        figure.appendDiskBytesPerRecord = Double(processWriteBytes() - before) / Double(n)
        log("journal: filled \(maximumBytes >> 20) MiB with \(grouped(Double(n))) events in \(format(figure.fill.seconds, 1)) s "
            + "(\(grouped(figure.fill.perSecond))/s, \(format(figure.appendDiskBytesPerRecord, 0)) bytes written per append)")
        let atBound = min(n, 10_000)
        let boundStart = Clocks.monotonic()
        for k in 0..<atBound { try spool.append(event(n + k)) }
        figure.atBound = .init(messages: atBound, seconds: Clocks.monotonic() - boundStart)
        figure.dropped = spool.dropped
        log("journal: \(grouped(Double(atBound))) appends at the bound in \(format(figure.atBound.seconds, 1)) s "
            + "(\(grouped(figure.atBound.perSecond))/s, \(grouped(Double(spool.dropped))) oldest dropped)")
    }

    let openStart = Clocks.monotonic()
    let spool = try Spool(directory: path, maximumBytes: maximumBytes)
    figure.openSeconds = Clocks.monotonic() - openStart
    figure.openMessages = spool.count
    figure.residentKiBOpen = ProcFS.rssKiB(getpid()) ?? 0
    log("journal: opened again in \(format(figure.openSeconds, 2)) s, \(grouped(Double(spool.count))) messages checked")

    // Drain: through the broker when there is one, else the journal alone.
    let loop = try EventLoop()
    var client: MQTTClient?
    var connected = false
    if let broker {
        let c = try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: "bench-journal-\(getpid())"),
                               loop: loop) { event in if case .connected = event { connected = true } }
        try c.start()
        guard loop.run(until: { connected }, deadline: Clocks.monotonic() + 10) else { throw BenchError("journal drain: no broker connection") }
        client = c
    }
    let journalBefore = spool.bytesWritten
    let diskBefore = processWriteBytes()
    let drainStart = Clocks.monotonic()
    var delivered = 0
    while !spool.isEmpty {
        let batch = spool.pending(upTo: 50)
        if let client {
            for message in batch {
                _ = try client.publish(topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain)
            }
            guard loop.run(until: { client.outstandingMessageCount == 0 }, deadline: Clocks.monotonic() + 30) else {
                throw BenchError("journal drain: PUBACKs missing")
            }
        }
        try spool.delivered(through: batch.last!.sequence)
        delivered += batch.count
    }
    figure.drain = .init(messages: delivered, seconds: Clocks.monotonic() - drainStart)
    figure.drainJournalBytesPerRecord = Double(spool.bytesWritten - journalBefore) / Double(max(delivered, 1))
    figure.drainDiskBytesPerRecord = Double(processWriteBytes() - diskBefore) / Double(max(delivered, 1))
    client?.disconnect()
    figure.peakKiB = ProcFS.peakRSSKiB(getpid()) ?? 0
    log("journal: drained \(grouped(Double(delivered))) in \(format(figure.drain.seconds, 1)) s \(client == nil ? "(no broker)" : "through mosquitto") "
        + "(\(grouped(figure.drain.perSecond))/s; written per delivered record: \(format(figure.drainJournalBytesPerRecord, 2)) bytes by the journal, "
        + "\(format(figure.drainDiskBytesPerRecord, 2)) bytes write_bytes)")
    return figure
}

/// `write_bytes` of /proc/self/io: bytes this process caused to be sent to storage.
func processWriteBytes() -> Int {
    guard let file = fopen("/proc/self/io", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("write_bytes:") {
            return Int(text.dropFirst("write_bytes:".count).trimmingCharacters(in: " \n")) ?? 0
        }
    }
    return 0
}

private extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return s
    }
}
