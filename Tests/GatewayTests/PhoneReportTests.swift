import Testing
@testable import Gateway
import Foundation
import Vocabulary

/// A phone's report (`phone/<name>/report`) as the agent reads it: anyone on the broker can
/// publish there, so every field is checked and each refusal has its cause.
@Suite struct PhoneReportTests {
    static let good = #"{"token": "00112233445566778899aabbccddeeff", "ts": "2026-12-03T10:00:00.000Z", "distance_m": 1.42, "azimuth_deg": -12.5, "elevation_deg": 3.0}"#

    func parse(_ text: String) -> Result<PhoneReport, PhoneReport.Refusal> { PhoneReport.parse(Array(text.utf8)) }

    @Test func theContractsExampleIsRead() throws {
        let report = try parse(Self.good).get()
        #expect(report == PhoneReport(token: "00112233445566778899aabbccddeeff", ts: Timestamp.parse("2026-12-03T10:00:00.000Z")!,
                                      distanceM: 1.42, azimuthDeg: -12.5, elevationDeg: 3))
        // An iPhone outside its field of view: no angle, which is news, not an error.
        let blind = try parse(#"{"token": "t", "ts": "2026-12-03T10:00:00.000Z", "distance_m": null, "azimuth_deg": null, "elevation_deg": null}"#).get()
        #expect(blind.azimuthDeg == nil && blind.elevationDeg == nil && blind.distanceM == nil)
    }

    @Test(arguments: [
        ("not json", PhoneReport.Refusal.malformed),
        ("[1, 2]", .malformed),
        (#"{"ts": "2026-12-03T10:00:00.000Z", "azimuth_deg": 1}"#, .malformed),
        (#"{"token": 7, "ts": "2026-12-03T10:00:00.000Z"}"#, .malformed),
        (#"{"token": "t", "ts": "yesterday"}"#, .malformed),
        (#"{"token": "t", "ts": 1796292000}"#, .malformed),
        (#"{"token": "t", "ts": "2026-12-03T10:00:00.000Z", "azimuth_deg": "left"}"#, .malformed),
        (#"{"token": "t", "ts": "2026-12-03T10:00:00.000Z", "azimuth_deg": 180.5}"#, .outOfRange),
        (#"{"token": "t", "ts": "2026-12-03T10:00:00.000Z", "elevation_deg": -91}"#, .outOfRange),
        (#"{"token": "t", "ts": "2026-12-03T10:00:00.000Z", "distance_m": 1e9}"#, .outOfRange),
        (#"{"token": "t", "ts": "2026-12-03T10:00:00.000Z", "azimuth_deg": 1e999}"#, .malformed),
        (Self.good + String(repeating: " ", count: 512 - Self.good.utf8.count + 1), .tooLarge),
    ])
    func whatCannotBeAReportIsRefusedWithItsCause(_ text: String, _ cause: PhoneReport.Refusal) {
        #expect(parse(text) == .failure(cause), "\(text)")
    }

    /// A report over the client's copy limit (10 MB on MQTT 3.1.1, where the broker cannot be
    /// asked to refuse it) arrives empty, with its size: too large, not malformed.
    @Test func aReportTheClientDidNotCopyIsTooLarge() {
        #expect(PhoneReport.parse([], size: 10_000_000) == .failure(.tooLarge))
    }

    @Test func aReportUpToTheLimitIsRead() {
        let padded = Self.good + String(repeating: " ", count: 512 - Self.good.utf8.count)
        #expect((try? parse(padded).get()) != nil)
    }

    @Test func theReportTopicNamesItsPhone() {
        let topics = TopicTree(base: "uwb2mqtt", gatewayID: "gw")
        #expect(topics.phoneReportFilter == "uwb2mqtt/gw/phone/+/report")
        #expect(topics.phoneReportName(of: "uwb2mqtt/gw/phone/phone-anna/report") == "phone-anna")
        #expect(topics.phoneReportName(of: "uwb2mqtt/gw/phone//report") == nil)
        #expect(topics.phoneReportName(of: "uwb2mqtt/gw/phone/a/b/report") == nil)
        #expect(topics.phoneReportName(of: "uwb2mqtt/other/phone/a/report") == nil)
        #expect(topics.phoneReportName(of: "uwb2mqtt/gw/phone/a/state") == nil)
    }

    @Test func tokensAre32HexDigitsAndComparedWhole() {
        var random = SystemRandomNumberGenerator()
        let a = ReportToken.random(using: &random), b = ReportToken.random(using: &random)
        #expect(a.utf8.count == 32 && a.allSatisfy(\.isHexDigit) && a != b)
        #expect(ReportToken.equal(a, a) && !ReportToken.equal(a, b) && !ReportToken.equal(a, String(a.dropLast())) && !ReportToken.equal("", ""))
    }

    /// Through the core: the session's token gives the phone a direction; any other token, or a
    /// name without a session, changes nothing.
    @Test func onlyTheSessionsTokenGivesADirection() {
        let report = #"{"token": "$TOKEN", "ts": "2027-01-15T08:00:00.050Z", "distance_m": 1.5, "azimuth_deg": 4, "elevation_deg": -2}"#
        let state = RequestParsing.reportOutcome(segment: "phone", payload: Array(report.utf8))
        #expect(state.contains(#""direction": "available", "direction_source": "phone", "azimuth_deg": 4.0, "elevation_deg": -2.0"#), "\(state)")
        #expect(state.contains(#""facing": true"#), "\(state)")
        let wrong = report.replacingOccurrences(of: "$TOKEN", with: "00112233445566778899aabbccddeeff")
        #expect(RequestParsing.reportOutcome(segment: "phone", payload: Array(wrong.utf8)) == "")
        #expect(RequestParsing.reportOutcome(segment: "someone-else", payload: Array(report.utf8)) == "")
        let late = report.replacingOccurrences(of: "08:00:00.050Z", with: "07:59:50.000Z")
        #expect(RequestParsing.reportOutcome(segment: "phone", payload: Array(late.utf8)) == "")
    }
}

/// What a recording keeps of a phone (`RecordedInput`): read back as written, and nothing else.
@Suite struct RecordedInputTests {
    @Test func everyKindReadsBackAsWritten() {
        let inputs: [RecordedInput] = [
            .phoneJoined(name: "phone-ben", address: 0xCDAB, sessionID: 4_000_000_000),
            .phoneMoved(name: "iphone-eve", from: 0x7570, to: 0x0102, sessionID: 20744),
            .phoneLeft(address: 0xCDAB),
            .phoneReported(address: 0xCDAB, azimuthDeg: -12.5, elevationDeg: nil, measuredAt: 1_795_977_000.123),
            .phoneReported(address: 1, azimuthDeg: nil, elevationDeg: nil, measuredAt: 0),
        ]
        for input in inputs { #expect(RecordedInput(bytes: input.bytes) == input, "\(String(decoding: input.bytes, as: UTF8.self))") }
        #expect(String(decoding: inputs[0].bytes, as: UTF8.self) == #"{"phone_joined": {"name": "phone-ben", "address": "0xCDAB", "session_id": 4000000000}}"#)
    }

    @Test(arguments: [
        "", "not json", "{}", #"{"phone_left": {"address": "0xCDAB"}, "phone_joined": {}}"#, #"{"phone_left": {"address": 52651}}"#,
        #"{"phone_left": {"address": "CDAB"}}"#, #"{"phone_flew": {"address": "0xCDAB"}}"#,
        #"{"phone_reported": {"address": "0x0001", "azimuth_deg": 500, "elevation_deg": null, "measured_at": "1970-01-01T00:00:00.000Z"}}"#,
        #"{"phone_joined": {"name": "x", "address": "0x0001", "session_id": -1}}"#,
    ])
    func anythingElseIsNoInput(_ text: String) {
        #expect(RecordedInput(bytes: Array(text.utf8)) == nil)
    }
}
