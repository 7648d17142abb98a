import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP relay between the agent and the broker that the test can cut and restore: a
/// real network outage for the agent, while the broker and the test's subscriber stay up and
/// see everything.
///
/// `refusingMQTT5`: in front of mosquitto it is a broker of MQTT 3.1.1 only, as older brokers
/// are: a CONNECT of protocol level 5 gets the 3.1.1 CONNACK "unacceptable protocol version"
/// (`20 02 00 01`) and the connection is closed; `refusedMQTT5` counts them.
///
/// `observingClient`: sees every chunk the client sends, in order, before it is relayed (the
/// bench records the agent's packets with it), on the connection's thread.
public final class TCPOutageProxy: Sendable {
    public let port: UInt16
    private let target: UInt16
    private let refusingMQTT5: Bool
    private let observingClient: (@Sendable (ArraySlice<UInt8>) -> Void)?
    private let refusals = Atomic<Int>(0)
    public var refusedMQTT5: Int { refusals.load(ordering: .relaxed) }
    private let listener: Int32
    private let up = Atomic<Bool>(true)
    private let stopping = Atomic<Bool>(false)
    private let generation = Atomic<Int>(0)
    /// Connections are numbered as they are accepted; those up to this number get no
    /// acknowledgement (PUBACK) from the broker (see `withholdAcknowledgements`), -1: none.
    private let connections = Atomic<Int>(0)
    private let withheldThrough = Atomic<Int>(-1)
    /// Connections up to this number lose what the client sends (see `loseWhatTheClientSends`).
    private let silencedThrough = Atomic<Int>(-1)
    private let lost = Mutex<[LostPublish]>([])
    private let done = DispatchSemaphore(value: 0)

