import CMosquitto
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The witness at the far end: a libmosquitto client in this process, subscribed to the range
/// topics of one gateway. Its `on_message` callback (on libmosquitto's loop thread) takes the
/// CLOCK_MONOTONIC time first, then counts the message and, while recording, keeps
/// (seq, peer, receive time) for the latency figure. `seq` and `mac` are read from the JSON
/// payload, which both gateways render identically.
final class Subscriber: Sendable {
    struct Sample: Sendable {
        var seq: UInt32
        var mac: UInt16
        var receivedAt: UInt64
    }

    struct State: Sendable {
        var connected = false
        var subscribed = false
        var count = 0
        var recording = false
        var samples: [Sample] = []
        var unparsed = 0
    }

    let state = Mutex(State())
    // Set once in init, used by libmosquitto's thread-safe calls and by `close()` only after
    // `mosquitto_loop_stop`: safe to share although the pointer types are not Sendable.
    nonisolated(unsafe) private let mosq: OpaquePointer
    nonisolated(unsafe) private let userdata: UnsafeMutableRawPointer

    init(port: UInt16, filter: String, clientID: String) throws {
        mosquitto_lib_init()
        userdata = Unmanaged.passRetained(SubscriberBox()).toOpaque()
        guard let handle = mosquitto_new(clientID, true, userdata) else { throw BenchError("mosquitto_new failed") }
        mosq = handle
        let box = Unmanaged<SubscriberBox>.fromOpaque(userdata).takeUnretainedValue()
        box.subscriber.withLock { $0 = self }
        benchInstallSubscriberCallbacks(mosq)
        box.filter.withLock { $0 = filter }
        guard mosquitto_connect(mosq, "127.0.0.1", Int32(port), 30) == MOSQ_ERR_SUCCESS.rawValue else {
            throw BenchError("the bench subscriber cannot connect to 127.0.0.1:\(port)")
        }
        guard mosquitto_loop_start(mosq) == MOSQ_ERR_SUCCESS.rawValue else { throw BenchError("mosquitto_loop_start failed") }
        let deadline = monotonicNanoseconds() + 10_000_000_000
        while !state.withLock({ $0.subscribed }) {
            guard monotonicNanoseconds() < deadline else { throw BenchError("the bench subscriber got no SUBACK within 10 s") }
            usleep(2000)
        }
    }

    func close() {
        mosquitto_disconnect(mosq)
        mosquitto_loop_stop(mosq, false)
        mosquitto_destroy(mosq)
        let box = Unmanaged<SubscriberBox>.fromOpaque(userdata)
        box.takeUnretainedValue().subscriber.withLock { $0 = nil }
        box.release()
    }

    var count: Int { state.withLock { $0.count } }

    func startRecording(reserve: Int) {
        state.withLock {
            $0.samples.removeAll(keepingCapacity: true)
            $0.samples.reserveCapacity(reserve)
            $0.recording = true
        }
    }

    func stopRecording() -> [Sample] {
        state.withLock {
            $0.recording = false
            return $0.samples
        }
    }

    /// Called on the loop thread.
    func received(payload: UnsafeRawBufferPointer, at time: UInt64) {
        let parsed = Self.parse(payload)
        state.withLock {
            $0.count += 1
            guard $0.recording else { return }
            if let (seq, mac) = parsed {
                $0.samples.append(Sample(seq: seq, mac: mac, receivedAt: time))
            } else {
                $0.unparsed += 1
            }
        }
    }

    /// `"seq": N` and `"mac": "0xHHHH"` from a range payload.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> (UInt32, UInt16)? {
        func find(_ key: StaticString) -> Int? {
            let k = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
            guard bytes.count >= k.count else { return nil }
            var i = 0
            while i + k.count <= bytes.count {
                if bytes[i] == k[0] && memcmp(bytes.baseAddress! + i, k.baseAddress!, k.count) == 0 { return i + k.count }
                i += 1
            }
            return nil
        }
        func skipSpaces(_ i: inout Int) { while i < bytes.count && bytes[i] == 0x20 { i += 1 } }
        guard var i = find("\"seq\":") else { return nil }
        skipSpaces(&i)
        var seq: UInt32 = 0
        var digits = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            seq = seq &* 10 &+ UInt32(bytes[i] - 0x30)
            i += 1
            digits += 1
        }
        guard digits > 0, var j = find("\"mac\":") else { return nil }
        skipSpaces(&j)
        guard j + 7 <= bytes.count, bytes[j] == 0x22 else { return nil }
        var mac: UInt16 = 0
        for k in (j + 3)..<(j + 7) {
            let c = bytes[k] | 0x20
            let v: UInt8 = c >= 0x61 ? c - 0x61 + 10 : c - 0x30
            mac = mac << 4 | UInt16(v & 0xF)
        }
        return (seq, mac)
    }
}

/// The object behind libmosquitto's userdata pointer: released only after loop_stop + destroy.
final class SubscriberBox: Sendable {
    let subscriber = Mutex<Subscriber?>(nil)
    let filter = Mutex("")

    static func from(_ userdata: UnsafeMutableRawPointer?) -> SubscriberBox? {
        guard let userdata else { return nil }
        return Unmanaged<SubscriberBox>.fromOpaque(userdata).takeUnretainedValue()
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// Plain global functions outside main.swift (closures in top-level code would be @MainActor).
func benchInstallSubscriberCallbacks(_ mosq: OpaquePointer) {
    mosquitto_connect_callback_set(mosq, benchOnConnect)
    mosquitto_subscribe_callback_set(mosq, benchOnSubscribe)
    mosquitto_message_callback_set(mosq, benchOnMessage)
}

private func benchOnConnect(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32) {
    guard code == 0, let box = SubscriberBox.from(userdata) else { return }
    box.subscriber.withLock { $0 }?.state.withLock { $0.connected = true }
    let filter = box.filter.withLock { $0 }
    mosquitto_subscribe(mosq, nil, filter, 0)
}

private func benchOnSubscribe(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32, _ count: Int32,
                              _ granted: UnsafePointer<Int32>?) {
    SubscriberBox.from(userdata)?.subscriber.withLock { $0 }?.state.withLock { $0.subscribed = true }
}

private func benchOnMessage(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ message: UnsafePointer<mosquitto_message>?) {
    let now = monotonicNanoseconds()
    guard let message, let box = SubscriberBox.from(userdata), let subscriber = box.subscriber.withLock({ $0 }) else { return }
    let m = message.pointee
    subscriber.received(payload: UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen)), at: now)
}
