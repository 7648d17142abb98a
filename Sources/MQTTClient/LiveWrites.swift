#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Vocabulary

/// QoS 0 packets the client writes to the broker's socket itself, all of one wake-up of the loop
/// in one `send`.
///
/// Through libmosquitto each message costs a `send` of its own, a one-byte write to its internal
/// socket pair (which nothing reads, so it fails with EAGAIN once full) and two allocations: four
/// system calls per measurement for `range` and `feedback`. Live data needs none of what
/// libmosquitto adds for QoS 0 (no packet id, no retry), so the client encodes those packets
/// here, on a plain TCP connection, whenever libmosquitto has nothing of its own waiting to be
/// written: the stream is then between two packets, and what is appended here goes out before
/// anything libmosquitto queues later (the client writes this first). Everything else —
/// CONNECT, QoS 1, acknowledgements, pings, TLS — stays libmosquitto's. Unlike libmosquitto, the
/// client does not hold these packets to an MQTT 5 broker's announced maximum packet size (live
/// payloads are a few hundred bytes): a broker that announced less would close the connection
/// on such a packet, where libmosquitto refuses the message.
struct LiveWrites {
    /// Bytes waiting beyond this are refused: a broker that does not read would otherwise grow
    /// the queue until the keepalive ends the connection. About 5 s of 8 peers at 50 Hz (range
    /// and feedback with their topics: 4.4 KB a notification of 8 measurements).
    static let limit = 1 << 20

    private var bytes = ByteBuffer(capacity: 16 * 1024)
    /// How much of `bytes` the socket took.
    private var sent = 0

    var isEmpty: Bool { sent == bytes.count }
    var pendingBytes: Int { bytes.count - sent }

    mutating func append(topic: String, payload: UnsafeRawBufferPointer, retain: Bool, version: MQTTProtocolVersion,
                         properties: UnsafeBufferPointer<UInt8>?) {
        PublishPacket.append(topic: topic, payload: payload, retain: retain, version: version, properties: properties, to: &bytes)
    }

    /// Writes what the socket takes. Returns nil when everything went or the socket is full (the
    /// rest waits for POLLOUT), else the errno of a failed connection. `flags` beside
    /// MSG_NOSIGNAL: MSG_MORE when another write follows at once.
    mutating func write(to socket: Int32, flags: Int32 = 0) -> Int32? {
        while sent < bytes.count {
            let n = bytes.withBytes(in: sent..<bytes.count) { unsent in
                send(socket, unsent.baseAddress, unsent.count, Int32(MSG_NOSIGNAL) | flags)
            }
            if n > 0 {
                sent += n
                continue
            }
            let code = errno
            if n < 0 && code == EINTR { continue }
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return nil }
            return n == 0 ? EPIPE : code
        }
        reset()
        return nil
    }

    /// Forgets what was not written (the connection it was for is gone) and keeps the storage.
    mutating func reset() {
        bytes.removeAll()
        sent = 0
    }
}
