import DeviceLink
@testable import Gateway
import Testing
import UCI
import Vocabulary

/// The phone exchange's decisions: what a request opens or joins, what the phone is told, and
/// when a phone is let go.
@Suite struct PhoneSessionsTests {
    static let tag = AgentConfiguration.Peer(address: 1, name: "tool-cart")
    static let key = SessionKeyInfo([1, 2, 3, 4, 5, 6, 7, 8])!

    func phones(_ settings: PhoneSettings = PhoneSettings()) -> PhoneSessions {
        PhoneSessions(settings: settings, gateway: PhoneSessions.Gateway(address: 0x0001, channel: 9, sessionID: 42, peers: [Self.tag]))
    }

    func parse(_ fields: [String: JSONValue]) -> Result<PhoneSessionRequest, PhoneRequestError> {
        PhoneSessionRequest.parse(fields)
    }

    static let anna: [String: JSONValue] = ["name": "phone-anna", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"]

    func request(_ fields: [String: JSONValue]) throws -> PhoneSessionRequest {
        try parse(fields).get()
    }

    func data(_ answer: PhoneSessions.Answer) -> [String: JSONValue] {
        guard case let .success(members) = answer.result else { return [:] }
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Only the phone that holds a ranging session under the name may report for it, with its
    /// session's token: not before its session ranges, not with another phone's token, not with
    /// the token of a session since ended.
    @Test func reportsCountOnlyWithTheTokenOfTheSessionThatHoldsTheName() throws {
        var p = phones()
        var ben = Self.anna
        ben["name"] = "phone-ben"
        ben["phone_address"] = "12:34"
        _ = p.request(try request(Self.anna), reply: Reply(), now: 0, sessionID: 77, key: Self.key, reportToken: "anna-1")
        #expect(p.reporter(segment: "phone-anna", token: "anna-1") == .failure(.noSession), "not before it ranges")
        #expect(data(try #require(p.news(sessionID: 77, .ranging, now: 0.1).answers.first))["report_token"] == "anna-1")
        _ = p.request(try request(ben), reply: Reply(), now: 0.2, sessionID: 78, key: Self.key, reportToken: "ben-1")
        _ = p.news(sessionID: 78, .ranging, now: 0.3)
        #expect(p.reporter(segment: "phone-anna", token: "anna-1") == .success(0xCDAB))
        #expect(p.reporter(segment: "phone-ben", token: "ben-1") == .success(0x3412))
        #expect(p.reporter(segment: "phone-anna", token: "ben-1") == .failure(.wrongToken), "another phone's token")
        #expect(p.reporter(segment: "phone-nobody", token: "anna-1") == .failure(.noSession))
        #expect(p.reporter(segment: "Phone-Anna", token: "anna-1") == .failure(.noSession), "the topic's segment, sanitized")
        // The same phone asks again: a new session, a new token; the old one counts for nothing.
        _ = p.stop(name: "phone-anna", reply: Reply(), now: 1)
        _ = p.request(try request(Self.anna), reply: Reply(), now: 2, sessionID: 79, key: Self.key, reportToken: "anna-2")
        _ = p.news(sessionID: 79, .ranging, now: 2.1)
        #expect(p.reporter(segment: "phone-anna", token: "anna-1") == .failure(.wrongToken))
        #expect(p.reporter(segment: "phone-anna", token: "anna-2") == .success(0xCDAB))
    }

    @Test func aControleePhoneGetsAUnicastSessionWithTheGatewayAsController() throws {
        var p = phones()
        var out = p.request(try request(Self.anna), reply: Reply(id: "r1"), now: 0, sessionID: 77, key: Self.key, reportToken: "token")
        guard case let .openSession(config)? = out.deviceEvents.first else { Issue.record("no session opened"); return }
        #expect(config.role == .controller)
        #expect(config.sessionID == 77)
        #expect(config.peers == [0xCDAB], "\"AB:CD\" is wire AB CD")
        #expect(config.ownAddress == 0x0001)
        #expect(config.rangingIntervalMilliseconds == 240, "config 1, automatic")
        #expect(config.multiNodeMode == .unicast)
        let tlvs = config.appConfiguration
        #expect(tlvs.contains(.preambleCodeIndex(9)) && tlvs.contains(.slotsPerRangingRound(6)) && tlvs.contains(.hopping(true)))
        #expect(tlvs.contains(.vendorID(0x0201)) && tlvs.contains(.staticSTSIV([3, 4, 5, 6, 7, 8])))
        #expect(out.answers.isEmpty, "answered once the device ranges")

        out = p.news(sessionID: 77, .ranging, now: 0.1)
        #expect(out.joined.map(\.name) == ["phone-anna"] && out.joined.map(\.address) == [0xCDAB])
        let answer = try #require(out.answers.first)
        #expect(answer.request == "phone_session" && answer.reply.id == "r1")
        let d = data(answer)
        #expect(d["session_id"] == 77)
        #expect(d["session_key_info"] == "0102030405060708")
        #expect(d["gateway_address"] == "01:00")
        #expect(d["gateway_role"] == "controller")
        #expect(d["phone_address"] == "AB:CD")
        #expect(d["complex_channel"] == .object([JSONMember("channel", 9), JSONMember("preamble_index", 9)]))
        #expect(d["ranging_interval_ms"] == 240 && d["update_rate"] == "automatic" && d["slot_duration_ms"] == 2)
        #expect(d["start_within_ms"] == 10000)
    }

    @Test func aControllerPhoneMakesTheGatewayItsControleeOnThePhonesChannel() throws {
        var p = phones()
        var fields = Self.anna
        fields["phone_role"] = "controller"
        fields["update_rate"] = "frequent"
        fields["complex_channel"] = .object([JSONMember("channel", 9), JSONMember("preamble_index", 11)])
        fields["session_id"] = 5
        fields["session_key_info"] = "0807010203040506"
        let out = p.request(try request(fields), reply: Reply(), now: 0, sessionID: 77, key: Self.key, reportToken: "token")
        guard case let .openSession(config)? = out.deviceEvents.first else { Issue.record("no session opened"); return }
        #expect(config.role == .controlee && config.sessionID == 5 && config.rangingIntervalMilliseconds == 120)
        #expect(config.appConfiguration.contains(.preambleCodeIndex(11)))
        #expect(config.appConfiguration.contains(.deviceRole(.responder)))
        #expect(config.air.sessionKeyInfo == .qorvoExample)
    }

    @Test("bad requests are refused with what is wrong", arguments: [
        (["phone_address": "ABC:D"], "phone_address must be"),
        (["phone_address": "AB:CD:EF"], "phone_address must be"),
        (["phone_address": 43981], "phone_address must be"),
        (["session_key_info": "08070102030405"], "session_key_info must be 8 bytes"),
        (["session_key_info": "zz07010203040506"], "session_key_info must be 8 bytes"),
        (["complex_channel": .object([JSONMember("channel", 9), JSONMember("preamble_index", 13)])], "complex_channel.preamble_index must be 9 to 12"),
        (["complex_channel": .object([JSONMember("channel", 6), JSONMember("preamble_index", 10)])], "complex_channel.channel must be 5 or 9"),
        (["config_id": 3], "config_id must be 1"),
        (["config_id": 4], "config_id must be 1"),
        (["phone_role": "tag"], "phone_role must be"),
        (["phone_role": "controller"], "complex_channel is required"),
        (["update_rate": "fast"], "update_rate must be"),
        (["session_id": 0], "session_id must be"),
        (["session_id": 2_147_483_648], "session_id must be"),
        (["name": ""], "name is required"),
        (["colour": "red"], "unknown key \"colour\""),
    ] as [([String: JSONValue], String)])
    func badRequests(change: [String: JSONValue], message: String) {
        let fields = Self.anna.merging(change) { $1 }
        guard case let .failure(problem) = parse(fields) else { Issue.record("accepted \(change)"); return }
        #expect(problem.message.hasPrefix(message), "\(problem.message)")
    }

    @Test func aSecondPhoneOnAUnicastSessionIsRefused() throws {
        var p = phones()
        _ = p.request(try request(Self.anna), reply: Reply(), now: 0, sessionID: 77, key: Self.key, reportToken: "token")
        _ = p.news(sessionID: 77, .ranging, now: 0.1)
        var ben = Self.anna
        ben["name"] = "phone-ben"
        ben["phone_address"] = "12:34"
        ben["session_id"] = 77
        let out = p.request(try request(ben), reply: Reply(id: 2), now: 1, sessionID: 78, key: Self.key, reportToken: "token")
        guard case let .failure(problem)? = out.answers.first?.result else { Issue.record("accepted"); return }
        #expect(problem.message == "session 77 is unicast (config_id 1) and has its phone; several phones range in one session with config_id 2")
        #expect(out.deviceEvents.isEmpty)
    }

    @Test("addresses and names already in use are refused", arguments: [
        (["phone_address": "01:00"], "phone_address 01:00 is the gateway's own or a broadcast address"),
        (["phone_address": "FF:FF"], "phone_address FF:FF is the gateway's own or a broadcast address"),
        (["name": "Tool-Cart", "phone_address": "22:22"], "the name \"Tool-Cart\" is the configured peer tool-cart's"),
    ] as [([String: JSONValue], String)])
    func addressesAndNamesInUse(change: [String: JSONValue], message: String) throws {
        var p = phones()
        let out = p.request(try request(Self.anna.merging(change) { $1 }), reply: Reply(), now: 0, sessionID: 7, key: Self.key, reportToken: "token")
        guard case let .failure(problem)? = out.answers.first?.result else { Issue.record("accepted \(change)"); return }
        #expect(problem.message.hasPrefix(message), "\(problem.message)")
        #expect(out.deviceEvents.isEmpty)
    }

    /// A ranging phone's name asked for from another address: refused, naming the name, unless
    /// the request says `"replace": true`, which ends the running phone's session first.
    @Test func aNameInUseIsRefusedUnlessReplaced() throws {
        var p = phones()
        _ = p.request(try request(Self.anna), reply: Reply(), now: 0, sessionID: 77, key: Self.key, reportToken: "token")
        _ = p.news(sessionID: 77, .ranging, now: 0.1)
        var again = Self.anna
        again["phone_address"] = "12:34"
        var out = p.request(try request(again), reply: Reply(id: 2), now: 1, sessionID: 78, key: Self.key, reportToken: "token")
        guard case let .failure(problem)? = out.answers.first?.result else { Issue.record("accepted"); return }
        #expect(problem.message == #"the name "phone-anna" is in use by the phone at AB:CD; ask with "replace": true to end its session and take the name"#)
        #expect(out.deviceEvents.isEmpty && out.left.isEmpty)
        again["replace"] = true
        out = p.request(try request(again), reply: Reply(id: 3), now: 2, sessionID: 78, key: Self.key, reportToken: "token")
        #expect(out.left == [0xCDAB], "the old phone's link ends")
        #expect(out.deviceEvents.contains { if case .openSession = $0 { true } else { false } }, "\(out.deviceEvents)")
        #expect(parse(Self.anna.merging(["replace": "yes"]) { $1 }).failureMessage == "replace must be true or false")
    }

    @Test func aConfiguredPeersAddressIsRefused() throws {
        var p = phones()
        let out = p.request(try request(Self.anna.merging(["phone_address": "01:00"]) { $1 }), reply: Reply(), now: 0, sessionID: 7, key: Self.key, reportToken: "token")
        #expect(out.deviceEvents.isEmpty)
        var q = PhoneSessions(settings: PhoneSettings(), gateway: PhoneSessions.Gateway(address: 0x0000, channel: 9, sessionID: 42, peers: [Self.tag]))
        let other = q.request(try request(Self.anna.merging(["phone_address": "01:00"]) { $1 }), reply: Reply(), now: 0, sessionID: 7, key: Self.key, reportToken: "token")
        guard case let .failure(problem)? = other.answers.first?.result else { Issue.record("accepted"); return }
        #expect(problem.message.hasPrefix("phone_address 01:00 is the address of the configured peer tool-cart"))
    }

    @Test func phonesShareAOneToManySessionAndJoinThroughTheMulticastList() throws {
        var p = phones()
        var anna = Self.anna
        anna["config_id"] = 2
        var out = p.request(try request(anna), reply: Reply(id: "a"), now: 0, sessionID: 90, key: Self.key, reportToken: "token")
        guard case let .openSession(config)? = out.deviceEvents.first else { Issue.record("no session opened"); return }
        #expect(config.multiNodeMode == .oneToMany && config.rangingIntervalMilliseconds == 200)
        #expect(config.appConfiguration.contains(.slotsPerRangingRound(20)))
        #expect(config.appConfiguration.contains(.numberOfControlees(1)))
        // A second phone asks while the session is still opening: it joins once it ranges.
        var ben = anna
        ben["name"] = "phone-ben"
        ben["phone_address"] = "12:34"
        out = p.request(try request(ben), reply: Reply(id: "b"), now: 0.05, sessionID: 91, key: SessionKeyInfo.random(), reportToken: "token-ben")
        #expect(out.deviceEvents.isEmpty && out.answers.isEmpty)
        out = p.news(sessionID: 90, .ranging, now: 0.1)
        #expect(out.answers.map(\.reply.id) == ["a"])
        #expect(out.deviceEvents == [.updateSessionPeers(sessionID: 90, add: [0x3412], remove: [])])
        out = p.news(sessionID: 90, .updated, now: 0.2)
        let answer = try #require(out.answers.first)
        #expect(answer.reply.id == "b")
        #expect(data(answer)["session_id"] == 90 && data(answer)["session_key_info"] == "0102030405060708", "the session's id and key")
        // A third at another rate is refused: the session has one interval.
        var cleo = anna
        cleo["name"] = "phone-cleo"
        cleo["phone_address"] = "56:78"
        cleo["update_rate"] = "frequent"
        guard case let .failure(problem)? = p.request(try request(cleo), reply: Reply(), now: 1, sessionID: 92, key: Self.key, reportToken: "token").answers.first?.result else {
            Issue.record("accepted"); return
        }
        #expect(problem.message.hasPrefix("the one-to-many phone session runs at update_rate automatic"))
        // Ben stops: he leaves the list; Anna stays.
        out = p.stop(name: "phone-ben", reply: Reply(id: 9), now: 2)
        #expect(out.deviceEvents == [.updateSessionPeers(sessionID: 90, add: [], remove: [0x3412])])
        #expect(out.left == [0x3412])
        #expect(out.answers.map(\.request) == ["phone_session_stop"])
        // Anna stops: the session closes.
        out = p.stop(name: "phone-anna", reply: Reply(id: 10), now: 3)
        #expect(out.deviceEvents == [.closeSession(sessionID: 90, reason: "stopped on request")])
    }

    @Test func aPhoneWithoutASuccessfulRoundForTenSecondsIsLetGo() throws {
        var p = phones()
        _ = p.request(try request(Self.anna), reply: Reply(), now: 0, sessionID: 77, key: Self.key, reportToken: "token")
        _ = p.news(sessionID: 77, .ranging, now: 0.1)
        #expect(p.nextDeadline == 10.1)
        #expect(p.expire(now: 10.0).deviceEvents.isEmpty)
        // A successful round keeps it.
        p.ranged(SessionInfo(sequenceNumber: 0, sessionHandle: 8, currentRangingInterval: 240,
                             measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(0xCDAB), distanceRaw: 120)])), now: 5)
        #expect(p.expire(now: 10.2).deviceEvents.isEmpty)
        #expect(p.nextDeadline == 15)
        let out = p.expire(now: 15)
        #expect(out.deviceEvents == [.closeSession(sessionID: 77, reason: "no successful round for 10 s")])
        #expect(out.left == [0xCDAB])
        #expect(p.isEmpty)
    }

    @Test func aFailedOpeningAnswersWithTheDevicesReason() throws {
        var p = phones()
        _ = p.request(try request(Self.anna), reply: Reply(id: "x"), now: 0, sessionID: 77, key: Self.key, reportToken: "token")
        let out = p.news(sessionID: 77, .failed("the device runs no further session beside its others (SESSION_INIT: ERROR_MAX_SESSIONS_EXCEEDED)"), now: 0.1)
        guard case let .failure(problem)? = out.answers.first?.result else { Issue.record("no failure"); return }
        #expect(problem.message.contains("ERROR_MAX_SESSIONS_EXCEEDED"))
        #expect(p.isEmpty)
    }

    @Test func disabledPhonesAreRefused() throws {
        var settings = PhoneSettings()
        settings.enabled = false
        var p = phones(settings)
        guard case let .failure(problem)? = p.request(try request(Self.anna), reply: Reply(), now: 0, sessionID: 7, key: Self.key, reportToken: "token").answers.first?.result else {
            Issue.record("accepted"); return
        }
        #expect(problem.message.contains("phones.enabled: false"))
    }

    @Test func wireOrderAddresses() {
        #expect(WireOrderAddress.value(of: "AB:CD") == 0xCDAB)
        #expect(WireOrderAddress.text(of: 0xCDAB) == "AB:CD")
        #expect(WireOrderAddress.value(of: "ab:cd") == 0xCDAB)
        #expect(WireOrderAddress.value(of: "ABCD") == nil && WireOrderAddress.value(of: "A:BCD") == nil && WireOrderAddress.value(of: "+A:CD") == nil)
    }
}

