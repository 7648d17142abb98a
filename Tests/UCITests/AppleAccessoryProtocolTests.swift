import Foundation
import Testing
import UCI

/// The two structures of Apple's Nearby Interaction accessory protocol against the vectors of
/// apple-interop.md §3, byte for byte, and every shareable configuration the DWM3001C cannot use.
@Suite struct AppleAccessoryProtocolTests {
    static func bytes(_ hex: String) -> [UInt8] { try! Hex.bytes(hex) }

    /// A real iPhone's shareable data, version 1.1.
    static let shareable11 = bytes("01 00 01 00 19 55 53 08 51 00 00 0B 09 06 00 10 0E C6 00 03 17 51 EF 27 FB DD 70 75 64 00")
    /// Synthetic 1.0 (the drift dropped) and 2.0 (reserved and hopping added) of the same values.
    static let shareable10 = bytes("01 00 00 00 17") + Array(shareable11[5..<28])
    static let shareable20 = bytes("02 00 00 00 1E") + Array(shareable11[5..<30]) + [0, 0, 0, 0, 0]

    @Test func theIPhoneBlobOfVersion11ReadsAsTheSpecDecodesIt() throws {
        #expect(Data(Self.shareable11).base64EncodedString() == "AQABABlVUwhRAAALCQYAEA7GAAMXUe8n+91wdWQA")
        let data = try ShareableConfigurationData(bytes: Self.shareable11)
        #expect(data.version == .v1_1)
        #expect(String(decoding: data.countryCode, as: UTF8.self) == "US")
        #expect(data.sessionID == 20744)
        #expect(data.preambleCodeIndex == 11 && data.channel == 9)
        #expect(data.slotsPerRound == 6 && data.slotDurationRSTU == 3600 && data.rangingIntervalMilliseconds == 198)
        #expect(data.rangingRoundControl == 0x03)
        #expect(data.staticSTSIV == [0x17, 0x51, 0xEF, 0x27, 0xFB, 0xDD])
        #expect(data.phoneAddress == [0x70, 0x75])
        #expect(data.clockDriftPPM == 100 && !data.hopping)
        #expect(data.sessionKeyInfo?.bytes == [0x4C, 0x00, 0x17, 0x51, 0xEF, 0x27, 0xFB, 0xDD], "VENDOR_ID 0x004C, then the IV")
        #expect(data.roundMilliseconds == 18)
        #expect(data.bytes == Self.shareable11, "written back byte for byte")
    }

    @Test func versions10And20CarryTheSameSession() throws {
        let v10 = try ShareableConfigurationData(bytes: Self.shareable10)
        #expect(Self.shareable10.count == 28 && v10.version == .v1_0 && v10.clockDriftPPM == nil)
        #expect(v10.sessionID == 20744 && v10.phoneAddress == [0x70, 0x75])
        #expect(v10.bytes == Self.shareable10)
        let v20 = try ShareableConfigurationData(bytes: Self.shareable20)
        #expect(Self.shareable20.count == 35 && v20.version == .v2_0 && v20.clockDriftPPM == 100 && !v20.hopping)
        #expect(v20.bytes == Self.shareable20)
        var hopping = Self.shareable20
        hopping[34] = 1
        #expect(try ShareableConfigurationData(bytes: hopping).hopping)
    }

