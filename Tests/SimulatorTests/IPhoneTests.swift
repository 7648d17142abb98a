import Foundation
import Testing
import UCI
@testable import Simulator

/// An iPhone as a peer (apple-interop.md): iOS reads the gateway's accessory configuration data,
/// chooses the session, and the iPhone ranges with the simulated gateway only when the gateway's
/// session matches, over the air, what iOS chose.
@Suite("iPhone peer")
struct IPhoneTests {
    /// The gateway's default ACD of spec §3 (role 0, address `A7 3C`).
    static let gatewayACD = hex("01 00 00 00 14 00 00 00 00 00 00 00 00 00 00 15 01 00 01 00 3F F5 03 00 B8 0B 00 00 00 00 01 01 00 A7 3C 19 00")
    /// The real iPhone blob of spec §3: session 20744, iPhone `70 75`.
    static let capture = hex("01 00 01 00 19 55 53 08 51 00 00 0B 09 06 00 10 0E C6 00 03 17 51 EF 27 FB DD 70 75 64 00")
    /// Wire `70 75`, uwb2mqtt's `0x7570`.
    static let phoneAddress = UWBAddress(0x70, 0x75)
    /// SET_APP_CONFIG's TLVs of spec §3 "UCI for the two", after the count byte 0x16.
    static let specTLVs = """
        00 01 00  11 01 00  03 01 00  01 01 02  06 02 A7 3C  07 02 70 75  04 01 09  02 01 00  12 01 03  22 01 01
        14 01 0B  15 01 02  08 02 10 0E  09 04 C6 00 00 00  1B 01 06  27 02 4C 00  28 06 17 51 EF 27 FB DD
        35 01 01  2C 01 00  0C 01 03  2E 01 01  0D 01 00
        """

    /// The iPhone of the capture: the gateway's ACD, the capture's choices.
    static func capturedSession() throws -> IPhoneNearbySession {
        IPhoneNearbySession(accessory: try AccessoryConfigurationData(bytes: gatewayACD),
                            shareable: try ShareableConfigurationData(bytes: capture))
    }

    /// A session iOS chooses itself for `acd`, seeded.
    static func runSession(_ acd: [UInt8] = gatewayACD, seed: UInt64 = 1) throws -> IPhoneNearbySession {
        var random = SplitMix64(seed: seed, stream: 9)
        return try IPhoneNearbySession(accessoryConfigurationData: acd, address: phoneAddress, using: &random)
    }

    static func tlvs(_ text: String) -> [ConfigTLV] {
        let bytes = hex(text)
        var list: [ConfigTLV] = []
        var index = 0
        while index + 1 < bytes.count {
            let length = Int(bytes[index + 1])
            list.append(ConfigTLV(id: bytes[index], value: Array(bytes[(index + 2)..<(index + 2 + length)])))
            index += 2 + length
        }
        return list
    }

    /// What the gateway's `apple-ni` profile sends for `session` as controlee/responder (spec
    /// §4), in the order of §3.
    static func gatewayTLVs(for session: IPhoneNearbySession) -> [ConfigTLV] {
        let blob = session.shareable
        func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        return [
            ConfigTLV(id: 0x00, value: [0]), ConfigTLV(id: 0x11, value: [0]), ConfigTLV(id: 0x03, value: [0]),
            ConfigTLV(id: 0x01, value: [2]), ConfigTLV(id: 0x06, value: session.accessory.address),
            ConfigTLV(id: 0x07, value: blob.phoneAddress), ConfigTLV(id: 0x04, value: [blob.channel]),
            ConfigTLV(id: 0x02, value: [0]), ConfigTLV(id: 0x12, value: [3]), ConfigTLV(id: 0x22, value: [1]),
            ConfigTLV(id: 0x14, value: [blob.preambleCodeIndex]), ConfigTLV(id: 0x15, value: [2]),
            ConfigTLV(id: 0x08, value: u16(blob.slotDurationRSTU)), ConfigTLV(id: 0x09, value: u16(blob.rangingIntervalMilliseconds) + [0, 0]),
            ConfigTLV(id: 0x1B, value: [UInt8(blob.slotsPerRound)]), ConfigTLV(id: 0x27, value: [0x4C, 0x00]),
            ConfigTLV(id: 0x28, value: blob.staticSTSIV), ConfigTLV(id: 0x35, value: [1]),
            ConfigTLV(id: 0x2C, value: [blob.version == .v2_0 && blob.hopping ? 1 : 0]),
            ConfigTLV(id: 0x0C, value: [blob.rangingRoundControl]), ConfigTLV(id: 0x2E, value: [1]), ConfigTLV(id: 0x0D, value: [0]),
        ]
    }

