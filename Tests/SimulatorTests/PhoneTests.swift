import Foundation
import Testing
import UCI
@testable import Simulator

/// An Android phone as a peer (android-interop.md): it ranges with the simulated gateway only
/// when the gateway's session matches, over the air, what the phone's own stack configures.
@Suite("Android phone peer")
struct PhoneTests {
    /// Jetpack `"AB:CD"`: wire `AB CD`, uwb2mqtt's `0xCDAB`.
    static let phoneAddress = UWBAddress(0xAB, 0xCD)
    /// The gateway's own address `0x0001`, Jetpack `"01:00"`.
    static let gatewayAddress: UInt16 = 0x0001
    static let key = SessionKeyInfo([0x08, 0x07, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])!

    static func phone(role: PhoneRangingParameters.Role = .controlee, configID: UInt8 = 1,
                      address: UWBAddress = phoneAddress, sessionID: UInt32 = 42, channel: UInt8 = 9,
                      preamble: UInt8 = 11) -> PhoneRangingParameters {
        PhoneRangingParameters(role: role, configID: configID, address: address,
                               gatewayAddress: UWBAddress(shortAddress: gatewayAddress), sessionID: sessionID,
                               sessionKeyInfo: key, channel: channel, preambleIndex: preamble, updateRate: .automatic)
    }

    /// The gateway's side when it controls the phone: what uwb2mqtt would send.
    static func gatewayController(for phone: PhoneRangingParameters, peers: [UInt16]? = nil,
                                  multiNode: MultiNodeMode? = nil) -> [AppConfigParameter] {
        AppConfigParameter.dsTWR(role: .controller, ownAddress: gatewayAddress, peers: peers ?? [phone.address.shortAddress],
                                 channel: phone.channel, rangingDurationMilliseconds: phone.rangingIntervalMilliseconds,
                                 multiNode: multiNode, air: phone.matchingAirParameters)
    }

    /// A device with the phones' peers 2 m (and 3 m, …) away, no noise.
    static func device(phones: [UWBAddress] = [phoneAddress]) throws -> SimulatedDevice {
        try SimulatedDevice(scenario: still(phones.enumerated().map { ($0.element.shortAddress, Double($0.offset + 2)) }))
    }

    /// SESSION_INIT(`sessionID`), SET_APP_CONFIG, START; returns the handle.
    @discardableResult
    static func startGateway(_ device: inout SimulatedDevice, sessionID: UInt32 = 42, _ parameters: [AppConfigParameter],
                             at time: Double = 0) -> UInt32 {
        _ = device.receive(wire(.coreDeviceReset()), at: time)
        let initOut = messages(device.receive(wire(.sessionInit(sessionID: sessionID)), at: time))
        guard case let .response(.sessionInit(.ok, handle?))? = initOut.first else {
            Issue.record("SESSION_INIT failed: \(initOut)")
            return 0
        }
        let set = responses(messages(device.receive(wire(.sessionSetAppConfig(sessionHandle: handle, parameters)), at: time)))
        #expect(set.first?.status == .ok, "SET_APP_CONFIG: \(set)")
        let start = responses(messages(device.receive(wire(.sessionStart(sessionHandle: handle)), at: time)))
        #expect(start.first?.status == .ok, "SESSION_START: \(start)")
        return handle
    }

    static func diagnostics(_ outputs: [DeviceOutput]) -> [String] {
        outputs.compactMap { if case let .diagnostic(line) = $0 { line } else { nil } }
    }

    static func measurements(_ outputs: [DeviceOutput], from address: UWBAddress = phoneAddress) -> [TwoWayRangingMeasurement] {
        sessionInfos(messages(outputs)).flatMap(\.twoWayMeasurements).filter { $0.macAddress == .short(address.shortAddress) }
    }

    // MARK: Matching sessions range