extension PhoneSessionsTests {
    func oneToMany(_ name: String, _ address: String) throws -> PhoneSessionRequest {
        try request(["name": .string(name), "phone_role": "controlee", "config_id": 2, "phone_address": .string(address)])
    }

    /// Each list update gets its own answer from the device, in order: joins waiting for the
    /// opening are sent one by one, and a phone leaving while another's join is on its way does
    /// not take that answer.
    @Test func everyJoinIsAnsweredByItsOwnUpdate() throws {
        var p = phones()
        _ = p.request(try oneToMany("a", "0A:00"), reply: Reply(id: "a"), now: 0, sessionID: 90, key: Self.key, reportToken: "token")
        _ = p.request(try oneToMany("b", "0B:00"), reply: Reply(id: "b"), now: 0, sessionID: 91, key: Self.key, reportToken: "token")
        _ = p.request(try oneToMany("c", "0C:00"), reply: Reply(id: "c"), now: 0, sessionID: 92, key: Self.key, reportToken: "token")
        var out = p.news(sessionID: 90, .ranging, now: 0.1)
        #expect(out.answers.map(\.reply.id) == ["a"])
        #expect(out.deviceEvents == [.updateSessionPeers(sessionID: 90, add: [0x000B], remove: []),
                                     .updateSessionPeers(sessionID: 90, add: [0x000C], remove: [])])
        out = p.news(sessionID: 90, .updated, now: 0.2)
        #expect(out.answers.map(\.reply.id) == ["b"] && out.joined.map(\.name) == ["b"])
        // "a" leaves while "c"'s join is still on its way: the next update is c's, the one after a's removal.
        out = p.stop(name: "a", reply: Reply(id: "stop-a"), now: 0.25)
        #expect(out.deviceEvents == [.updateSessionPeers(sessionID: 90, add: [], remove: [0x000A])])
        out = p.news(sessionID: 90, .updated, now: 0.3)
        #expect(out.answers.map(\.reply.id) == ["c"])
        out = p.news(sessionID: 90, .updated, now: 0.35)
        #expect(out.answers.isEmpty && out.joined.isEmpty)
        #expect(p.names == ["b", "c"])
        // A failed join tells that phone, and only it.
        _ = p.request(try oneToMany("d", "0D:00"), reply: Reply(id: "d"), now: 1, sessionID: 93, key: Self.key, reportToken: "token")
        out = p.news(sessionID: 90, .failed("multicast list update failed: REJECTED"), now: 1.1)
        guard case let .failure(problem)? = out.answers.first?.result else { Issue.record("no refusal"); return }
        #expect(out.answers.map(\.reply.id) == ["d"] && problem.message == "multicast list update failed: REJECTED")
        #expect(p.names == ["b", "c"])
        // The session closes under them: both leave.
        out = p.news(sessionID: 90, .closed("the device was initialised again"), now: 2)
        #expect(Set(out.left) == [0x000B, 0x000C] && p.isEmpty)
    }
}

extension PhoneSessionsTests {
    /// A phone waiting for a slow device sets no deadline (no timer that fires at once, again and
    /// again); a session its phone no longer waits for is closed when it opens after all.
    @Test func aSlowDeviceSetsNoDeadlineAndALateSessionIsClosed() throws {
        var p = phones()
        _ = p.request(try request(Self.anna), reply: Reply(id: "a"), now: 0, sessionID: 77, key: Self.key, reportToken: "token")
        #expect(p.nextDeadline == nil)
        #expect(p.expire(now: 60).deviceEvents.isEmpty)
        _ = p.stop(name: "phone-anna", reply: Reply(id: "s"), now: 61)
        #expect(p.news(sessionID: 77, .ranging, now: 62).deviceEvents == [.closeSession(sessionID: 77, reason: "no phone waits for it")])
    }
}

extension Result where Failure == PhoneRequestError {
    var failureMessage: String? {
        if case let .failure(problem) = self { problem.message } else { nil }
    }
}