    /// `list` with the value of `id` replaced (nil: removed).
    static func replacing(_ id: UInt8, with value: [UInt8]?, in list: [ConfigTLV]) -> [ConfigTLV] {
        list.compactMap { $0.id != id ? $0 : value.map { ConfigTLV(id: id, value: $0) } }
    }

    /// A device with the iPhone's peer declared 2 m away, no noise.
    static func device() throws -> SimulatedDevice {
        var scenario = still([(phoneAddress.shortAddress, 2)])
        scenario.peers[0].iPhone = ScenarioIPhone()
        return try SimulatedDevice(scenario: scenario)
    }

    /// SESSION_INIT(`sessionID`), SET_APP_CONFIG(`tlvs`), START, through the device's UCI
    /// commands; returns the handle.
    @discardableResult
    static func startGateway(_ device: inout SimulatedDevice, sessionID: UInt32, _ tlvs: [ConfigTLV], at time: Double = 0,
                             reset: Bool = true) -> UInt32 {
        if reset { _ = device.receive(wire(.coreDeviceReset()), at: time) }
        let initOut = messages(device.receive(wire(.sessionInit(sessionID: sessionID)), at: time))
        guard case let .response(.sessionInit(.ok, handle?))? = initOut.first else {
            Issue.record("SESSION_INIT failed: \(initOut)")
            return 0
        }
        let set = responses(messages(device.receive(wire(.sessionSetAppConfig(sessionHandle: handle, parameters: tlvs)), at: time)))
        #expect(set.first?.status == .ok, "SET_APP_CONFIG: \(set)")
        let start = responses(messages(device.receive(wire(.sessionStart(sessionHandle: handle)), at: time)))
        #expect(start.first?.status == .ok, "SESSION_START: \(start)")
        return handle
    }

    static func measurements(_ outputs: [DeviceOutput]) -> [TwoWayRangingMeasurement] {
        sessionInfos(messages(outputs)).flatMap(\.twoWayMeasurements).filter { $0.macAddress == .short(phoneAddress.shortAddress) }
    }

    static func diagnostics(_ outputs: [DeviceOutput]) -> [String] { PhoneTests.diagnostics(outputs) }

    // MARK: What iOS chooses

    @Test("iOS's choices for the gateway's 1.1 ACD: the capture's values, its own session id and IV")
    func choices() throws {
        let session = try Self.runSession()
        let blob = session.shareable
        #expect(session.accessory == AccessoryConfigurationData(address: (0xA7, 0x3C)))
        #expect(blob.version == .v1_1 && blob.countryCode == Array("US".utf8))
        #expect(blob.sessionID != 0 && blob.staticSTSIV.count == 6)
        #expect(blob.channel == 9 && blob.preambleCodeIndex == 11 && blob.rangingRoundControl == 0x03)
        #expect(blob.slotsPerRound == 6 && blob.slotDurationRSTU == 3600 && blob.rangingIntervalMilliseconds == 198)
        #expect(blob.clockDriftPPM == 25 && !blob.hopping && blob.phoneAddress == [0x70, 0x75])
        #expect(session.address == Self.phoneAddress && session.accessoryAddress == UWBAddress(0xA7, 0x3C))
        // What the app hands the accessory is a blob the gateway accepts, read back as chosen.
        #expect(session.shareableConfigurationData.count == 30)
        #expect(try ShareableConfigurationData(bytes: session.shareableConfigurationData) == blob)
        // Seeded: the same run twice; another seed, another session id and IV.
        #expect(try Self.runSession() == session)
        let other = try Self.runSession(seed: 2)
        #expect(other.shareable.sessionID != blob.sessionID && other.shareable.staticSTSIV != blob.staticSTSIV)
    }

