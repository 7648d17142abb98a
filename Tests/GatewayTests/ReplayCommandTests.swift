import Vocabulary
import Foundation
import FoundationXML
import Gateway
@testable import Commands
@testable import OfflineTools
import Recording
import Testing
import TestSupport
import UCI

/// `uwb2mqtt replay` on recordings made here: a walk-up of one tag, written with the recording
/// writer exactly as the agent writes what the device sends.
@Suite struct ReplayCommandTests {
    static let rules = """
    version: 1
    zones:
      - {name: counter, enter_within: 1.0, exit_beyond: 1.3, dwell: 300ms}
    stages:
      hysteresis: 0.2
      bands:
        - {name: locate, beyond: 10}
        - {name: point, beyond: 1}
        - {name: reach}
    """

    /// A recording of a tag walking from 12 m to 0.5 m and back at 5 Hz, then out of range.
    static func makeRecording(in directory: String) throws -> String {
        let path = directory + "/walk.uwbrec"
        let start = 1_800_000_000.0
        let writer = try RecordingWriter(path: path, startTime: Int64(start * 1e6),
                                         metadata: #"{"peers": [{"address": "0x0001", "name": "phone-anna"}]}"#)
        for step in 0..<150 {
            let t = Double(step) * 0.2
            let distance = t < 15 ? 12 - 11.5 * t / 15 : 0.5 + 11.5 * (t - 15) / 15
            let outOfRange = step >= 140
            let m = TwoWayRangingMeasurement(macAddress: .short(1), status: outOfRange ? .rangingRxTimeout : .ok,
                                             nlosRaw: outOfRange ? 0xFF : 0, distanceRaw: outOfRange ? 0xFFFF : UInt16(distance * 100))
            let info = SessionInfo(sequenceNumber: UInt32(step), sessionHandle: 1, currentRangingInterval: 200, measurements: .twoWay([m]))
            try writer.append(UCIMessage.notification(.sessionInfo(info)).encoded(), receivedAt: Int64((start + t) * 1e6))
        }
        try writer.close()
        return path
    }

    func replay(_ arguments: [String]) -> (Int32, [String], [String]) {
        let output = Lines()
        let errors = Lines()
        let status = ReplayCommand.main(arguments, console: Console(output: output.append, errors: errors.append))
        return (status, output.all, errors.all)
    }

    func types(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            guard let type = object?["type"] as? String else { return nil }
            return [type, object?["rule"] as? String, object?["to"] as? String].compactMap { $0 }.joined(separator: " ")
        }
    }

