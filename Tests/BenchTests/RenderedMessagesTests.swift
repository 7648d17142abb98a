import Testing
import Vocabulary
@testable import UCIBench

/// The render floor makes again exactly the packets it was given: rendered at the time they
/// carry, a recorded group comes out byte for byte, so the floor formats what the agent formats.
@Suite struct RenderedMessagesTests {
    static func publish(_ topic: String, _ payload: String, packetIdentifier: UInt16? = nil, properties: [UInt8] = []) -> [UInt8] {
        var body: [UInt8] = [UInt8(topic.utf8.count >> 8), UInt8(topic.utf8.count & 0xFF)] + Array(topic.utf8)
        if let packetIdentifier { body += [UInt8(packetIdentifier >> 8), UInt8(packetIdentifier & 0xFF)] }
        body += [UInt8(properties.count)] + properties + Array(payload.utf8)
        var packet: [UInt8] = [packetIdentifier == nil ? 0x30 : 0x32]
        var remaining = body.count
        repeat {
            let byte = UInt8(remaining & 0x7F)
            remaining >>= 7
            packet.append(remaining > 0 ? byte | 0x80 : byte)
        } while remaining > 0
        return packet + body
    }

    @Test func aGroupRenderedAtItsOwnTimeIsTheRecordedBytes() throws {
        let seconds = 1_796_000_000.125
        let ts = Timestamp.rfc3339(seconds)
        let long = String(repeating: "x", count: 200)
        let group = Self.publish("bench/gw/peer/tag-1/range",
                                 #"{"ts": "\#(ts)", "peer": "tag \"1\"", "session": 42, "seq": 7, "distance_m": 1.23, "raw_distance_m": 0.30000000000000004, "#
                                 + #""azimuth_deg": null, "rssi_dbm": -60.5, "tiny": 2.5e-05, "los": true, "list": [1, -2], "note": "\#(long)"}"#)
            + Self.publish("bench/gw/event", #"{"ts": "\#(ts)", "id": "e-1", "distance_m": 1.0}"#, packetIdentifier: 9, properties: [0x01, 0x01])
        var rendered = try #require(RenderedMessages(groups: [group]))
        var out: [UInt8] = []
        rendered.render(0, at: seconds, into: &out)
        #expect(out == group, "\(String(decoding: out, as: UTF8.self))")
        #expect(rendered.formattedNumbers == 9)

        var later: [UInt8] = []
        rendered.render(0, at: seconds + 1, into: &later)
        #expect(later.count == group.count && later != group, "the timestamps come from the time given")
    }

    /// What is not JSON in a payload (a string left open, a number out of range) is kept as it is.
    @Test func aPayloadThatIsNotJSONComesOutAsItWent() throws {
        for payload in [#"{"n": 1e999, "m": -, "s": "open"#, #"""#, "-"] {
            let group = Self.publish("bench/gw/x", payload)
            var rendered = try #require(RenderedMessages(groups: [group]))
            var out: [UInt8] = []
            rendered.render(0, at: 0, into: &out)
            #expect(out == group, "\(payload)")
        }
    }

    @Test func whatIsNotAPublishIsRefused() {
        #expect(RenderedMessages(groups: [[0x20, 0x03, 0, 0, 0]]) == nil)
    }
}