    @Test("phone as controlee, gateway as controller: every round measures the phone")
    func phoneControlee() throws {
        var device = try Self.device()
        let phone = Self.phone()
        Self.startGateway(&device, Self.gatewayController(for: phone))
        #expect(try device.startPhone(phone, at: 0).isEmpty)
        let out = device.advance(to: 2.4)
        let ms = Self.measurements(out)
        #expect(ms.count == 10)   // every 240 ms
        #expect(ms.allSatisfy { $0.status == .ok && $0.distanceRaw == 200 })
        #expect(Self.diagnostics(out).isEmpty)
        #expect(sessionInfos(messages(out)).allSatisfy { $0.currentRangingInterval == 240 })
    }

    @Test("phone as controller, gateway as controlee on the phone's channel and preamble")
    func phoneController() throws {
        var device = try Self.device()
        let phone = Self.phone(role: .controller, channel: 5, preamble: 12)
        let gateway = AppConfigParameter.dsTWR(role: .controlee, ownAddress: Self.gatewayAddress, peers: [Self.phoneAddress.shortAddress],
                                               channel: 5, rangingDurationMilliseconds: 240, air: phone.matchingAirParameters)
        Self.startGateway(&device, gateway)
        _ = try device.startPhone(phone, at: 0.1)
        let out = device.advance(to: 3)
        let ms = Self.measurements(out)
        #expect(ms.count == 12 && ms.allSatisfy { $0.status == .ok })
        #expect(Self.diagnostics(out).isEmpty)
    }