    /// Every length, version and value the gateway cannot take: an error that names the field.
    @Test(arguments: [
        (Array(shareable11.prefix(29)), "shareable_configuration_data",
         "shareable_configuration_data is 29 bytes (length byte 25) with version 1.1; accepted 1.0 = 28, 1.1 = 30, 2.0 = 35"),
        (shareable11 + [0], "shareable_configuration_data", "is 31 bytes"),
        (Array(shareable11.prefix(3)), "shareable_configuration_data", "shareable_configuration_data is 3 bytes; accepted 1.0 = 28"),
        (bytes("03 00 00 00 19") + Array(shareable11[5...]), "version", "shareable_configuration_data has version 3.0; accepted"),
        (patched(4, 0x1A), "shareable_configuration_data", "(length byte 26) with version 1.1"),
        (patched(12, 6), "channel", "channel 6 is not supported by the DWM3001C (5 or 9); invalidate the NISession and run a new one"),
        (patched(11, 13), "preamble_index", "preamble code index 13 is not supported by the DWM3001C (9 to 12)"),
        (patched(15, 0x0F), "slot_duration_rstu", "slot duration 3599 RSTU is not a whole number of milliseconds"),
        (patched(15, 0x00, 16, 0x00), "slot_duration_rstu", "slot duration 0 RSTU"),
        (patched(13, 3), "slots_per_round", "3 slots per round is not supported (4 to 32)"),
        (patched(17, 10), "ranging_interval_ms", "ranging interval 10 ms is shorter than the round, 6 × 3 ms"),
        (patched(17, 0x0A, 13, 32), "ranging_interval_ms", "ranging interval 10 ms is shorter than the round, 32 × 3 ms"),
        (patched(7, 0, 8, 0), "session_id", "session id 0 is not a FiRa session"),
    ] as [([UInt8], String, String)])
    func whatTheDeviceCannotUseIsRefusedByName(bytes: [UInt8], field: String, message: String) {
        #expect(throws: ShareableConfigurationData.Problem.self) { try ShareableConfigurationData(bytes: bytes) }
        do {
            _ = try ShareableConfigurationData(bytes: bytes)
        } catch {
            #expect(error.field == field, "\(error)")
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func hoppingOtherThanZeroOrOneIsRefused() {
        var bad = Self.shareable20
        bad[34] = 2
        #expect(throws: ShareableConfigurationData.Problem.self) { try ShareableConfigurationData(bytes: bad) }
        #expect((try? ShareableConfigurationData(bytes: bad)) == nil)
        do { _ = try ShareableConfigurationData(bytes: bad) } catch {
            #expect(error.field == "hopping" && error.message == "hopping mode 2 is neither 0 nor 1; invalidate the NISession and run a new one")
        }
    }

    /// The 1.1 blob with bytes changed at the given offsets.
    static func patched(_ changes: Int...) -> [UInt8] {
        var bytes = shareable11
        for index in stride(from: 0, to: changes.count, by: 2) { bytes[changes[index]] = UInt8(changes[index + 1]) }
        return bytes
    }

    /// Qorvo's QANI firmware's answer (without its message id byte) and the gateway's default.
    @Test func theAccessoryConfigurationDataIsTheCapturesByteForByte() {
        let qani = AccessoryConfigurationData(version: .v1_1, preferredUpdateRate: .userInteractive, chipset: .qorvo, role: .initiator,
                                              address: (0x11, 0xD7), clockDriftPPM: 25)
        #expect(qani.bytes == Self.bytes("01 00 00 00 14 00 00 00 00 00 00 00 00 00 00 15 01 00 01 00 3F F5 03 00 B8 0B 00 00 00 00 01 01 01 11 D7 19 00"))
        let gateway = AccessoryConfigurationData(address: (0xA7, 0x3C))
        #expect(gateway.bytes.count == 37)
        #expect(Data(gateway.bytes).base64EncodedString() == "AQAAABQAAAAAAAAAAAAAFQEAAQA/9QMAuAsAAAAAAQEApzwZAA==")
    }

    /// The forum's reverse-engineered 1.0 configuration (after its 16-byte header) and a 2.0 one
    /// with the requested timing at the end.
    @Test func versions10And20() {
        let forum = AccessoryConfigurationData(version: .v1_0, chipset: .init(manufacturer: 0x0003_F53F, model: 0x0000_0BB8, middlewareVersion: 0x0009_0901),
                                               role: .responder, address: (0xAA, 0xAA))
        #expect(Array(forum.bytes.dropFirst(16)) == Self.bytes("01 00 00 00 3F F5 03 00 B8 0B 00 00 01 09 09 00 00 AA AA"))
        #expect(forum.bytes[15] == 19)
        var requested = AccessoryConfigurationData.RequestedTiming()
        requested.slotsPerRound = 6
        requested.rangingIntervalMilliseconds = 240
        let v20 = AccessoryConfigurationData(version: .v2_0, preferredUpdateRate: .automatic, chipset: .zero, address: (0xA7, 0x3C),
                                             requested: requested)
        #expect(v20.bytes.count == 48 && v20.bytes[4] == 0 && v20.bytes[15] == 32)
        #expect(Array(v20.bytes.suffix(16)) == Self.bytes("00 A7 3C 19 00 00 00 00 00 00 06 00 60 09 F0 00"))
    }

    /// The session the shareable data of 1.1 opens, with the gateway as responder at `A7 3C`:
    /// SESSION_INIT and SET_APP_CONFIG exactly as the spec writes them (§3, "UCI for the two").
    @Test func theBlobOpensTheSpecsSessionByteForByte() throws {
        let blob = try ShareableConfigurationData(bytes: Self.shareable11)
        let air = AirParameters(preambleCodeIndex: blob.preambleCodeIndex, slotsPerRound: UInt8(blob.slotsPerRound),
                                slotDurationRSTU: blob.slotDurationRSTU, hopping: blob.hopping,
                                rangingRoundControl: blob.rangingRoundControl, sessionKeyInfo: try #require(blob.sessionKeyInfo))
        let phone = UInt16(blob.phoneAddress[0]) | UInt16(blob.phoneAddress[1]) << 8
        let parameters = AppConfigParameter.appleNearbyInteraction(role: .controlee, ownAddress: 0x3CA7, phone: phone, channel: blob.channel,
                                                                  rangingDurationMilliseconds: UInt32(blob.rangingIntervalMilliseconds), air: air)
        #expect(UCICommand.sessionInit(sessionID: blob.sessionID).raw.payload == Self.bytes("08 51 00 00 00"))
        let command = UCICommand.sessionSetAppConfig(sessionHandle: 1, parameters).raw.payload
        #expect(Array(command.dropFirst(4)) == Self.bytes("""
            16 00 01 00  11 01 00  03 01 00  01 01 02  06 02 A7 3C  07 02 70 75  04 01 09  02 01 00  12 01 03  22 01 01
            14 01 0B  15 01 02  08 02 10 0E  09 04 C6 00 00 00  1B 01 06  27 02 4C 00  28 06 17 51 EF 27 FB DD
            35 01 01  2C 01 00  0C 01 03  2E 01 01  0D 01 00
            """))
    }
}
