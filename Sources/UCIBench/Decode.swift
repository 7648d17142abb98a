// UCI decode throughput on one thread, timed with the monotonic clock (`ContinuousClock`,
// CLOCK_MONOTONIC on Linux), ~1 s of timed work per figure:
//
// (a) `UCIMessage(decoding:)` of a one-measurement SESSION_INFO_NTF (uci.md §7 V14);
// (b) the same with 8 measurements; (c) `Reassembler` + decode over a stream of 100 000
// back-to-back SESSION_INFO_NTFs (V14 layout, sequence numbers 0…99 999) fed in 64-byte chunks.
// Each loop changes a byte of its input and folds a field of every result into a checksum that
// is printed, so the optimiser can neither hoist nor drop the work.
import UCI

#if canImport(Glibc)
import Glibc
#endif

/// uci.md §7 V14: SESSION_INFO_NTF seq 9, session 42, 200 ms, TWR, short MAC, one peer at 7 cm.
let v14: [UInt8] = try! Hex.bytes(
    "62000038090000002a00000000c800000001000000000000000000000101000000070000000000000000000000000000000000000000000000000000")

/// The V14 message with `count` copies of its measurement (peer addresses 1…count, distance 7+i).
func sessionInfo(measurements count: Int) -> RawMessage {
    let header = Array(v14[4..<28])               // 24 header bytes before N
    let entry = Array(v14[29..<60])               // one 31-byte TWR entry
    var payload = header
    payload.append(UInt8(count))
    for i in 0..<count {
        var e = entry
        e[0] = UInt8(1 + i)                       // MAC address low byte
        e[4] = UInt8(7 + i)                       // distance low byte
        payload += e
    }
    return RawMessage(messageType: .notification, gid: 2, oid: 0, payload: payload)
}

/// One decode; the byte that changes per iteration is the sequence number's low byte.
@inline(__always)
func decodeOnce(_ raw: inout RawMessage, _ i: Int) -> UInt64 {
    raw.payload[0] = UInt8(truncatingIfNeeded: i)
    guard case let .notification(.sessionInfo(info))? = try? UCIMessage(decoding: raw) else {
        fatalError("bench input does not decode as SESSION_INFO_NTF")
    }
    var sum = UInt64(info.sequenceNumber)
    for m in info.twoWayMeasurements { sum &+= UInt64(m.distanceRaw) }
    return sum
}

func decodeLoop(_ template: RawMessage, iterations: Int) -> UInt64 {
    var raw = template
    var checksum: UInt64 = 0
    for i in 0..<iterations { checksum &+= decodeOnce(&raw, i) }
    return checksum
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

/// Runs `body(n)` with growing n until one run takes ≥ 0.2 s, then once more sized for ~`target`
/// seconds. Returns the timed run's iterations, seconds and checksum.
func measure(target: Double = 1.0, _ body: (Int) -> UInt64) -> (iterations: Int, seconds: Double, checksum: UInt64) {
    let clock = ContinuousClock()
    var n = 1
    var checksum: UInt64 = 0
    while true {
        let start = clock.now
        checksum &+= body(n)
        let elapsed = seconds(clock.now - start)
        if elapsed >= 0.2 {
            n = max(1, Int(Double(n) * target / elapsed))
            break
        }
        n *= elapsed < 0.01 ? 10 : 2
    }
    let start = clock.now
    checksum &+= body(n)
    return (n, seconds(clock.now - start), checksum)
}

func format(_ value: Double, _ digits: Int) -> String {
    // No Foundation: fixed-point rendering by hand.
    let scale = (0..<digits).reduce(1.0) { acc, _ in acc * 10 }
    let scaled = (value * scale).rounded()
    let whole = Int(scaled / scale)
    let frac = Int(scaled - Double(whole) * scale)
    guard digits > 0 else { return "\(whole)" }
    let fracText = String(frac)
    return "\(whole)." + String(repeating: "0", count: digits - fracText.count) + fracText
}

func grouped(_ value: Double) -> String {
    let digits = Array(String(Int(value.rounded())))
    var out = ""
    for (i, d) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(d)
    }
    return out
}

/// One decode figure: nanoseconds per notification and notifications per second.
struct DecodeFigure: Sendable {
    var nanoseconds: Double
    var perSecond: Double
}

func benchDecode(_ label: String, measurements: Int) -> DecodeFigure {
    let template = sessionInfo(measurements: measurements)
    let r = measure { decodeLoop(template, iterations: $0) }
    let ns = r.seconds * 1e9 / Double(r.iterations)
    log("\(label) UCIMessage(decoding:) SESSION_INFO_NTF, \(measurements) measurement\(measurements == 1 ? "" : "s") "
          + "(\(template.payload.count)-byte payload): \(format(ns, 1)) ns/decode, "
          + "\(grouped(Double(r.iterations) / r.seconds)) decodes/s "
          + "[\(r.iterations) decodes in \(format(r.seconds, 3)) s, checksum \(r.checksum)]")
    return DecodeFigure(nanoseconds: ns, perSecond: Double(r.iterations) / r.seconds)
}

func benchStream() -> DecodeFigure {
    let count = 100_000
    var stream: [UInt8] = []
    stream.reserveCapacity(count * v14.count)
    var raw = sessionInfo(measurements: 1)
    for i in 0..<count {
        raw.payload.withUnsafeMutableBufferPointer { p in
            p[0] = UInt8(truncatingIfNeeded: i); p[1] = UInt8(truncatingIfNeeded: i >> 8); p[2] = UInt8(truncatingIfNeeded: i >> 16)
        }
        stream += raw.encoded()
    }
    let chunk = 64

    func pass(_ passes: Int) -> UInt64 {
        var checksum: UInt64 = 0
        var messages = 0
        for _ in 0..<passes {
            var reassembler = Reassembler()
            var offset = 0
            while offset < stream.count {
                let end = min(offset + chunk, stream.count)
                reassembler.feed(stream[offset..<end]) { event in
                    guard case let .message(raw) = event,
                          case let .notification(.sessionInfo(info))? = try? UCIMessage(decoding: raw) else {
                        fatalError("bench stream: unexpected event \(event)")
                    }
                    checksum &+= UInt64(info.sequenceNumber) &+ UInt64(info.twoWayMeasurements[0].distanceRaw)
                    messages += 1
                }
                offset = end
            }
        }
        guard messages == passes * count else { fatalError("bench stream: \(messages) messages, expected \(passes * count)") }
        return checksum
    }

    let r = measure(pass)
    let notifications = Double(r.iterations * count)
    let bytes = Double(r.iterations * stream.count)
    log("(c) Reassembler + decode, \(count) back-to-back SESSION_INFO_NTF (\(stream.count) bytes) in \(chunk)-byte chunks: "
          + "\(grouped(notifications / r.seconds)) notifications/s, \(format(bytes / r.seconds / 1e6, 1)) MB/s (10^6 B), "
          + "\(format(r.seconds * 1e9 / notifications, 1)) ns/notification "
          + "[\(r.iterations) pass\(r.iterations == 1 ? "" : "es") in \(format(r.seconds, 3)) s, checksum \(r.checksum)]")
    return DecodeFigure(nanoseconds: r.seconds * 1e9 / notifications, perSecond: notifications / r.seconds)
}