    @Test("1.0 carries no drift; the infrequent rate is 792 ms; a bad ACD is refused by iOS")
    func versionsAndRates() throws {
        var acd = AccessoryConfigurationData(version: .v1_0, preferredUpdateRate: .automatic, address: (0xA7, 0x3C))
        let v10 = try Self.runSession(acd.bytes).shareable
        #expect(v10.version == .v1_0 && v10.clockDriftPPM == nil && v10.rangingIntervalMilliseconds == 198)
        #expect(try ShareableConfigurationData(bytes: v10.bytes).bytes.count == 28)
        acd.version = .v1_1
        acd.preferredUpdateRate = .infrequent
        let slow = try Self.runSession(acd.bytes).shareable
        #expect(slow.slotsPerRound == 6 && slow.slotDurationRSTU == 3600 && slow.rangingIntervalMilliseconds == 792)
        var bad = Self.gatewayACD
        bad[32] = 7
        var random = SplitMix64(seed: 1, stream: 9)
        do {
            _ = try IPhoneNearbySession(accessoryConfigurationData: bad, address: Self.phoneAddress, using: &random)
            Issue.record("iOS read a role 7")
        } catch {
            #expect(error.field == "ranging_role" && error.message == "ranging role 7 is neither 0 (responder) nor 1 (initiator)")
        }
    }

    @Test("the iPhone's chip: the complement of the accessory's role, Apple's vendor id, the blob's values")
    func chipConfiguration() throws {
        let session = try Self.capturedSession()
        let tlvs = Dictionary(uniqueKeysWithValues: session.appConfiguration.map { ($0.tlv.id, $0.tlv.value) })
        #expect(tlvs[0x00] == [1] && tlvs[0x11] == [1])                                     // controller, initiator
        #expect(tlvs[0x03] == [0] && tlvs[0x01] == [2] && tlvs[0x02] == [0])                // unicast, DS-TWR deferred, static STS
        #expect(tlvs[0x06] == [0x70, 0x75] && tlvs[0x07] == [0xA7, 0x3C])
        #expect(tlvs[0x04] == [9] && tlvs[0x14] == [11] && tlvs[0x1B] == [6] && tlvs[0x08] == [0x10, 0x0E] && tlvs[0x09] == [0xC6, 0, 0, 0])
        #expect(tlvs[0x27] == [0x4C, 0x00] && tlvs[0x28] == [0x17, 0x51, 0xEF, 0x27, 0xFB, 0xDD])
        #expect(tlvs[0x0C] == [0x03] && tlvs[0x2C] == [0] && tlvs[0x35] == [1] && tlvs[0x12] == [3] && tlvs[0x15] == [2] && tlvs[0x22] == [1])
        #expect(tlvs[0x17] == [1] && tlvs[0x1F] == [0] && tlvs[0x26] == [0] && tlvs[0x16] == [0] && tlvs[0x31] == [0] && tlvs[0x1A] == [1])
        #expect(session.airConfiguration.sessionID == 20744 && !session.airConfiguration.acceptsDefaultRoundControl)

        var initiator = try AccessoryConfigurationData(bytes: Self.gatewayACD)
        initiator.role = .initiator
        let responder = IPhoneNearbySession(accessory: initiator, shareable: session.shareable)
        #expect(responder.deviceType == .controlee)
        #expect(responder.appConfiguration.contains(.deviceType(.controlee)) && responder.appConfiguration.contains(.deviceRole(.responder)))
    }

    // MARK: Against the spec's UCI