    @Test("the phone's own configuration is Jetpack config 1 on the air")
    func phoneConfiguration() {
        let phone = Self.phone()
        let tlvs = Dictionary(uniqueKeysWithValues: phone.appConfiguration.map { ($0.tlv.id, $0.tlv.value) })
        #expect(tlvs[0x01] == [2] && tlvs[0x02] == [0] && tlvs[0x03] == [0])                  // DS-TWR, static STS, unicast
        #expect(tlvs[0x08] == [0x60, 0x09] && tlvs[0x1B] == [6] && tlvs[0x09] == [0xF0, 0, 0, 0])
        #expect(tlvs[0x2C] == [1] && tlvs[0x0C] == [0x03] && tlvs[0x12] == [3] && tlvs[0x15] == [2] && tlvs[0x22] == [1])
        #expect(tlvs[0x06] == [0xAB, 0xCD] && tlvs[0x07] == [0x01, 0x00])                   // wire order = Jetpack order
        #expect(tlvs[0x27] == [0x08, 0x07] && tlvs[0x28] == [0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        #expect(tlvs[0x00] == [0] && tlvs[0x11] == [0])                                     // controlee, responder
        var multicast = phone
        multicast.configID = 2
        #expect(multicast.slotsPerRound == 20 && multicast.rangingIntervalMilliseconds == 200 && multicast.multiNodeMode == .oneToMany)
        multicast.updateRate = .frequent
        #expect(multicast.rangingIntervalMilliseconds == 120)
        multicast.updateRate = .infrequent
        #expect(multicast.rangingIntervalMilliseconds == 600)
        #expect(Self.phone().rangingIntervalMilliseconds == 240)
        #expect(UWBAddress("AB:cd") == Self.phoneAddress && Self.phoneAddress.shortAddress == 0xCDAB
                && Self.phoneAddress.description == "AB:CD" && UWBAddress("ABCD") == nil && UWBAddress("+A:CD") == nil)
    }

    @Test("playing the phone app: parameters built from the gateway's MQTT response")
    func fromResponse() throws {
        // What the gateway answers an android_session request (android-interop.md §8).
        let response: [String: String] = [
            "session_id": "123456789", "session_key_info": "0807010203040506", "gateway_address": "01:00",
            "gateway_role": "controller", "channel": "9", "preamble_index": "10", "update_rate": "frequent",
        ]
        let phone = PhoneRangingParameters(
            role: response["gateway_role"] == "controller" ? .controlee : .controller, configID: 1, address: Self.phoneAddress,
            gatewayAddress: try #require(UWBAddress(response["gateway_address"]!)),
            sessionID: try #require(UInt32(response["session_id"]!)),
            sessionKeyInfo: try #require(SessionKeyInfo(hex: response["session_key_info"]!)),
            channel: try #require(UInt8(response["channel"]!)), preambleIndex: try #require(UInt8(response["preamble_index"]!)),
            updateRate: try #require(PhoneRangingParameters.UpdateRate(rawValue: response["update_rate"]!)))
        // The gateway's side, as uwb2mqtt configures it for that answer.
        var air = AirParameters.android
        air.preambleCodeIndex = 10
        let gateway = AppConfigParameter.dsTWR(role: .controller, ownAddress: 0x0001, peers: [0xCDAB], channel: 9,
                                               rangingDurationMilliseconds: 120, air: air)
        var device = try Self.device()
        Self.startGateway(&device, sessionID: 123456789, gateway)
        _ = try device.startPhone(phone, at: 0)
        let ms = Self.measurements(device.advance(to: 1.2))
        #expect(ms.count == 10 && ms.allSatisfy { $0.status == .ok })
    }

    @Test("RANGING_ROUND_CONTROL left to the firmware default is compatible; set, it must be 0x03")
    func roundControl() throws {
        let phone = Self.phone()
        var air = phone.matchingAirParameters
        air.rangingRoundControl = nil
        var device = try Self.device()
        Self.startGateway(&device, AppConfigParameter.dsTWR(role: .controller, ownAddress: Self.gatewayAddress, peers: [0xCDAB],
                                                            rangingDurationMilliseconds: 240, air: air))
        _ = try device.startPhone(phone, at: 0)
        #expect(Self.measurements(device.advance(to: 1)).allSatisfy { $0.status == .ok })

        air.rangingRoundControl = 0x02
        var other = try Self.device()
        Self.startGateway(&other, AppConfigParameter.dsTWR(role: .controller, ownAddress: Self.gatewayAddress, peers: [0xCDAB],
                                                           rangingDurationMilliseconds: 240, air: air))
        _ = try other.startPhone(phone, at: 0)
        let out = other.advance(to: 1)
        #expect(Self.measurements(out).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(Self.diagnostics(out) == ["phone 0xCDAB (config 1, controlee): no ranging: RANGING_ROUND_CONTROL: gateway 0x02, phone 0x03"])
    }

    // MARK: Mismatches

    /// One thing the gateway gets wrong, and the parameter the diagnosis must name.
    struct Mismatch: Sendable, CustomTestStringConvertible {
        let name: String
        let parameter: String
        var hint: String? = nil
        var sessionID: UInt32 = 42
        let gateway: @Sendable (PhoneRangingParameters) -> [AppConfigParameter]
        var testDescription: String { name }
    }

    static func gateway(channel: UInt8? = nil, interval: UInt32? = nil, ownAddress: UInt16 = gatewayAddress,
                        peers: [UInt16]? = nil, role: DeviceType = .controller,
                        air edit: @escaping @Sendable (inout AirParameters) -> Void = { _ in })
        -> @Sendable (PhoneRangingParameters) -> [AppConfigParameter] {
        { phone in
            var air = phone.matchingAirParameters
            edit(&air)
            return AppConfigParameter.dsTWR(role: role, ownAddress: ownAddress, peers: peers ?? [phone.address.shortAddress],
                                            channel: channel ?? phone.channel,
                                            rangingDurationMilliseconds: interval ?? phone.rangingIntervalMilliseconds, air: air)
        }
    }

    static let mismatches: [Mismatch] = [
        Mismatch(name: "preamble", parameter: "PREAMBLE_CODE_INDEX: gateway 10, phone 11", gateway: gateway { $0.preambleCodeIndex = 10 }),
        Mismatch(name: "channel", parameter: "CHANNEL_NUMBER: gateway 5, phone 9", gateway: gateway(channel: 5)),
        Mismatch(name: "slots per round", parameter: "SLOTS_PER_RR: gateway 25, phone 6", gateway: gateway { $0.slotsPerRound = 25 }),
        Mismatch(name: "slot duration", parameter: "SLOT_DURATION: gateway 1200 RSTU, phone 2400 RSTU",
                 gateway: gateway { $0.slotDurationRSTU = 1200 }),
        Mismatch(name: "interval", parameter: "RANGING_DURATION: gateway 200 ms, phone 240 ms", gateway: gateway(interval: 200)),
        Mismatch(name: "hopping off", parameter: "HOPPING_MODE: gateway 0, phone 1", gateway: gateway { $0.hopping = false }),
        Mismatch(name: "key bytes", parameter: "STATIC_STS_IV: gateway 01 02 03 04 05 06, phone 11 22 33 44 55 66",
                 gateway: gateway { $0.sessionKeyInfo = SessionKeyInfo([0x08, 0x07, 1, 2, 3, 4, 5, 6])! }),
        Mismatch(name: "vendor id byte order", parameter: "VENDOR_ID: gateway 07 08, phone 08 07", hint: "byte order?",
                 gateway: gateway { $0.sessionKeyInfo = SessionKeyInfo([0x07, 0x08, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])! }),
        Mismatch(name: "session id", parameter: "SESSION_ID: gateway 43, phone 42", sessionID: 43, gateway: gateway()),
        Mismatch(name: "phone's address reversed", parameter: "DST_MAC_ADDRESS: gateway lists 0xABCD, phone is 0xCDAB",
                 hint: "byte order?", gateway: gateway(peers: [0xABCD])),
        Mismatch(name: "gateway's address", parameter: "DEVICE_MAC_ADDRESS: gateway 0x0002, phone expects 0x0001",
                 gateway: gateway(ownAddress: 0x0002)),
        Mismatch(name: "gateway's address reversed", parameter: "DEVICE_MAC_ADDRESS: gateway 0x0100, phone expects 0x0001",
                 hint: "byte order?", gateway: gateway(ownAddress: 0x0100)),
        Mismatch(name: "same role on both ends", parameter: "DEVICE_TYPE: gateway controlee, phone controlee",
                 hint: "same role on both ends", gateway: gateway(role: .controlee)),
    ]

    @Test("each air parameter mismatched in turn: no measurement from the phone, one diagnosis naming it",
          arguments: mismatches)
    func mismatch(_ mismatch: Mismatch) throws {
        var device = try Self.device()
        let phone = Self.phone()
        Self.startGateway(&device, sessionID: mismatch.sessionID, mismatch.gateway(phone))
        _ = try device.startPhone(phone, at: 0)
        let out = device.advance(to: 3)
        let infos = sessionInfos(messages(out))
        #expect(infos.count >= 12)
        #expect(!Self.measurements(out).contains { $0.status == .ok || $0.status == .okNegativeDistanceReport })
        #expect(infos.flatMap(\.twoWayMeasurements).allSatisfy { $0.status == .rangingRxTimeout })
        let lines = Self.diagnostics(out)
        #expect(lines.count == 1, "\(lines)")
        let expected = mismatch.parameter + (mismatch.hint.map { " (\($0))" } ?? "")
        #expect(lines.first?.hasPrefix("phone 0xCDAB (config 1, controlee): no ranging: ") == true)
        #expect(lines.first?.contains(expected) == true, "\(lines)")
    }

    @Test("the comparison names every differing parameter at once")
    func several() {
        let phone = Self.phone()
        var air = AirParameters.qorvo
        air.sessionKeyInfo = Self.key
        var config: [UInt8: [UInt8]] = AppConfigRules.defaults
        for parameter in AppConfigParameter.dsTWR(role: .controller, ownAddress: Self.gatewayAddress, peers: [0xCDAB], air: air) {
            config[parameter.tlv.id] = parameter.tlv.value
        }
        let found = phone.mismatches(gatewaySessionID: 42, gatewayPeers: [0xCDAB]) { config[$0.rawValue] }
        #expect(found.map(\.parameter) == ["PREAMBLE_CODE_INDEX", "SLOTS_PER_RR", "HOPPING_MODE", "RANGING_DURATION"])
        #expect(found.first?.description == "PREAMBLE_CODE_INDEX: gateway 10, phone 11")
    }

    // MARK: The 10 s error streak

    @Test("the phone gives up 10 s after its start without a successful round, and ranges again only after a new start")
    func givesUp() throws {
        var device = try Self.device()
        let phone = Self.phone()
        let handle = Self.startGateway(&device, Self.gateway { $0.preambleCodeIndex = 10 }(phone))
        _ = try device.startPhone(phone, at: 0)
        let before = device.advance(to: 9.9)
        #expect(Self.diagnostics(before).count == 1)
        #expect(device.isPhoneRanging(address: Self.phoneAddress))
        let gaveUp = device.advance(to: 10.1)
        #expect(Self.diagnostics(gaveUp) == ["phone 0xCDAB: no successful round for 10 s, the phone stops the session"])
        #expect(!device.isPhoneRanging(address: Self.phoneAddress))

        // The gateway fixes its preamble: the phone has stopped, so nothing answers.
        _ = device.receive(wire(.sessionStop(sessionHandle: handle)), at: 11)
        _ = device.receive(wire(.sessionSetAppConfig(sessionHandle: handle, [.preambleCodeIndex(11)])), at: 11)
        _ = device.receive(wire(.sessionStart(sessionHandle: handle)), at: 11)
        let silent = device.advance(to: 14)
        #expect(!Self.measurements(silent).isEmpty && Self.measurements(silent).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(Self.diagnostics(silent).isEmpty)

        // A new exchange: the phone starts again and ranges, well past 10 s from that start.
        _ = try device.startPhone(phone, at: 14)
        let ranging = device.advance(to: 40)
        #expect(Self.measurements(ranging).count > 100 && Self.measurements(ranging).allSatisfy { $0.status == .ok })
        #expect(Self.diagnostics(ranging).isEmpty)
        #expect(device.isPhoneRanging(address: Self.phoneAddress))
    }

    @Test("a phone that ranged gives up 10 s after its last successful round; stopPhone silences it at once")
    func streakAfterSuccess() throws {
        var device = try Self.device()
        let phone = Self.phone()
        let handle = Self.startGateway(&device, Self.gatewayController(for: phone))
        _ = try device.startPhone(phone, at: 0)
        #expect(Self.measurements(device.advance(to: 4.8)).allSatisfy { $0.status == .ok })
        _ = device.receive(wire(.sessionStop(sessionHandle: handle)), at: 4.9)   // last round at 4.8 s
        #expect(Self.diagnostics(device.advance(to: 14.7)).isEmpty)
        #expect(Self.diagnostics(device.advance(to: 14.9)).count == 1)

        _ = try device.startPhone(phone, at: 15)
        _ = device.receive(wire(.sessionStart(sessionHandle: handle)), at: 15)
        #expect(Self.measurements(device.advance(to: 16)).allSatisfy { $0.status == .ok })
        _ = device.stopPhone(address: Self.phoneAddress, at: 16)
        let stopped = device.advance(to: 30)
        #expect(Self.measurements(stopped).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(Self.diagnostics(stopped).isEmpty)
    }

    @Test("a phone never started does not answer, even with a matching session")
    func notStarted() throws {
        var device = try Self.device()
        Self.startGateway(&device, Self.gatewayController(for: Self.phone()))
        _ = try device.startPhone(Self.phone(), at: 0)
        _ = device.stopPhone(address: Self.phoneAddress, at: 0)
        #expect(Self.measurements(device.advance(to: 1)).allSatisfy { $0.status == .rangingRxTimeout })
        #expect(throws: ScenarioError.phoneWithoutPeer(address: 0x3412)) {
            _ = try device.startPhone(Self.phone(address: UWBAddress(0x12, 0x34)), at: 1)
        }
        #expect(throws: ScenarioError.self) { _ = try device.startPhone(Self.phone(preamble: 13), at: 1) }
    }

    // MARK: One-to-many

    @Test("config 2: two phones in a one-to-many session, the second added with a multicast update, both range")
    func oneToMany() throws {
        let second = UWBAddress(0x12, 0x34)
        var device = try Self.device(phones: [Self.phoneAddress, second])
        let first = Self.phone(configID: 2, sessionID: 77)
        let other = Self.phone(configID: 2, address: second, sessionID: 77)
        let gateway = Self.gatewayController(for: first, multiNode: .oneToMany)
        #expect(gateway.contains(.multiNodeMode(.oneToMany)) && gateway.contains(.slotsPerRangingRound(20))
                && gateway.contains(.rangingDuration(200)))
        let handle = Self.startGateway(&device, sessionID: 77, gateway)
        _ = try device.startPhone(first, at: 0)
        let alone = device.advance(to: 1)
        #expect(Self.measurements(alone).count == 5 && Self.measurements(alone).allSatisfy { $0.status == .ok })

        _ = try device.startPhone(other, at: 1)
        let update = responses(messages(device.receive(wire(.sessionUpdateControllerMulticastList(
            sessionHandle: handle, action: .add, controlees: [Controlee(shortAddress: second.shortAddress)])), at: 1.05)))
        #expect(update == [.sessionUpdateControllerMulticastList(status: .ok, controlees: [])])
        let both = device.advance(to: 3)
        #expect(Self.measurements(both).count == 10 && Self.measurements(both).allSatisfy { $0.status == .ok && $0.distanceRaw == 200 })
        #expect(Self.measurements(both, from: second).count == 10
                && Self.measurements(both, from: second).allSatisfy { $0.status == .ok && $0.distanceRaw == 300 })
        #expect(Self.diagnostics(both).isEmpty)

        // A config-1 phone expects unicast: the one-to-many session is not one it can join.
        var unicast = try Self.device()
        Self.startGateway(&unicast, sessionID: 77, gateway)
        _ = try unicast.startPhone(Self.phone(configID: 1, sessionID: 77), at: 0)
        let lines = Self.diagnostics(unicast.advance(to: 1))
        #expect(lines.count == 1 && lines[0].contains("MULTI_NODE_MODE: gateway 1, phone 0"))
    }

    // MARK: Scenario

    static let phonePeer = """
    {"peers": [{"address": "0xCDAB", "path": [{"t": 0, "distance": 2}],
                "phone": {"address": "AB:CD", "role": "controlee", "config_id": 1, "session_id": 42,
                          "session_key_info": "0807112233445566", "gateway_address": "01:00", "channel": 9,
                          "preamble_index": 11, "update_rate": "automatic", "slot_duration_ms": 2, "start_at": 1}}]}
    """

    @Test("a scenario peer with phone: decodes, and the phone starts at start_at")
    func scenarioPhone() throws {
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(Self.phonePeer.utf8))
        let peer = try #require(scenario.peers.first)
        #expect(peer.phone == ScenarioPhone(parameters: Self.phone(), startAt: 1))

        let minimal = """
        {"peers": [{"address": 2, "path": [{"t": 0, "distance": 1}],
                    "phone": {"session_id": 5, "session_key_info": "08 07 01 02 03 04 05 06", "gateway_address": "01:00"}}]}
        """
        let defaults = try #require(try JSONDecoder().decode(Scenario.self, from: Data(minimal.utf8)).peers.first?.phone)
        #expect(defaults.parameters == PhoneRangingParameters(
            role: .controlee, configID: 1, address: UWBAddress(0x02, 0x00), gatewayAddress: UWBAddress(0x01, 0x00), sessionID: 5,
            sessionKeyInfo: .qorvoExample, channel: 9, preambleIndex: 9, updateRate: .automatic, slotDurationMilliseconds: 2))
        #expect(defaults.startAt == 0)

        var device = try SimulatedDevice(scenario: scenario)
        Self.startGateway(&device, Self.gatewayController(for: Self.phone()))
        let out = device.advance(to: 2.4)
        let ms = Self.measurements(out)
        #expect(ms.prefix(4).allSatisfy { $0.status == .rangingRxTimeout })   // 0.24 … 0.96 s: not started yet
        #expect(ms.dropFirst(4).allSatisfy { $0.status == .ok } && ms.count == 10)
        #expect(Self.diagnostics(out).isEmpty)
    }

    @Test("a phone with an app gets its session from the gateway's answer, not from the scenario")
    func phoneWithAnApp() throws {
        let json = #"{"peers": [{"address": "0xCDAB", "path": [{"t": 0, "distance": 1}], "phone": {"role": "controlee", "app": {"name": "phone-ben", "start_at": 1, "pointing": [{"t": 0, "azimuth": 5}]}}}]}"#
        let phone = try #require(try JSONDecoder().decode(Scenario.self, from: Data(json.utf8)).peers.first?.phone)
        #expect(phone.app == ScenarioPhoneApp(name: "phone-ben", startAt: 1, pointing: [.init(t: 0, azimuth: 5)]))
        #expect(phone.startAt == nil, "the app starts it, once the gateway answered")
        #expect(phone.parameters.role == .controlee && phone.parameters.address == UWBAddress(0xAB, 0xCD))
        for key in [#""session_id": 42"#, #""session_key_info": "0807010203040506""#, #""gateway_address": "01:00""#, #""start_at": 0"#] {
            expectScenarioRejected(#"{"peers": [{"address": "0xCDAB", "path": [{"t": 0, "distance": 1}], "phone": {"# + key + #", "app": {"name": "b"}}}]}"#,
                                   saying: "with app, the gateway's answer to phone_session says it")
        }
        expectScenarioRejected(#"{"peers": [{"address": "0xCDAB", "path": [{"t": 0, "distance": 1}], "phone": {"app": {"name": ""}}}]}"#,
                               saying: "phone.app.name")
    }

    @Test("bad phone entries are decoding errors naming the field",
          arguments: [
            (#""preamble_index": 13"#, "preamble_index"),
            (#""session_key_info": "08070102030405""#, "session_key_info"),
            (#""channel": 7"#, "channel"),
            (#""config_id": 4"#, "config_id"),
            (#""slot_duration_ms": 3"#, "slot_duration_ms"),
            (#""session_id": 0"#, "session_id"),
            (#""role": "boss""#, "role"),
            (#""update_rate": "sometimes""#, "update_rate"),
            (#""address": "CD:AB""#, "phone.address"),
            (#""gateway_address": "0x0001""#, "gateway_address"),
            (#""start_at": -1"#, "start_at"),
            (#""colour": "red""#, "unknown key 'colour'"),
          ])
    func badPhone(entry: String, message: String) {
        let base: [String: String] = [
            "session_id": "42", "session_key_info": #""0807010203040506""#, "gateway_address": #""01:00""#,
        ]
        var fields = base.map { "\"\($0.key)\": \($0.value)" }.filter { field in !entry.hasPrefix(field.prefix { $0 != ":" }) }
        fields.append(entry)
        let json = #"{"peers": [{"address": "0xCDAB", "path": [{"t": 0, "distance": 1}], "phone": {"# + fields.sorted().joined(separator: ", ") + "}}]}"
        expectScenarioRejected(json, saying: message)
    }

    @Test("a phone without its session id is an error; start_at must fall inside a looping scene")
    func requiredAndStart() throws {
        let json = #"{"peers": [{"address": 1, "path": [{"t": 0, "distance": 1}], "phone": {"gateway_address": "01:00", "session_key_info": "0807010203040506"}}]}"#
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8)) }
        var scenario = still([(0xCDAB, 2)], duration: 10)
        scenario.peers[0].phone = ScenarioPhone(parameters: Self.phone(), startAt: 12)
        #expect(throws: ScenarioError.self) { try scenario.validate() }
        scenario.peers[0].phone?.parameters.address = UWBAddress(0xCD, 0xAB)
        scenario.peers[0].phone?.startAt = 1
        #expect(throws: ScenarioError.self) { try scenario.validate() }
    }
}