    public init(to target: UInt16, refusingMQTT5: Bool = false,
                observingClient: (@Sendable (ArraySlice<UInt8>) -> Void)? = nil) throws {
        self.target = target
        self.refusingMQTT5 = refusingMQTT5
        self.observingClient = observingClient
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, ok else { throw POSIXError(.EADDRINUSE) }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Cuts every relayed connection and refuses new ones until `restore()`.
    public func cut() {
        up.store(false, ordering: .relaxed)
        generation.add(1, ordering: .relaxed)
    }

    public func restore() { up.store(true, ordering: .relaxed) }

    /// From now on the connections open now get no PUBACK from the broker, as from a broker that
    /// has stopped writing to them (mosquitto 2.0.11 does, once it drops messages for a client);
    /// everything else still passes, and a new connection gets its acknowledgements again.
    public func withholdAcknowledgements() {
        withheldThrough.store(connections.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// From now on what the client sends on the connections open now is read and lost, as on a
    /// network that fails without a word: sent as far as the client knows, it never reaches the
    /// broker, and no answer comes. A new connection is relayed again. The PUBLISH packets lost
    /// are in ``lostPublishes``.
    public func loseWhatTheClientSends() {
        silencedThrough.store(connections.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// A PUBLISH the client sent that the broker never got whole.
    public struct LostPublish: Sendable {
        public let topic: String
        public let payload: [UInt8]
    }

    /// What ``loseWhatTheClientSends()`` lost of the client's messages, in the order sent: what a
    /// test knows for certain never reached the broker (the client's own account, its log, can
    /// come after the broker has had a message).
    public var lostPublishes: [LostPublish] { lost.withLock { $0 } }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
        generation.add(1, ordering: .relaxed)
        _ = done.wait(timeout: .now() + 5)
        close(listener)
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .relaxed) {
            var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 20) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            guard up.load(ordering: .relaxed) else { close(client); continue }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = target.bigEndian
            let connected = withUnsafePointer(to: &address) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard connected else { close(client); close(server); continue }
            let myGeneration = generation.load(ordering: .relaxed)
            let number = connections.add(1, ordering: .relaxed).newValue
            Thread { [self] in relay(client, server, myGeneration, number) }.start()
        }
        done.signal()
    }

    /// A CONNECT (0x10, the remaining length, "MQTT") whose protocol level is 5.
    private static func isMQTT5Connect(_ bytes: ArraySlice<UInt8>) -> Bool {
        let packet = Array(bytes)
        guard packet.first == 0x10 else { return false }
        var index = 1
        while index < packet.count, packet[index] & 0x80 != 0 { index += 1 }
        index += 1
        guard packet.count > index + 6, packet[index..<index + 6] == [0x00, 0x04, 0x4D, 0x51, 0x54, 0x54] else { return false }
        return packet[index + 6] == 5
    }

    /// The whole packets at the start of `pending`, taken out of it; a packet not yet whole stays.
    private static func takeWholePackets(_ pending: inout [UInt8]) -> [ArraySlice<UInt8>] {
        var packets: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset + 2 <= pending.count {
            var length = 0, multiplier = 1, index = offset + 1, whole = false
            while index < pending.count, index - offset <= 4 {
                let byte = pending[index]
                length += Int(byte & 0x7F) * multiplier
                multiplier *= 128
                index += 1
                if byte & 0x80 == 0 { whole = true; break }
            }
            if !whole, index - offset > 4 {
                // No remaining length of MQTT (at most four bytes): not packets. What has come
                // goes on as it is, in one piece; what comes next is split from its start.
                packets.append(pending[offset...])
                pending.removeAll()
                return packets
            }
            guard whole, index + length <= pending.count else { break }
            packets.append(pending[offset..<(index + length)])
            offset = index + length
        }
        pending.removeFirst(offset)
        return packets
    }

    /// The whole packets at the start of `pending` (taken out of it), less the PUBACKs when
    /// `withholding`; a packet not yet whole stays in `pending`.
    private static func withoutAcknowledgements(_ pending: inout [UInt8], withholding: Bool) -> [UInt8] {
        Array(takeWholePackets(&pending).filter { !(withholding && $0.first! & 0xF0 == 0x40) }.joined())
    }

    /// The topic and payload of a PUBLISH packet (MQTT 3.1.1 and 5 §3.3); nil for another packet.
    private static func publish(in packet: ArraySlice<UInt8>, mqtt5: Bool) -> LostPublish? {
        let bytes = Array(packet)
        guard let first = bytes.first, first >> 4 == 3 else { return nil }
        var index = 1
        while index < bytes.count, bytes[index] & 0x80 != 0 { index += 1 }
        index += 1
        guard index + 2 <= bytes.count else { return nil }
        let topicLength = Int(bytes[index]) << 8 | Int(bytes[index + 1])
        index += 2
        guard index + topicLength <= bytes.count else { return nil }
        let topic = String(decoding: bytes[index..<(index + topicLength)], as: UTF8.self)
        index += topicLength
        if first & 0x06 != 0 { index += 2 }  // the packet identifier of QoS 1 and 2
        if mqtt5 {
            var length = 0, shift = 0
            while index < bytes.count, shift < 28 {
                let byte = bytes[index]
                index += 1
                length |= Int(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            index += length
        }
        guard index <= bytes.count else { return nil }
        return LostPublish(topic: topic, payload: Array(bytes[index...]))
    }

    private func relay(_ a: Int32, _ b: Int32, _ myGeneration: Int, _ number: Int) {
        defer { close(a); close(b) }
        var buffer = [UInt8](repeating: 0, count: 16384)
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var first = refusingMQTT5
        // The broker's bytes, cut into whole packets while acknowledgements are withheld.
        var fromBroker: [UInt8] = []
        // The client's bytes, cut into whole packets, so that those lost are known
        // (`lostPublishes`); its CONNECT says whether the properties of MQTT 5 follow.
        var fromClient: [UInt8] = []
        var mqtt5 = false
        while generation.load(ordering: .relaxed) == myGeneration {
            guard poll(&fds, 2, 20) >= 0 else { return }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let from = entry.fd, to = index == 0 ? b : a
                let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, 16384, 0) }
                if n <= 0 { return }
                if index == 0, first {
                    first = false
                    if Self.isMQTT5Connect(buffer.prefix(n)) {
                        refusals.add(1, ordering: .relaxed)
                        _ = [UInt8]([0x20, 0x02, 0x00, 0x01]).withUnsafeBytes { send(a, $0.baseAddress, 4, Int32(MSG_NOSIGNAL)) }
                        return
                    }
                }
                if index == 0, let observingClient { observingClient(buffer.prefix(n)) }
                if index == 0 {
                    let silenced = number <= silencedThrough.load(ordering: .relaxed)
                    fromClient += buffer.prefix(n)
                    for packet in Self.takeWholePackets(&fromClient) {
                        if packet.first == 0x10 { mqtt5 = Self.isMQTT5Connect(packet) }
                        // Completed by bytes lost: the broker never has it whole.
                        if silenced, let publish = Self.publish(in: packet, mqtt5: mqtt5) { lost.withLock { $0.append(publish) } }
                    }
                    if silenced { continue }
                }
                var outgoing = Array(buffer.prefix(n))
                let withholding = number <= withheldThrough.load(ordering: .relaxed)
                if index == 1, withholding || !fromBroker.isEmpty {
                    fromBroker += outgoing
                    outgoing = Self.withoutAcknowledgements(&fromBroker, withholding: withholding)
                }
                var sent = 0
                while sent < outgoing.count {
                    let m = outgoing.withUnsafeBytes { send(to, $0.baseAddress! + sent, outgoing.count - sent, Int32(MSG_NOSIGNAL)) }
                    if m <= 0 { return }
                    sent += m
                }
            }
            for index in fds.indices { fds[index].revents = 0 }
        }
    }
}