    @Test("the spec's SESSION_INIT and SET_APP_CONFIG are what the gateway profile sends for the capture")
    func specCommands() throws {
        let session = try Self.capturedSession()
        #expect(Self.tlvs(Self.specTLVs).count == 22)
        #expect(Self.gatewayTLVs(for: session) == Self.tlvs(Self.specTLVs))
        #expect(UCICommand.sessionInit(sessionID: session.shareable.sessionID).raw.payload == hex("08 51 00 00 00"))
        let set = UCICommand.sessionSetAppConfig(sessionHandle: 1, parameters: Self.tlvs(Self.specTLVs)).raw.payload
        #expect(Array(set.dropFirst(4)) == [0x16] + hex(Self.specTLVs))
    }

    /// The gateway's values as the simulated firmware holds them: the TLVs over its defaults.
    static func gatewayValues(_ tlvs: [ConfigTLV]) -> (AppConfigID) -> [UInt8]? {
        var config = AppConfigRules.defaults
        for tlv in tlvs { config[tlv.id] = tlv.value }
        return { config[$0.rawValue] }
    }

    @Test("against the spec's 22 TLVs the captured iPhone finds nothing to differ")
    func noMismatch() throws {
        let air = try Self.capturedSession().airConfiguration
        #expect(air.mismatches(gatewaySessionID: 20744, gatewayPeers: [0x7570], gatewayValue: Self.gatewayValues(Self.tlvs(Self.specTLVs))).isEmpty)
    }

    /// One thing the gateway gets wrong, and how the diagnosis names it.
    struct Mismatch: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: [String]
        var sessionID: UInt32 = 20744
        let change: @Sendable ([ConfigTLV]) -> [ConfigTLV]
        var testDescription: String { name }

        init(_ name: String, _ expected: String..., sessionID: UInt32 = 20744,
             change: @escaping @Sendable ([ConfigTLV]) -> [ConfigTLV] = { $0 }) {
            self.name = name
            self.expected = expected
            self.sessionID = sessionID
            self.change = change
        }

