import Service
import Vocabulary
import EventLoop
import DeviceLink
import FoundationEssentials
import Recording
import UCI

/// Writes what the device sends to a recording (`uwb2mqtt record`, and `run` with `record:`):
/// every UCI packet with its receive time, so that `replay` can run it again through the rules,
/// and the phones' sessions and reports that the agent took meanwhile (`RecordedInput`).
///
/// The device link hands over whole messages; each is written as the packets the device sent
/// (segments of 255 bytes, as the firmware segments). The metadata names the gateway and the
/// peers, so that a replay without `--config` still names them.
package final class PacketRecorder {
    private let writer: RecordingWriter
    package private(set) var packets = 0

    /// 16 MiB files, the current and three older ones, unless the caller says otherwise.
    static let rotation = RotationPolicy(maxBytes: 16 << 20, maxFiles: 4)

    package init(path: String, configuration: AgentConfiguration, rotation: RotationPolicy = PacketRecorder.rotation) throws(RecordingError) {
        // fsync after every record: a power cut then loses at most the last packet. The
        // device sends a few dozen packets a second, well within what an SD card takes.
        writer = try RecordingWriter(path: path, startTime: Int64(Clocks.wall() * 1_000_000),
                                     metadata: Self.metadata(configuration), rotation: rotation, sync: .everyRecord)
    }

    static func metadata(_ configuration: AgentConfiguration) -> String {
        let peers: [JSONValue] = configuration.device.peers.map {
            .object([JSONMember("address", .string($0.address.description)), JSONMember("name", $0.name.map(JSONValue.string) ?? .null)])
        }
        return FieldRendering.json([JSONMember("agent_version", .string(AgentVersion.agent)), JSONMember("gateway", .string(configuration.gateway.id)),
                                    JSONMember("session_id", .int(Int64(configuration.device.sessionID))), JSONMember("peers", .list(peers))])
    }

    /// The peers a recording's metadata names (for `replay` without `--config`).
    package static func peers(fromMetadata text: String) -> [AgentConfiguration.Peer] {
        struct Metadata: Decodable {
            struct Peer: Decodable { var address: String; var name: String? }
            var peers: [Peer]?
        }
        guard let metadata = try? JSONDecoder().decode(Metadata.self, from: Data(text.utf8)) else { return [] }
        return (metadata.peers ?? []).compactMap { peer in
            let digits = peer.address.lowercased().hasPrefix("0x") ? String(peer.address.dropFirst(2)) : peer.address
            return UInt16(digits, radix: 16).map { AgentConfiguration.Peer(address: $0, name: peer.name) }
        }
    }

    /// The session id a recording's metadata names: the `session` of its `range` payloads.
    package static func sessionID(fromMetadata text: String) -> UInt32? {
        struct Metadata: Decodable {
            var session_id: UInt32?
        }
        return (try? JSONDecoder().decode(Metadata.self, from: Data(text.utf8)))?.session_id
    }

    package func record(_ message: RawMessage, receivedAt: Double) throws(RecordingError) {
        // Rounded, not truncated: a time already in whole microseconds (Clocks.wallMicroseconds)
        // must come back as the same integer, and x / 1e6 * 1e6 can land just below it.
        let micros = Int64((receivedAt * 1_000_000).rounded())
        for packet in message.packets() {
            try writer.append(packet.bytes, receivedAt: micros)
            packets += 1
        }
    }

    /// An input the agent took from elsewhere than the device (a phone's session or report).
    package func record(_ input: RecordedInput, at time: Double) throws(RecordingError) {
        try writer.append(input.bytes, receivedAt: Int64((time * 1_000_000).rounded()), flags: .agentInput)
    }

    package func close() {
        try? writer.close()
    }
}
