import DeviceLink
@testable import Gateway
import Simulator
import Testing
import UCI
import Vocabulary

/// The iPhone exchange's decisions (apple-interop.md §5): the accessory configuration handed out
/// at once, the session iOS chose opened from the shareable data and answered once it ranges, the
/// refusals that change nothing, expiry, and a new NISession run replacing a running session.
@Suite struct IPhoneSessionsTests {
    static let tag = AgentConfiguration.Peer(address: 1, name: "tool-cart")
    /// iOS's shareable data of spec §3 (version 1.1): session 20744, channel 9, preamble 11,
    /// 6 × 3600 RSTU, 198 ms, RRC 3, the iPhone at `70:75`.
    static let shareable = try! Hex.bytes("01 00 01 00 19 55 53 08 51 00 00 0B 09 06 00 10 0E C6 00 03 17 51 EF 27 FB DD 70 75 64 00")

    func phones(_ settings: PhoneSettings = PhoneSettings()) -> PhoneSessions {
        PhoneSessions(settings: settings, gateway: PhoneSessions.Gateway(address: 0x0001, channel: 9, sessionID: 42, peers: [Self.tag]))
    }

    func data(_ answer: PhoneSessions.Answer?) -> [String: JSONValue] {
        guard case let .success(members)? = answer?.result else { return [:] }
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    func error(_ answer: PhoneSessions.Answer?) -> String {
        guard case let .failure(problem)? = answer?.result else { return "" }
        return problem.message
    }

    func accessory(_ name: String = "iphone-eve", rate: String? = nil) throws -> IPhoneSessionRequest.Accessory {
        var body: [String: JSONValue] = ["name": .string(name), "platform": "ios"]
        if let rate { body["update_rate"] = .string(rate) }
        return try IPhoneSessionRequest.Accessory.parse(body).get()
    }

    func start(_ name: String = "iphone-eve", _ bytes: [UInt8] = Self.shareable) throws -> IPhoneSessionRequest.Start {
        try IPhoneSessionRequest.Start.parse(["name": .string(name), "shareable_configuration_data": .string(Base64.encode(bytes))]).get()
    }

    /// The blob with some bytes changed: `[offset: value]`.
    static func blob(_ changes: [Int: UInt8]) -> [UInt8] {
        var bytes = shareable
        for (offset, value) in changes { bytes[offset] = value }
        return bytes
    }

    @Test func theAccessoryDataComesAtOnceAndTheSessionIOSChoseOpensOnStart() throws {
        var p = phones()
        var random = SplitMix64(seed: 3)
        var out = p.prepareAccessory(try accessory(), reply: Reply(id: "a"), now: 0, using: &random)
        #expect(out.deviceEvents.isEmpty, "nothing reaches the device before iOS answered")
        let offer = data(out.answers.first)
        #expect(out.answers.first?.request == "phone_session" && out.answers.first?.reply.id == "a")
        #expect(offer["gateway_role"] == "controlee" && offer["uwb_config_version"] == "1.1" && offer["valid_for_ms"] == 30000)
        guard case let .string(text)? = offer["accessory_configuration_data"], let acd = Base64.decode(text),
              case let .string(address)? = offer["gateway_address"], let gateway = WireOrderAddress.value(of: address) else {
            Issue.record("no accessory data in \(offer)"); return
        }
        #expect(acd.count == 37 && acd[4] == 20, "header then UWB config 1.1, user_interactive")
        #expect(acd[33] == UInt8(gateway & 0xFF) && acd[34] == UInt8(gateway >> 8), "the address in the data is the one said")
        #expect(gateway != 0x0001 && gateway != 0xFFFF && gateway != 0xFFFE)

        // Asked again while it waits: the same data.
        out = p.prepareAccessory(try accessory(), reply: Reply(id: "b"), now: 5, using: &random)
        #expect(data(out.answers.first)["accessory_configuration_data"] == offer["accessory_configuration_data"])

        out = p.startIPhone(try start(), reply: Reply(id: "s"), now: 6, reportToken: "token")
        guard case let .openSession(config)? = out.deviceEvents.first else { Issue.record("no session opened: \(out.answers)"); return }
        #expect(config.sessionID == 20744 && config.role == .controlee && config.ownAddress == gateway && config.peers == [0x7570])
        #expect(config.parameterSet == .appleNearbyInteraction && config.rangingIntervalMilliseconds == 198)
        #expect(config.appConfiguration.contains(.vendorID(0x004C)) && config.appConfiguration.contains(.staticSTSIV([0x17, 0x51, 0xEF, 0x27, 0xFB, 0xDD])))
        #expect(config.appConfiguration.contains(.slotDuration(3600)) && config.appConfiguration.contains(.hopping(false)))
        #expect(out.answers.isEmpty, "answered once the device ranges")

        out = p.news(sessionID: 20744, .ranging, now: 6.2)
        #expect(out.joined.map(\.name) == ["iphone-eve"] && out.joined.map(\.address) == [0x7570])
        let answer = try #require(out.answers.first)
        #expect(answer.request == "phone_session_start" && answer.reply.id == "s")
        let d = data(answer)
        #expect(d["session_id"] == 20744 && d["phone_address"] == "70:75" && d["ranging_interval_ms"] == 198)
        #expect(d["complex_channel"] == .object([JSONMember("channel", 9), JSONMember("preamble_index", 11)]))
        #expect(d["slots_per_round"] == 6 && d["slot_duration_rstu"] == 3600 && d["hopping"] == false)
        #expect(d["ranging_round_control"] == 3 && d["country_code"] == "US" && d["version"] == "1.1")
        #expect(!answer.resultText.lowercased().contains("51ef27fbdd") && !answer.resultText.contains("\"iv"), "key material is never published")
    }

    @Test func theGatewayAsInitiatorAndVersion20FollowTheConfig() throws {
        var settings = PhoneSettings()
        settings.apple.role = .initiator
        settings.apple.uwbConfigVersion = .v2_0
        var p = phones(settings)
        var random = SplitMix64(seed: 3)
        let offer = data(p.prepareAccessory(try accessory(rate: "infrequent"), reply: Reply(), now: 0, using: &random).answers.first)
        #expect(offer["gateway_role"] == "controller" && offer["uwb_config_version"] == "2.0")
        guard case let .string(text)? = offer["accessory_configuration_data"], let acd = Base64.decode(text) else { return }
        #expect(acd.count == 48 && acd[4] == 10, "2.0 with the requested timing; infrequent")
        let v20 = try Hex.bytes("02 00 00 00 1E") + Array(Self.shareable[5..<30]) + [0, 0, 0, 0, 1]
        let out = p.startIPhone(try start("iphone-eve", v20), reply: Reply(), now: 1, reportToken: "token")
        guard case let .openSession(config)? = out.deviceEvents.first else { Issue.record("\(out.answers)"); return }
        #expect(config.role == .controller && config.appConfiguration.contains(.deviceRole(.initiator)))
        #expect(config.appConfiguration.contains(.hopping(true)), "2.0 carries hopping")
    }

    @Test("bad shareable data is refused naming what is wrong", arguments: [
        ("not base64!", "is not base64"),
        (Base64.encode(Array(IPhoneSessionsTests.shareable.prefix(29))), "29 bytes"),
        (Base64.encode(IPhoneSessionsTests.blob([0: 3])), "version 3.1"),
        (Base64.encode(IPhoneSessionsTests.blob([12: 6])), "channel 6 is not supported by the DWM3001C (5 or 9)"),
        (Base64.encode(IPhoneSessionsTests.blob([11: 13])), "preamble code index 13"),
        (Base64.encode(IPhoneSessionsTests.blob([15: 0x11])), "not a whole number of milliseconds"),
        (Base64.encode(IPhoneSessionsTests.blob([17: 10, 18: 0])), "ranging interval 10 ms is shorter than the round, 6 × 3 ms"),
        (Base64.encode(IPhoneSessionsTests.blob([7: 0, 8: 0])), "session id 0"),
    ])
    func badShareableData(text: String, expected: String) {
        let result = IPhoneSessionRequest.Start.parse(["name": "iphone-eve", "shareable_configuration_data": .string(text)])
        guard case let .failure(problem) = result else { Issue.record("accepted \(text)"); return }
        #expect(problem.message.contains(expected), "\(problem.message)")
    }

    /// The path the request fuzzer takes: the intake, the parser, the component.
    @Test func theRequestPathReachesTheParsers() {
        let offer = RequestParsing.responseJSON(name: "phone_session", payload: Array(#"{"id": 1, "name": "iphone-eve", "platform": "ios"}"#.utf8))
        #expect(offer.contains(#""ok": true"#) && offer.contains("accessory_configuration_data"), "\(offer)")
        let bad = Base64.encode(Self.blob([12: 6]))
        let refused = RequestParsing.responseJSON(name: "phone_session_start",
                                                  payload: Array(#"{"id": 2, "name": "iphone-eve", "shareable_configuration_data": "\#(bad)"}"#.utf8))
        #expect(refused.contains(#""ok": false"#) && refused.contains("channel 6 is not supported by the DWM3001C (5 or 9)"), "\(refused)")
        let platform = RequestParsing.responseJSON(name: "phone_session", payload: Array(#"{"name": "x", "platform": "symbian"}"#.utf8))
        #expect(platform.contains("platform must be"), "\(platform)")
    }

    @Test func aStartThatCannotBeUsedIsRefusedAndChangesNothing() throws {
        var p = phones()
        var random = SplitMix64(seed: 3)
        #expect(error(p.startIPhone(try start(), reply: Reply(), now: 0, reportToken: "token").answers.first).contains("no accessory configuration is waiting for \"iphone-eve\""))
        _ = p.prepareAccessory(try accessory(), reply: Reply(), now: 0, using: &random)
        // The tags' session id, the gateway's address, a tag's address: each refused, nothing sent.
        for (changes, expected) in [([7: 42, 8: 0, 9: 0, 10: 0], "session id 42 is in use"), ([26: 1, 27: 0], "gateway's own"),
                                    ([26: 0xFF, 27: 0xFF], "broadcast")] as [([Int: UInt8], String)] {
            let out = p.startIPhone(try start("iphone-eve", Self.blob(changes)), reply: Reply(), now: 1, reportToken: "token")
            #expect(out.deviceEvents.isEmpty)
            #expect(error(out.answers.first).contains(expected) && error(out.answers.first).contains("run a new one"), "\(out.answers)")
        }
        // A tag's address, on a gateway whose own address is another.
        var settings = PhoneSettings()
        settings.maximum = 1
        var q = PhoneSessions(settings: settings, gateway: PhoneSessions.Gateway(address: 0x0009, channel: 9, sessionID: 42, peers: [Self.tag]))
        _ = q.prepareAccessory(try accessory(), reply: Reply(), now: 0, using: &random)
        #expect(error(q.startIPhone(try start("iphone-eve", Self.blob([26: 1, 27: 0])), reply: Reply(), now: 1, reportToken: "token").answers.first)
            .contains("configured peer tool-cart's"))
        // phones.max counts a configuration handed out.
        #expect(error(q.prepareAccessory(try accessory("iphone-fay"), reply: Reply(), now: 1, using: &random).answers.first).contains("phones.max"))
        // A configured peer's name.
        #expect(error(p.prepareAccessory(try accessory("tool-cart"), reply: Reply(), now: 1, using: &random).answers.first).contains("configured peer"))
        // Android keys with an iPhone.
        guard case let .failure(problem) = IPhoneSessionRequest.Accessory.parse(["name": "x", "platform": "ios", "phone_role": "controlee"]) else {
            Issue.record("accepted Android keys"); return
        }
        #expect(problem.message.contains("unknown key \"phone_role\""))
        // Still usable after all that.
        let out = p.startIPhone(try start(), reply: Reply(), now: 2, reportToken: "token")
        #expect(out.deviceEvents.count == 1)
    }

    @Test func anUnusedConfigurationExpiresAndFreesItsPlace() throws {
        var settings = PhoneSettings()
        settings.maximum = 1
        var p = phones(settings)
        var random = SplitMix64(seed: 3)
        _ = p.prepareAccessory(try accessory(), reply: Reply(), now: 0, using: &random)
        #expect(p.nextDeadline == 30)
        let out = p.expire(now: 30)
        #expect(out.logs.contains { $0.contains("not used within 30 s") })
        #expect(p.nextDeadline == nil)
        #expect(error(p.startIPhone(try start(), reply: Reply(), now: 31, reportToken: "token").answers.first).contains("expired after 30 s"))
        #expect(data(p.prepareAccessory(try accessory("iphone-fay"), reply: Reply(), now: 31, using: &random).answers.first)["name"] == "iphone-fay")
    }

    @Test func aNewNISessionRunReplacesTheRunningSessionUnderTheSameName() throws {
        var p = phones()
        var random = SplitMix64(seed: 3)
        _ = p.prepareAccessory(try accessory(), reply: Reply(), now: 0, using: &random)
        _ = p.startIPhone(try start(), reply: Reply(), now: 1, reportToken: "token")
        _ = p.news(sessionID: 20744, .ranging, now: 1.2)
        // phone_session for a ranging name is refused; the app sends a new start instead.
        #expect(error(p.prepareAccessory(try accessory(), reply: Reply(), now: 2, using: &random).answers.first).contains("ranges already"))

        let rerun = Self.blob([7: 0x09, 20: 0x99, 26: 0x71])  // new session id, IV and address
        #expect(p.reporter(segment: "iphone-eve", token: "token") == .success(0x7570))
        var out = p.startIPhone(try start("iphone-eve", rerun), reply: Reply(id: "again"), now: 3, reportToken: "new-token")
        #expect(out.deviceEvents.count == 2)
        #expect(out.deviceEvents.first == .closeSession(sessionID: 20744, reason: "the iPhone ran a new NISession"))
        guard case let .openSession(config)? = out.deviceEvents.last else { Issue.record("no new session"); return }
        #expect(config.sessionID == 0x5109 && config.peers == [0x7571])
        #expect(out.left.isEmpty, "its name stays while the new session opens")
        // The old session's close comes back: nobody waits for it.
        #expect(p.news(sessionID: 20744, .closed("the iPhone ran a new NISession"), now: 3.1).left.isEmpty)
        out = p.news(sessionID: 0x5109, .ranging, now: 3.3)
        #expect(out.joined.isEmpty && out.left.isEmpty)
        #expect(out.moved.map(\.name) == ["iphone-eve"] && out.moved.map(\.from) == [0x7570] && out.moved.map(\.to) == [0x7571])
        #expect(out.answers.first?.request == "phone_session_start" && out.answers.first?.reply.id == "again")
        #expect(data(out.answers.first)["report_token"] == "new-token")
        // The replaced session's reports count for nothing; the new one's give the name its direction.
        #expect(p.reporter(segment: "iphone-eve", token: "token") == .failure(.wrongToken))
        #expect(p.reporter(segment: "iphone-eve", token: "new-token") == .success(0x7571))
    }

    @Test func endsDropTheConfiguration() throws {
        var p = phones()
        var random = SplitMix64(seed: 3)
        _ = p.prepareAccessory(try accessory(), reply: Reply(), now: 0, using: &random)
        _ = p.startIPhone(try start(), reply: Reply(), now: 1, reportToken: "token")
        _ = p.news(sessionID: 20744, .ranging, now: 1.2)
        // A device reset: the session closes, the phone leaves, its configuration with it.
        let out = p.news(sessionID: 20744, .closed("device reset"), now: 5)
        #expect(out.left == [0x7570])
        #expect(error(p.startIPhone(try start(), reply: Reply(), now: 6, reportToken: "token").answers.first).contains("no accessory configuration is waiting"))
        // Stop of a configuration that waits: dropped, ok.
        _ = p.prepareAccessory(try accessory(), reply: Reply(), now: 7, using: &random)
        #expect(data(p.stop(name: "iphone-eve", reply: Reply(), now: 8).answers.first)["name"] == "iphone-eve")
        #expect(p.nextDeadline == nil)
    }
}

extension PhoneSessions.Answer {
    var resultText: String {
        switch result {
        case let .success(members): JSONValue.object(members).json
        case let .failure(problem): problem.message
        }
    }
}