        init(_ name: String, _ expected: String, tag: UInt8, value: [UInt8]?) {
            self.init(name, expected) { IPhoneTests.replacing(tag, with: value, in: $0) }
        }
    }

    static let mismatches: [Mismatch] = [
        Mismatch("preamble", "PREAMBLE_CODE_INDEX: gateway 10, phone 11", tag: 0x14, value: [10]),
        Mismatch("channel", "CHANNEL_NUMBER: gateway 5, phone 9", tag: 0x04, value: [5]),
        Mismatch("slot duration", "SLOT_DURATION: gateway 2400 RSTU, phone 3600 RSTU", tag: 0x08, value: [0x60, 0x09]),
        Mismatch("interval", "RANGING_DURATION: gateway 200 ms, phone 198 ms", tag: 0x09, value: [0xC8, 0, 0, 0]),
        Mismatch("slots per round", "SLOTS_PER_RR: gateway 25, phone 6", tag: 0x1B, value: [25]),
        Mismatch("vendor id byte order", "VENDOR_ID: gateway 00 4C, phone 4C 00 (byte order?)", tag: 0x27, value: [0x00, 0x4C]),
        Mismatch("IV", "STATIC_STS_IV: gateway 01 02 03 04 05 06, phone 17 51 EF 27 FB DD", tag: 0x28, value: [1, 2, 3, 4, 5, 6]),
        Mismatch("gateway's address reversed", "DEVICE_MAC_ADDRESS: gateway 0xA73C, phone expects 0x3CA7 (byte order?)",
                 tag: 0x06, value: [0x3C, 0xA7]),
        Mismatch("iPhone's address reversed", "DST_MAC_ADDRESS: gateway lists 0x7075, phone is 0x7570 (byte order?)",
                 tag: 0x07, value: [0x75, 0x70]),
        Mismatch("round control", "RANGING_ROUND_CONTROL: gateway 0x06, phone 0x03", tag: 0x0C, value: [0x06]),
        Mismatch("round control left to the firmware", "RANGING_ROUND_CONTROL: gateway not set, phone 0x03", tag: 0x0C, value: nil),
        Mismatch("hopping", "HOPPING_MODE: gateway 1, phone 0", tag: 0x2C, value: [1]),
        Mismatch("session id", "SESSION_ID: gateway 20745, phone 20744", sessionID: 20745),
        Mismatch("roles", "DEVICE_TYPE: gateway controller, phone controller (same role on both ends)",
                 "DEVICE_ROLE: gateway initiator, phone initiator (same role on both ends)") {
            replacing(0x11, with: [1], in: replacing(0x00, with: [1], in: $0))
        },
    ]

    @Test("each parameter changed in the spec's TLVs: exactly its mismatches", arguments: mismatches)
    func mismatchFound(_ mismatch: Mismatch) throws {
        let air = try Self.capturedSession().airConfiguration
        let tlvs = mismatch.change(Self.tlvs(Self.specTLVs))
        let peers = tlvs.first { $0.id == 0x07 }.map { [UInt16($0.value[0]) | UInt16($0.value[1]) << 8] } ?? []
        let found = air.mismatches(gatewaySessionID: mismatch.sessionID, gatewayPeers: peers, gatewayValue: Self.gatewayValues(tlvs))
        #expect(found.map(\.description) == mismatch.expected)
    }

    @Test("the captured iPhone ranges with a simulated session configured with exactly the spec's 22 TLVs")
    func ranges() throws {
        var device = try Self.device()
        Self.startGateway(&device, sessionID: 20744, Self.tlvs(Self.specTLVs))
        #expect(try device.startIPhone(Self.capturedSession(), at: 0).isEmpty)
        #expect(device.isPhoneRanging(address: Self.phoneAddress))
        let out = device.advance(to: 3)
        let ms = Self.measurements(out)
        #expect(ms.count == 15)   // every 198 ms
        #expect(ms.allSatisfy { $0.status == .ok && $0.distanceRaw == 200 })
        #expect(Self.diagnostics(out).isEmpty)
        #expect(sessionInfos(messages(out)).allSatisfy { $0.currentRangingInterval == 198 })
    }

    @Test("each parameter changed on the gateway: only timeouts from the iPhone, one diagnosis naming it", arguments: mismatches)
    func mismatchSilences(_ mismatch: Mismatch) throws {
        var device = try Self.device()
        Self.startGateway(&device, sessionID: mismatch.sessionID, mismatch.change(Self.tlvs(Self.specTLVs)))
        _ = try device.startIPhone(Self.capturedSession(), at: 0)
        let out = device.advance(to: 3)
        let infos = sessionInfos(messages(out))
        #expect(infos.count >= 14)
        #expect(infos.flatMap(\.twoWayMeasurements).allSatisfy { $0.status == .rangingRxTimeout })
        let lines = Self.diagnostics(out)
        #expect(lines == ["iPhone 0x7570 (NI 1.1, initiator): no ranging: " + mismatch.expected.joined(separator: "; ")])
    }

    // MARK: Lifecycle

    @Test("an iPhone peer answers nothing until its app runs a session, and nothing after stopPhone")
    func silentUntilStarted() throws {
        var device = try Self.device()
        Self.startGateway(&device, sessionID: 20744, Self.tlvs(Self.specTLVs))
        let before = device.advance(to: 1)
        #expect(!Self.measurements(before).isEmpty && Self.measurements(before).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(Self.diagnostics(before).isEmpty && !device.isPhoneRanging(address: Self.phoneAddress))
        _ = try device.startIPhone(Self.capturedSession(), at: 1)
        #expect(Self.measurements(device.advance(to: 2)).allSatisfy { $0.status == .ok })
        _ = device.stopPhone(address: Self.phoneAddress, at: 2)
        let stopped = device.advance(to: 3)
        #expect(!Self.measurements(stopped).isEmpty && Self.measurements(stopped).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(Self.diagnostics(stopped).isEmpty && !device.isPhoneRanging(address: Self.phoneAddress))
    }

    @Test("only a peer declared an iPhone can be one")
    func needsAnIPhonePeer() throws {
        var plain = try SimulatedDevice(scenario: still([(Self.phoneAddress.shortAddress, 2)]))
        #expect(throws: ScenarioError.iPhoneWithoutPeer(address: 0x7570)) { _ = try plain.startIPhone(Self.capturedSession(), at: 0) }
        var device = try Self.device()
        var elsewhere = try Self.capturedSession()
        elsewhere.shareable.phoneAddress = [0x12, 0x34]
        #expect(throws: ScenarioError.iPhoneWithoutPeer(address: 0x3412)) { _ = try device.startIPhone(elsewhere, at: 0) }
        var mangled = try Self.capturedSession()
        mangled.shareable.staticSTSIV = [1, 2]
        #expect(throws: ScenarioError.self) { _ = try device.startIPhone(mangled, at: 0) }
        #expect(ScenarioError.iPhoneWithoutPeer(address: 0x7570).description
                == "iPhone 0x7570: no scenario peer with this address is declared an iPhone (iphone: {})")
    }

    @Test("the iPhone gives up 10 s after its start without a good round, and ranges again only after a new run")
    func givesUp() throws {
        var device = try Self.device()
        let handle = Self.startGateway(&device, sessionID: 20744, Self.replacing(0x14, with: [10], in: Self.tlvs(Self.specTLVs)))
        _ = try device.startIPhone(Self.capturedSession(), at: 0)
        let before = device.advance(to: 9.9)
        #expect(Self.diagnostics(before) == ["iPhone 0x7570 (NI 1.1, initiator): no ranging: PREAMBLE_CODE_INDEX: gateway 10, phone 11"])
        #expect(device.isPhoneRanging(address: Self.phoneAddress))
        let gaveUp = device.advance(to: 10.1)
        #expect(Self.diagnostics(gaveUp) == ["iPhone 0x7570: no successful round for 10 s, the phone stops the session"])
        #expect(!device.isPhoneRanging(address: Self.phoneAddress))

        // The gateway fixes its preamble: the iPhone has stopped, so nothing answers.
        _ = device.receive(wire(.sessionStop(sessionHandle: handle)), at: 11)
        _ = device.receive(wire(.sessionSetAppConfig(sessionHandle: handle, [.preambleCodeIndex(11)])), at: 11)
        _ = device.receive(wire(.sessionStart(sessionHandle: handle)), at: 11)
        let silent = device.advance(to: 14)
        #expect(!Self.measurements(silent).isEmpty && Self.measurements(silent).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(Self.diagnostics(silent).isEmpty)

        _ = try device.startIPhone(Self.capturedSession(), at: 14)
        let ranging = device.advance(to: 40)
        #expect(Self.measurements(ranging).count > 100 && Self.measurements(ranging).allSatisfy { $0.status == .ok })
        #expect(Self.diagnostics(ranging).isEmpty && device.isPhoneRanging(address: Self.phoneAddress))
    }

    @Test("a new NISession run starts over: the old UCI session no longer matches until the gateway replaces it")
    func restart() throws {
        var device = try Self.device()
        let first = try Self.runSession(seed: 1)
        let handle = Self.startGateway(&device, sessionID: first.shareable.sessionID, Self.gatewayTLVs(for: first))
        _ = try device.startIPhone(first, at: 0)
        #expect(Self.measurements(device.advance(to: 1)).allSatisfy { $0.status == .ok })

        let second = try Self.runSession(seed: 2)
        _ = try device.startIPhone(second, at: 1)
        let stale = device.advance(to: 2)
        #expect(Self.measurements(stale).allSatisfy { $0.status == .rangingRxTimeout })
        let lines = Self.diagnostics(stale)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("iPhone 0x7570 (NI 1.1, initiator): no ranging: SESSION_ID: gateway \(first.shareable.sessionID), "
                                       + "phone \(second.shareable.sessionID); STATIC_STS_IV: ") == true, "\(lines)")

        // The gateway replaces the UCI session: STOP, DEINIT, the new one.
        _ = device.receive(wire(.sessionStop(sessionHandle: handle)), at: 2)
        _ = device.receive(wire(.sessionDeinit(sessionHandle: handle)), at: 2)
        Self.startGateway(&device, sessionID: second.shareable.sessionID, Self.gatewayTLVs(for: second), at: 2, reset: false)
        let again = device.advance(to: 4)
        #expect(Self.measurements(again).count == 10 && Self.measurements(again).allSatisfy { $0.status == .ok })
        #expect(Self.diagnostics(again).isEmpty)
    }

    @Test("with UWB config 2.0, iOS follows the requested timing and hopping")
    func version20() throws {
        var requested = AccessoryConfigurationData.RequestedTiming()
        requested.hopping = true
        requested.slotsPerRound = 8
        requested.slotDurationRSTU = 2400
        requested.rangingIntervalMilliseconds = 240
        let acd = AccessoryConfigurationData(version: .v2_0, chipset: .zero, address: (0xA7, 0x3C), requested: requested)
        let session = try Self.runSession(acd.bytes)
        let blob = session.shareable
        #expect(blob.version == .v2_0 && blob.hopping && blob.clockDriftPPM == 25)
        #expect(blob.slotsPerRound == 8 && blob.slotDurationRSTU == 2400 && blob.rangingIntervalMilliseconds == 240)
        #expect(session.shareableConfigurationData.count == 35 && session.shareableConfigurationData[34] == 1)
        #expect(session.appConfiguration.contains(.hopping(true)) && session.appConfiguration.contains(.slotsPerRangingRound(8)))

        var device = try Self.device()
        let handle = Self.startGateway(&device, sessionID: blob.sessionID, Self.gatewayTLVs(for: session))
        _ = try device.startIPhone(session, at: 0)
        let out = device.advance(to: 2.4)
        #expect(Self.measurements(out).count == 10 && Self.measurements(out).allSatisfy { $0.status == .ok })
        #expect(sessionInfos(messages(out)).allSatisfy { $0.currentRangingInterval == 240 })
        #expect(Self.diagnostics(out).isEmpty)

        // A gateway that leaves hopping off, as for 1.x, is not heard.
        _ = device.receive(wire(.sessionStop(sessionHandle: handle)), at: 2.5)
        _ = device.receive(wire(.sessionSetAppConfig(sessionHandle: handle, [.hopping(false)])), at: 2.5)
        _ = device.receive(wire(.sessionStart(sessionHandle: handle)), at: 2.5)
        let off = device.advance(to: 4)
        #expect(Self.measurements(off).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(Self.diagnostics(off) == ["iPhone 0x7570 (NI 2.0, initiator): no ranging: HOPPING_MODE: gateway 0, phone 1"])
    }

    // MARK: Scenario

    @Test("a scenario peer with iphone: {} decodes, and is an iPhone that answers nothing until started")
    func scenarioIPhone() throws {
        let json = #"{"peers": [{"address": "0x7570", "path": [{"t": 0, "distance": 2}], "iphone": {}}]}"#
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        #expect(scenario.peers.first?.iPhone == ScenarioIPhone() && scenario.peers.first?.phone == nil)
        let withApp = #"{"peers": [{"address": "0x7570", "path": [{"t": 0, "distance": 2}], "iphone": {"app": {"name": "iphone-eve", "start_at": 2}}}]}"#
        #expect(try JSONDecoder().decode(Scenario.self, from: Data(withApp.utf8)).peers.first?.iPhone?.app
                == ScenarioPhoneApp(name: "iphone-eve", startAt: 2))
        let plain = try JSONDecoder().decode(Scenario.self, from: Data(#"{"peers": [{"address": 1, "path": [{"t": 0, "distance": 2}]}]}"#.utf8))
        #expect(plain.peers.first?.iPhone == nil)

        var device = try SimulatedDevice(scenario: scenario)
        Self.startGateway(&device, sessionID: 20744, Self.tlvs(Self.specTLVs))
        #expect(Self.measurements(device.advance(to: 1)).allSatisfy { $0.status == .rangingRxTimeout })
        _ = try device.startIPhone(Self.capturedSession(), at: 1)
        #expect(Self.measurements(device.advance(to: 2)).allSatisfy { $0.status == .ok })
    }

    @Test("bad iphone entries are decoding errors",
          arguments: [
            (#""iphone": {"start_at": 1}"#, "unknown key 'start_at' (expected one of: app)"),
            (#""iphone": {"app": {"name": "iphone-eve", "at": 1}}"#, "unknown key 'at' (expected one of: name, start_at, pointing)"),
            (#""iphone": {"app": {"name": "iphone-eve", "start_at": -1}}"#, "app.start_at"),
            (#""iphone": {"app": {"name": ""}}"#, "app.name"),
            (#""iphone": {"app": {"name": "e", "pointing": [{"t": 0, "azimuth": 190}]}}"#, "app.pointing[0].azimuth"),
            (#""iphone": {"app": {"name": "e", "pointing": [{"t": 0, "azimuth": 0, "elevation": -95}]}}"#, "app.pointing[0].elevation"),
            (#""iphone": {"app": {"name": "e", "pointing": [{"t": 2, "azimuth": 0}, {"t": 1, "azimuth": 0}]}}"#, "app.pointing[1].t"),
            (#""iphone": {"app": {"name": "e", "pointing": [{"t": 0, "azimuth": 0, "heading": 3}]}}"#, "unknown key 'heading'"),
            (#""iphone": {}, "phone": {"session_id": 5, "session_key_info": "0807010203040506", "gateway_address": "01:00"}"#,
             "peer 0x7570: an Android phone (phone:) or an iPhone (iphone:), not both"),
            (#""iphone": {}, "iPhone": {}"#, "unknown key 'iPhone'"),
          ])
    func badIPhone(entry: String, message: String) {
        expectScenarioRejected(#"{"peers": [{"address": "0x7570", "path": [{"t": 0, "distance": 1}], "# + entry + "}]}", saying: message)
    }

    @Test("an app's pointing path is interpolated, and null outside the phone's field of view")
    func pointing() throws {
        let json = #"{"peers": [{"address": "0x7570", "path": [{"t": 0, "distance": 2}], "iphone": {"app": {"name": "iphone-eve", "pointing": [{"t": 0, "azimuth": 80, "elevation": 0}, {"t": 10, "azimuth": 0, "elevation": -10}, {"t": 20, "azimuth": 0, "elevation": -90}]}}}]}"#
        let app = try #require(try JSONDecoder().decode(Scenario.self, from: Data(json.utf8)).peers.first?.iPhone?.app)
        #expect(app.pointing.count == 3 && app.pointing[1] == ScenarioPhoneApp.Pointing(t: 10, azimuth: 0, elevation: -10))
        #expect(app.angle(at: 0) == nil, "80° is outside the field of view")
        #expect(app.angle(at: 5).map { [$0.azimuth, $0.elevation] } == [40, -5])
        #expect(app.angle(at: 10).map { [$0.azimuth, $0.elevation] } == [0, -10])
        #expect(app.angle(at: 14).map { [$0.azimuth, $0.elevation] } == [0, -42])
        #expect(app.angle(at: 16) == nil && app.angle(at: 99) == nil, "pointed at the floor")
        #expect(ScenarioPhoneApp(name: "x").angle(at: 1) == nil)
    }

    @Test("iphone must be a mapping")
    func iPhoneNotAMapping() {
        let json = #"{"peers": [{"address": 1, "path": [{"t": 0, "distance": 1}], "iphone": true}]}"#
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8)) }
    }

    @Test("a peer both kinds of phone is refused in code too")
    func bothKindsInCode() {
        var scenario = still([(0x7570, 2)])
        scenario.peers[0].iPhone = ScenarioIPhone()
        scenario.peers[0].phone = ScenarioPhone(parameters: PhoneTests.phone(address: Self.phoneAddress))
        #expect(throws: ScenarioError.twoPhoneKinds(peer: "0x7570")) { try scenario.validate() }
    }
}
