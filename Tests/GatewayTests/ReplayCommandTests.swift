import Foundation
import FoundationXML
import Gateway
@testable import Commands
@testable import OfflineTools
import Recording
import Testing
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
        var output: [String] = []
        var errors: [String] = []
        let status = ReplayCommand.run(arguments: arguments, output: { output.append($0) }, errors: { errors.append($0) })
        return (status, output, errors)
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
        try data.prefix(data.count / 2 + 7).write(to: URL(fileURLWithPath: recording))
        try Self.rules.write(toFile: dir + "/rules.yaml", atomically: true, encoding: .utf8)
        let (status, lines, errors) = replay([recording, "--rules", dir + "/rules.yaml", "--fast"])
        #expect(status == 0)
        #expect(errors.contains { $0.contains("truncated") }, "\(errors)")
        // The first half of the walk is intact: the way in is there.
        #expect(types(lines).starts(with: ["stage_change locate", "stage_change point", "zone_enter counter inside"]), "\(types(lines))")
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
