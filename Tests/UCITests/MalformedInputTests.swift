import Testing
import UCI

/// Malformed input is a typed error with a clear message, never a trap.
@Suite struct MalformedInputTests {
    @Test func truncatedHeader() {
        #expect(throws: UCIDecodingError.self) { try Packet(decoding: [0x62, 0x00]) }
    }

    @Test func lengthMismatchBothWays() {
        #expect(throws: UCIDecodingError.lengthMismatch(declared: 2, actual: 1)) { try Packet(decoding: [0x41, 0x06, 0x00, 0x02, 0x00]) }
        #expect(throws: UCIDecodingError.lengthMismatch(declared: 1, actual: 2)) { try Packet(decoding: [0x41, 0x06, 0x00, 0x01, 0x00, 0x00]) }
    }

    @Test func invalidMessageType() {
        #expect(throws: UCIDecodingError.invalidMessageType(7)) { try Packet(decoding: [0xE0, 0x00, 0x00, 0x00]) }
    }

    @Test func truncatedMeasurement() throws {
        // V14 with its last 10 bytes cut off (and the header length adjusted).
        var bytes = Array(Vectors.v14.dropLast(10))
        bytes[3] = UInt8(bytes.count - 4)
        let error = try #require(throws: UCIDecodingError.self) { try decodePacket(bytes) }
        #expect(error.description.hasPrefix("SESSION_INFO_NTF:"))
    }

    @Test func measurementCountBeyondThePayload() throws {
        var bytes = Vectors.v14
        bytes[4 + 24] = 5 // five measurements announced, one present
        let error = try #require(throws: UCIDecodingError.self) { try decodePacket(bytes) }
        #expect(error == .countBeyondPayload(message: "SESSION_INFO_NTF", field: "number of measurements", count: 5, available: 31))
        #expect(error.description == "SESSION_INFO_NTF: number of measurements is 5, more than the 31 remaining payload bytes can hold")
    }

    @Test func invalidMacAddressingMode() throws {
        var bytes = Vectors.v14
        bytes[4 + 15] = 7
        #expect(throws: UCIDecodingError.invalidValue(message: "SESSION_INFO_NTF", field: "mac_addressing_mode", value: 7)) {
            try decodePacket(bytes)
        }
    }

    @Test func unknownGIDAndOIDKeepThePayload() throws {
        #expect(try decodePacket([0x65, 0x3F, 0x00, 0x02, 0xAB, 0xCD]) == .notification(.unknown(gid: 5, oid: 0x3F, payload: [0xAB, 0xCD])))
        #expect(try decodePacket([0x40, 0x20, 0x00, 0x01, 0x00]) == .response(.unknown(gid: 0, oid: 0x20, payload: [0x00])))
        #expect(try decodePacket([0x2C, 0x01, 0x00, 0x00]) == .command(.unknown(gid: 0xC, oid: 1, payload: [])))
    }

    @Test func trailingBytesInAFixedPayload() {
        #expect(throws: UCIDecodingError.trailingBytes(message: "SESSION_STATUS_NTF", count: 1)) {
            try decodePacket([0x61, 0x02, 0x00, 0x07, 1, 0, 0, 0, 2, 0, 9])
        }
    }

    @Test func truncatedResponses() {
        for bytes: [UInt8] in [
            [0x40, 0x02, 0x00, 0x03, 0x00, 0x02, 0x00],     // device info cut in the versions
            [0x40, 0x03, 0x00, 0x03, 0x00, 0x01, 0x13],     // caps: TLV without its length
            [0x41, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00],     // session init handle cut
            [0x41, 0x03, 0x00, 0x02, 0x00, 0x02],           // failed list announces 2
            [0x42, 0x00, 0x00, 0x00],                       // response without status
            [0x60, 0x01, 0x00, 0x00],                       // device status without state
            [0x21, 0x07, 0x00, 0x06, 1, 0, 0, 0, 9, 0],     // multicast: invalid action
        ] {
            #expect(throws: UCIDecodingError.self, "\(Hex.string(bytes))") { try decodePacket(bytes) }
        }
    }

    @Test func appConfigSizesAreChecked() {
        #expect(throws: UCIDecodingError.self) { try AppConfigParameter(ConfigTLV(id: 0x09, value: [1, 2])) }
        #expect(throws: UCIDecodingError.self) { try AppConfigParameter(ConfigTLV(id: 0x00, value: [7])) }
        #expect(throws: UCIDecodingError.self) { try AppConfigParameter(ConfigTLV(id: 0x07, value: [1, 2, 3])) }
    }

    @Test func hexParsing() throws {
        #expect(try Hex.bytes("0x60, 0x07, 0x7") == [0x60, 0x07, 0x07])
        #expect(try Hex.bytes("62:00.00 38") == [0x62, 0x00, 0x00, 0x38])
        #expect(try Hex.bytes("") == [])
        #expect(throws: UCIDecodingError.self) { try Hex.bytes("6") }
        #expect(throws: UCIDecodingError.self) { try Hex.bytes("zz") }
        #expect(throws: UCIDecodingError.self) { try Hex.bytes("0x") }
    }

    /// Every prefix and every single-byte corruption of the vectors decodes or throws, never traps.
    @Test func noInputTraps() {
        let all = [Vectors.v2DeviceInfoRsp, Vectors.v3CapsRsp, Vectors.v6SetAppConfigCmd, Vectors.v7SetAppConfigCmd,
                   Vectors.v11Ntf0, Vectors.v14, Vectors.v18, Vectors.v22]
        for vector in all {
            for cut in 0..<vector.count {
                let payload = Array(vector[min(4, cut)..<cut])
                for mt in [MessageType.command, .response, .notification] {
                    _ = try? UCIMessage(decoding: RawMessage(messageType: mt, gid: vector[0] & 0xF, oid: vector[1], payload: payload))
                }
            }
            for index in 4..<vector.count {
                for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] {
                    var corrupted = vector
                    corrupted[index] = value
                    _ = try? decodePacket(corrupted)
                    var r = Reassembler(accepting: Set(MessageType.allCases))
                    for case let .message(m) in r.feed(corrupted) { _ = try? UCIMessage(decoding: m) }
                }
            }
        }
    }
}
