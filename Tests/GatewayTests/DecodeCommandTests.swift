import Foundation
import Testing
import Gateway
@testable import Commands
@testable import OfflineTools

/// `uwb2mqtt decode` prints what cli-and-config.md promises and exits with the right status.
@Suite struct DecodeCommandTests {
    /// Runs the command in-process over `arguments` (or `stdin` lines) and returns (status, lines).
    func run(_ arguments: [String], json: Bool = true, stdin: [String] = []) -> (Int32, [String]) {
        var lines: [String] = []
        var input = stdin[...]
        let status = DecodeCommand(json: json, hex: arguments).run(readLine: { input.popFirst().map(InputLine.text) },
                                                                   write: { lines.append($0) })
        return (status, lines)
    }

    @Test func rangingNotificationJSON() {
        let (status, lines) = run(["62 00 00 38 00 00 00 00 01 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 01 00 21 ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00"])
        #expect(status == 0)
        #expect(lines == [
            #"{"mt": "notification", "gid": 2, "oid": 0, "name": "SESSION_INFO_NTF", "pbf": false, "payload": "000000000100000000c8000000010000000000000000000001010021ffffff00000000000000000000000002000000000000000000000000", "sequence_number": 0, "session_id": 1, "ranging_interval_ms": 200, "measurement_type": "TWO_WAY", "mac_addressing_mode": "SHORT", "measurements": [{"mac_address": "0x0001", "status": "RANGING_RX_TIMEOUT", "nlos": null, "distance_cm": null, "aoa_azimuth_deg": 0.0, "aoa_azimuth_fom": 0, "aoa_elevation_deg": 0.0, "aoa_elevation_fom": 0, "aoa_destination_azimuth_deg": 0.0, "aoa_destination_azimuth_fom": 0, "aoa_destination_elevation_deg": 0.0, "aoa_destination_elevation_fom": 0, "slot_index": 2, "rssi_dbm": null}]}"#,
        ])
    }

    @Test func namesStatesAndReasons() {
        let (status, lines) = run(["0x60, 0x07, 0x00, 0x01, 0x01", "61.02.00.06.2a.00.00.00.00.00", "40 02 00 01 01",
                                   "20:02:00:00", "41 00 00 05 00 01 00 00 00", "60 01 00 01 09"])
        #expect(status == 0)
        #expect(lines[0] == #"{"mt": "notification", "gid": 0, "oid": 7, "name": "CORE_GENERIC_ERROR_NTF", "pbf": false, "payload": "01", "status": "REJECTED"}"#)
        #expect(lines[1] == #"{"mt": "notification", "gid": 1, "oid": 2, "name": "SESSION_STATUS_NTF", "pbf": false, "payload": "2a0000000000", "session_handle": 42, "session_state": "SESSION_STATE_INIT", "reason_code": "STATE_CHANGE_WITH_SESSION_MANAGEMENT_COMMANDS"}"#)
        #expect(lines[2] == #"{"mt": "response", "gid": 0, "oid": 2, "name": "CORE_GET_DEVICE_INFO_RSP", "pbf": false, "payload": "01", "status": "REJECTED"}"#)
        #expect(lines[3] == #"{"mt": "command", "gid": 0, "oid": 2, "name": "CORE_GET_DEVICE_INFO_CMD", "pbf": false, "payload": ""}"#)
        #expect(lines[4].contains(#""session_handle": 1"#))
        #expect(lines[5].hasSuffix(#""device_state": "0x09"}"#))
    }

    @Test func deviceInfoVersionsAndVendorInfo() {
        let (_, lines) = run(["40 02 00 3e 00 02 00 02 00 02 00 01 10 34 01 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 50 56 34 58 32 30 0e e0 ca 09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02 03 ca de 00"])
        #expect(lines.count == 1)
        #expect(lines[0].contains(#""uci_version": "2.0.0", "mac_version": "2.0.0", "phy_version": "2.0.0", "uci_test_version": "1.1.0", "vendor_info": "0101"#))
    }

    @Test func setAppConfigParametersAndFailures() {
        let (_, lines) = run(["21 00 00 05 07 00 00 00 00", "21 03 00 0b 01 00 00 00 02 00 01 01 09 01 02", "41 03 00 04 04 01 07 05"])
        #expect(lines[0].hasSuffix(#""session_id": 7, "session_type": "FIRA_RANGING_SESSION"}"#))
        #expect(lines[1].hasSuffix(#""session_handle": 1, "parameters": [{"id": 0, "name": "DEVICE_TYPE", "value": "01"}, {"id": 9, "name": "RANGING_DURATION", "value": "02"}]}"#))
        #expect(lines[2].hasSuffix(#""status": "INVALID_PARAM", "failed": [{"id": 7, "name": "DST_MAC_ADDRESS", "status": "INVALID_RANGE"}]}"#))
    }

    @Test func negativeDistanceAnglesAndRSSI() {
        // One TWR measurement: address 0x01AA, status 0x1B, LoS, 25 cm, azimuth 0xFEAB (−2.6640625°) FOM 90, RSSI 0x91.
        let measurement = "aa 01 1b 00 19 00 ab fe 5a 00 00 00 00 00 00 00 00 00 00 91" + String(repeating: " 00", count: 11)
        let header = "62 00 00 38 05 00 00 00 2a 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 "
        let (status, lines) = run([header + measurement])
        #expect(status == 0)
        #expect(lines[0].contains(#""mac_address": "0x01AA", "status": "OK_NEGATIVE_DISTANCE_REPORT", "nlos": false, "distance_cm": -25, "aoa_azimuth_deg": -2.6640625, "aoa_azimuth_fom": 90"#))
        #expect(lines[0].contains(#""rssi_dbm": -72.5"#))
    }

    @Test func vendorDataAfterTheMeasurementsIsNotAnError() {
        let v14 = "62000038090000002a00000000c800000001000000000000000000000101000000070000000000000000000000000000000000000000000000000000"
        let withVendor = "6200003a" + v14.dropFirst(8) + "beef"
        let (status, lines) = run([String(withVendor)])
        #expect(status == 0)
        #expect(lines[0].hasSuffix(#""vendor_data": "beef"}"#))
    }

    @Test func segmentedMessagesAreJoined() {
        let first = "79 01 00 ff " + String(repeating: "11 ", count: 255)
        let last = "69 01 00 91 " + String(repeating: "22 ", count: 145)
        let (status, lines) = run([first, last])
        #expect(status == 0)
        #expect(lines.count == 1)
        #expect(lines[0].hasPrefix(#"{"mt": "notification", "gid": 9, "oid": 1, "name": "UNKNOWN", "pbf": false, "payload": "1111"#))
        #expect(lines[0].contains(String(repeating: "22", count: 145) + "\"}"))
    }

    @Test func malformedPacketsAreReportedAndTheRestDecoded() {
        let (status, lines) = run(["40 02 00 03 00", "60 01 00 01 01", "not hex", "62 00 00 38 00"])
        #expect(status == 1)
        #expect(lines == [
            #"{"error": "length mismatch: header declares 3 payload bytes, packet has 1", "payload": "4002000300"}"#,
            #"{"mt": "notification", "gid": 0, "oid": 1, "name": "CORE_DEVICE_STATUS_NTF", "pbf": false, "payload": "01", "device_state": "DEVICE_STATE_READY"}"#,
            #"{"error": "not hex: odd number of digits in \"not\"", "payload": ""}"#,
            #"{"error": "length mismatch: header declares 56 payload bytes, packet has 1", "payload": "6200003800"}"#,
        ])
    }

    @Test func aMissingLastSegmentIsReported() {
        let (status, lines) = run(["79 01 00 02 aa bb"])
        #expect(status == 1)
        #expect(lines.count == 1)
        #expect(lines[0].hasPrefix(#"{"error": "incomplete segmented message"#))
    }

    @Test func payloadErrorsNameTheMessage() {
        let (status, lines) = run(["61 02 00 02 01 00"])
        #expect(status == 1)
        #expect(lines == [#"{"error": "SESSION_STATUS_NTF: truncated at session_handle (needs 4 bytes at offset 0, 2 left)", "payload": "0100"}"#])
    }

    @Test func stdinOnePacketPerLineWithCommentsAndBlankLines() {
        let (status, lines) = run([], stdin: ["# reset", "", "20 00 00 01 00", "  40 00 00 01 00  "])
        #expect(status == 0)
        #expect(lines.count == 2)
        #expect(lines[1].contains(#""name": "CORE_DEVICE_RESET_RSP""#))
    }

    @Test func unquotedBytesAreOnePacket() {
        let (status, lines) = run(["40", "00", "00", "01", "00"])
        #expect(status == 0)
        #expect(lines == [#"{"mt": "response", "gid": 0, "oid": 0, "name": "CORE_DEVICE_RESET_RSP", "pbf": false, "payload": "00", "status": "OK"}"#])
    }

    @Test func aCaptureWithSeveralPacketsIsSplit() {
        let (status, lines) = run(["60 01 00 01 01 40 00 00 01 00 60 01 00 01 01"])
        #expect(status == 0)
        #expect(lines.count == 3)
    }

    @Test func textOutputIsReadable() {
        let (status, lines) = run(["62000038090000002a00000000c800000001000000000000000000000101000000070000000000000000000000000000000000000000000000000000"], json: false)
        #expect(status == 0)
        let text = lines.joined(separator: "\n")
        #expect(text.hasPrefix("SESSION_INFO_NTF (notification, gid 0x02, oid 0x00, 56 payload bytes)"))
        #expect(text.contains("  measurements:\n    - mac_address: 0x0001\n      status: OK\n      nlos: false\n      distance_cm: 7"))
    }

    /// Found by the fuzzer: 8-byte values of 2^63 and above trapped in the description.
    @Test func hugeTimestampsDoNotTrap() {
        let (status, lines) = run(["40 08 00 09 03 00 00 00 00 00 00 00 fa"])
        #expect(status == 0)
        #expect(lines == [#"{"mt": "response", "gid": 0, "oid": 8, "name": "CORE_QUERY_UWBS_TIMESTAMP_RSP", "pbf": false, "payload": "0300000000000000fa", "status": "SYNTAX_ERROR", "timestamp": "18014398509481984000"}"#])
    }

    @Test func commandLineUsageErrors() {
        #expect(CommandLineTool.main(["decode", "--bogus"]) == 2)
        #expect(CommandLineTool.main(["frobnicate"]) == 2)
        #expect(CommandLineTool.main(["help", "decode"]) == 0)
    }
}

/// `decode` reading stdin: a line too long to be a UCI message is skipped as it streams past,
/// reported by its number and size; the lines around it decode.
@Suite struct DecodeLineLimitTests {
    @Test func anOverlongLineIsSkippedNotHeld() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decode-lines-\(getpid()).txt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let long = String(repeating: "60 ", count: 1_000_000)   // 3 MB
        try "60 01 00 01 01\n\(long)\n60 01 00 01 01".write(toFile: path, atomically: true, encoding: .utf8)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var reader = BoundedLineReader(fd: fd, limit: 1 << 20)
        var lines: [InputLine] = []
        while let line = reader.next() { lines.append(line) }
        #expect(lines == [.text("60 01 00 01 01"), .tooLong(bytes: 3_000_000), .text("60 01 00 01 01")])

        var input = lines[...]
        var output: [String] = []
        let status = DecodeCommand(json: false).run(readLine: { input.popFirst() }, write: { output.append($0) })
        #expect(status == 1)
        #expect(output.count == 3)
        #expect(output[1].contains("line 2 is 3000000 bytes; lines are at most 1048576 bytes"), "\(output[1])")
    }
}