    @Test func eventsAsJSONLinesWithPeersFromTheRecording() throws {
        let dir = NSTemporaryDirectory() + "replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = try Self.makeRecording(in: dir)
        let rules = dir + "/rules.yaml"
        try Self.rules.write(toFile: rules, atomically: true, encoding: .utf8)
        let (status, lines, errors) = replay([recording, "--rules", rules, "--fast", "--svg", dir + "/walk.svg"])
        #expect(status == 0, "\(errors)")
        #expect(types(lines) == ["stage_change locate", "stage_change point", "zone_enter counter inside", "stage_change reach",
                                 "stage_change point", "zone_exit counter outside", "stage_change locate", "signal_lost lost",
                                 "stage_change"], "\(types(lines))")
        let first = try #require((try JSONSerialization.jsonObject(with: Data(lines[0].utf8))) as? [String: Any])
        #expect(first["peer"] as? String == "phone-anna")
        #expect(first.keys.sorted() == ["cue", "distance_m", "from", "id", "peer", "reason", "rule", "to", "ts", "type"])

        // The plot is valid XML with a panel, the filtered line, bands, event labels and the gap.
        let svg = try String(contentsOfFile: dir + "/walk.svg", encoding: .utf8)
        let parser = XMLParser(data: Data(svg.utf8))
        let counter = ElementCounter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(counter.counts["svg"] == 1 && (counter.counts["path"] ?? 0) >= 1 && (counter.counts["rect"] ?? 0) >= 3)
        #expect(svg.contains("zone_enter") && svg.contains("time (s)") && svg.contains("distance (m)") && svg.contains("phone-anna"))
    }

    @Test func aChangedThresholdShowsInTheComparison() throws {
        let dir = NSTemporaryDirectory() + "replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = try Self.makeRecording(in: dir)
        try Self.rules.write(toFile: dir + "/old.yaml", atomically: true, encoding: .utf8)
        try Self.rules.replacingOccurrences(of: "enter_within: 1.0, exit_beyond: 1.3", with: "enter_within: 2.0, exit_beyond: 2.3")
            .write(toFile: dir + "/new.yaml", atomically: true, encoding: .utf8)
        let (status, lines, _) = replay([recording, "--compare", dir + "/old.yaml", dir + "/new.yaml"])
        #expect(status == 0)
        #expect(lines.contains { $0.hasPrefix("~") && $0.contains("zone_enter counter") && $0.contains("moved -") })
        #expect(lines.contains { $0.hasPrefix("~") && $0.contains("zone_exit counter") && $0.contains("moved +") })
        #expect(lines.last?.hasPrefix("0 added, 0 removed, 2 moved") == true, "\(lines)")
    }

    @Test func aTruncatedRecordingReplaysWhatIsIntactAndSaysWhatIsNot() throws {
        let dir = NSTemporaryDirectory() + "replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = try Self.makeRecording(in: dir)
        let data = try Data(contentsOf: URL(fileURLWithPath: recording))
        try data.prefix(data.count * 2 / 3 + 7).write(to: URL(fileURLWithPath: recording))
        try Self.rules.write(toFile: dir + "/rules.yaml", atomically: true, encoding: .utf8)
        let (status, lines, errors) = replay([recording, "--rules", dir + "/rules.yaml", "--fast"])
        #expect(status == 0)
        #expect(errors.contains { $0.contains("truncated") }, "\(errors)")
        // The first two thirds of the walk (to 20 s) are intact: the way in is there.
        #expect(types(lines).starts(with: ["stage_change locate", "stage_change point", "zone_enter counter inside"]), "\(types(lines))")
    }

    /// A recording of rounds at `times` (seconds after its start): in each, every tag that
    /// `ranges` at that time is measured at 2 m. The tags are 0x0001 `phone-anna`, 0x0002 `tool-cart`.
    static func makeRecording(in directory: String, times: [Double], ranges: (UInt16, Double) -> Bool) throws -> (path: String, start: Double, end: Double) {
        let path = directory + "/rounds.uwbrec"
        let start = 1_800_000_000.0
        let writer = try RecordingWriter(path: path, startTime: Int64(start * 1e6), metadata: """
            {"peers": [{"address": "0x0001", "name": "phone-anna"}, {"address": "0x0002", "name": "tool-cart"}]}
            """)
        for (step, t) in times.enumerated() {
            let measurements = ([1, 2] as [UInt16]).filter { ranges($0, t) }.map {
                TwoWayRangingMeasurement(macAddress: .short($0), status: .ok, nlosRaw: 0, distanceRaw: 200)
            }
            let info = SessionInfo(sequenceNumber: UInt32(step), sessionHandle: 1, currentRangingInterval: 200, measurements: .twoWay(measurements))
            try writer.append(UCIMessage.notification(.sessionInfo(info)).encoded(), receivedAt: Int64((start + t) * 1e6))
        }
        try writer.close()
        return (path, start, start + times.last!)
    }

    /// The `ts` of a JSON payload, in seconds since the epoch.
    func timestamp(_ payload: some StringProtocol) -> Double? {
        let object = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
        return (object?["ts"] as? String).flatMap(Timestamp.parse)
    }

    @Test func aReplayEndsAtTheLastPacketOfTheRecording() throws {
        let dir = NSTemporaryDirectory() + "replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Both tags range at 5 Hz for 10 s, up to the last packet.
        let (recording, _, end) = try Self.makeRecording(in: dir, times: (0..<50).map { Double($0) * 0.2 }) { _, _ in true }
        try Self.rules.write(toFile: dir + "/rules.yaml", atomically: true, encoding: .utf8)

        let (status, events, errors) = replay([recording, "--rules", dir + "/rules.yaml", "--fast"])
        #expect(status == 0, "\(errors)")
        #expect(types(events) == ["stage_change point", "stage_change point"], "\(types(events))")

        let (topicsStatus, lines, _) = replay([recording, "--rules", dir + "/rules.yaml", "--fast", "--topics"])
        #expect(topicsStatus == 0)
        #expect(lines.count > 100)
        #expect(!lines.contains { $0.contains("signal_lost") || $0.contains(#""link":"lost""#) }, "\(lines.suffix(8))")
        for line in lines {
            let payload = line.drop { $0 != " " }
            let ts = try #require(timestamp(payload), "no ts: \(line)")
            #expect(ts <= end + 1e-3, "dated after the last packet (\(Timestamp.rfc3339(end))): \(line)")
        }
    }

    @Test func aGapInsideARecordingIsStillASignalLoss() throws {
        let dir = NSTemporaryDirectory() + "replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Anna ranges throughout; the cart is silent from 4 s to 9 s, then ranges to the end.
        let (recording, start, end) = try Self.makeRecording(in: dir, times: (0..<60).map { Double($0) * 0.2 }) { address, t in
            address == 1 || t < 4 || t >= 9
        }
        try "version: 1\nsignal_lost_after: 2s\n".write(toFile: dir + "/rules.yaml", atomically: true, encoding: .utf8)

        let (status, lines, errors) = replay([recording, "--rules", dir + "/rules.yaml", "--fast"])
        #expect(status == 0, "\(errors)")
        let events = lines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        #expect(events.map { "\($0["peer"] ?? "") \($0["type"] ?? "")" } == ["tool-cart signal_lost", "tool-cart signal_regained"])
        let lost = try #require(events.first.flatMap { $0["ts"] as? String }.flatMap(Timestamp.parse))
        // Lost 2 s after the cart's last measurement (3.8 s), within a tick (0.1 s).
        #expect(abs(lost - (start + 3.8 + 2)) <= 0.1 + 1e-3, "\(lines)")
        #expect(lines.allSatisfy { (timestamp($0) ?? .infinity) <= end + 1e-3 })
    }

    @Test func badInputIsAClearError() {
        #expect(replay([]).0 == 2)
        #expect(replay(["/no/such/recording"]).0 == 1)
        #expect(replay(["x", "--bogus"]).0 == 2)
    }
}

final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        counts[name, default: 0] += 1
    }
}
