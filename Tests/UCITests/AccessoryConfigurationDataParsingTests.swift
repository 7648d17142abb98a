import Foundation
import Testing
import UCI

/// Reading Accessory Configuration Data as iOS does: the vectors of apple-interop.md §3 byte for
/// byte, and every malformed structure refused by the field at fault.
@Suite struct AccessoryConfigurationDataParsingTests {
    static func bytes(_ hex: String) -> [UInt8] { try! Hex.bytes(hex) }

    /// The QANI firmware's answer to `0A`, without its message id byte.
    static let qani = bytes("01 00 00 00 14 00 00 00 00 00 00 00 00 00 00 15 01 00 01 00 3F F5 03 00 B8 0B 00 00 00 00 01 01 01 11 D7 19 00")
    /// The gateway's default: the QANI capture with role 0 and address `A7 3C`.
    static let gateway = bytes("01 00 00 00 14 00 00 00 00 00 00 00 00 00 00 15 01 00 01 00 3F F5 03 00 B8 0B 00 00 00 00 01 01 00 A7 3C 19 00")
    /// The forum's 1.0 UWB config data behind a header with rate 0.
    static let forum = bytes("01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 13") + bytes("01 00 00 00 3F F5 03 00 B8 0B 00 00 01 09 09 00 00 AA AA")
    /// A 2.0 configuration requesting hopping, 6 slots of 2400 RSTU every 240 ms.
    static let v20 = bytes("01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 20 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
                           + "00 A7 3C 19 00 00 00 00 00 01 06 00 60 09 F0 00")

    @Test func theQANICaptureReadsAsTheSpecDecodesIt() throws {
        let data = try AccessoryConfigurationData(bytes: Self.qani)
        #expect(data.version == .v1_1 && data.preferredUpdateRate == .userInteractive)
        #expect(data.chipset == .qorvo && data.role == .initiator)
        #expect(data.address == [0x11, 0xD7] && data.clockDriftPPM == 25)
        #expect(data.bytes == Self.qani)
    }

    @Test func theGatewayDefaultReadsBackAsBuilt() throws {
        #expect(Data(Self.gateway).base64EncodedString() == "AQAAABQAAAAAAAAAAAAAFQEAAQA/9QMAuAsAAAAAAQEApzwZAA==")
        let data = try AccessoryConfigurationData(bytes: Self.gateway)
        #expect(data == AccessoryConfigurationData(address: (0xA7, 0x3C)))
        #expect(data.role == .responder && data.address == [0xA7, 0x3C] && data.chipset.middlewareVersion == 0x0101_0000)
        #expect(data.bytes == Self.gateway)
    }

    @Test func version10CarriesNoDrift() throws {
        let data = try AccessoryConfigurationData(bytes: Self.forum)
        #expect(data.version == .v1_0 && data.preferredUpdateRate == .automatic && data.role == .responder)
        #expect(data.chipset == .init(manufacturer: 0x0003_F53F, model: 0x0000_0BB8, middlewareVersion: 0x0009_0901))
        #expect(data.address == [0xAA, 0xAA] && data.clockDriftPPM == 0)
        #expect(data.bytes == Self.forum)
    }

    @Test func version20CarriesTheRequest() throws {
        let data = try AccessoryConfigurationData(bytes: Self.v20)
        #expect(data.version == .v2_0 && data.chipset == .zero && data.clockDriftPPM == 25)
        #expect(data.requested.hopping && data.requested.slotsPerRound == 6)
        #expect(data.requested.slotDurationRSTU == 2400 && data.requested.rangingIntervalMilliseconds == 240)
        #expect(data.bytes == Self.v20)
    }

    /// The gateway ACD with bytes changed at the given offsets.
    static func patched(_ changes: Int...) -> [UInt8] {
        var bytes = gateway
        for index in stride(from: 0, to: changes.count, by: 2) { bytes[changes[index]] = UInt8(changes[index + 1]) }
        return bytes
    }

    @Test(arguments: [
        (Array(gateway.prefix(10)), "accessory_configuration_data",
         "accessory_configuration_data is 10 bytes; accepted 1.0 = 35, 1.1 = 37, 2.0 = 48"),
        (Array(gateway.prefix(36)), "accessory_configuration_data", "is 36 bytes with UWB config version 1.1; accepted"),
        (gateway + [0], "accessory_configuration_data", "is 38 bytes with UWB config version 1.1"),
        (patched(15, 0x13), "uwb_config_length", "the length byte says 19 bytes of UWB config data; version 1.1 has 21"),
        (patched(0, 2), "accessory_protocol_version", "accessory protocol version 2.0 is not 1.0"),
        (patched(2, 1), "accessory_protocol_version", "accessory protocol version 1.1 is not 1.0"),
        (patched(4, 5), "preferred_update_rate", "preferred update rate 5 is none of 0 (automatic), 10 (infrequent), 20"),
        (patched(9, 1), "reserved", "reserved header byte 9 is 1, not 0"),
        (patched(16, 3), "uwb_config_version", "UWB config version 3.1 is none of 1.0, 1.1, 2.0"),
        (patched(18, 2), "uwb_config_version", "UWB config version 1.2"),
        (patched(32, 2), "ranging_role", "ranging role 2 is neither 0 (responder) nor 1 (initiator)"),
    ] as [([UInt8], String, String)])
    func malformedIsRefusedByName(bytes: [UInt8], field: String, message: String) {
        #expect(throws: AccessoryConfigurationData.Problem.self) { try AccessoryConfigurationData(bytes: bytes) }
        do {
            _ = try AccessoryConfigurationData(bytes: bytes)
        } catch {
            #expect(error.field == field, "\(error)")
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test(arguments: [
        (38, 1, "reserved", "reserved UWB config byte 22 is 1, not 0"),
        (41, 2, "requested_hopping", "requested hopping 2 is neither 0 nor 1"),
        (15, 21, "uwb_config_length", "the length byte says 21 bytes of UWB config data; version 2.0 has 32"),
    ] as [(Int, UInt8, String, String)])
    func malformedVersion20IsRefusedByName(offset: Int, value: UInt8, field: String, message: String) {
        var bytes = Self.v20
        bytes[offset] = value
        do {
            _ = try AccessoryConfigurationData(bytes: bytes)
            Issue.record("read \(bytes)")
        } catch {
            #expect(error.field == field && error.message == message, "\(error)")
        }
    }

    @Test func whatIsBuiltReadsBack() throws {
        for version in AccessoryConfigurationData.UWBConfigVersion.allCases {
            for rate in [AccessoryConfigurationData.PreferredUpdateRate.automatic, .infrequent, .userInteractive] {
                var requested = AccessoryConfigurationData.RequestedTiming()
                requested.hopping = version == .v2_0
                let built = AccessoryConfigurationData(version: version, preferredUpdateRate: rate, role: .initiator,
                                                       address: (0x12, 0x34), clockDriftPPM: version == .v1_0 ? 0 : 40,
                                                       requested: version == .v2_0 ? requested : .init())
                #expect(try AccessoryConfigurationData(bytes: built.bytes) == built)
            }
        }
    }
}
