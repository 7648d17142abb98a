import Foundation
import Gateway
import Testing
import UCI
import YAMLCoding
import Vocabulary

/// The `device:` section's profile and air keys and the `phones:` section (issue #18): what a
/// config file puts on the air, and the `file:line:column` errors a user sees for bad values.
@Suite struct RangingProfileConfigTests {
    @Test func qorvoIsTheDefaultAndSendsTodaysParameters() throws {
        for yaml in ["device: {peers: [{address: 1}]}", "device: {profile: qorvo, peers: [{address: 1}]}"] {
            let device = try ConfigText.load(yaml).device
            #expect(device.profile == .qorvo)
            #expect(device.rangingInterval.milliseconds == 200)
            let parameters = device.session.appConfiguration
            #expect(parameters == AppConfigParameter.dsTWR(role: .controller, ownAddress: 0, peers: [1]))
            #expect(parameters.count == 18)
            #expect(parameters.contains(.preambleCodeIndex(10)))
            #expect(parameters.contains(.slotsPerRangingRound(25)))
            #expect(parameters.contains(.vendorID(0x0708)))
            #expect(!parameters.contains(.hopping(true)))
        }
    }

    @Test func androidProfileIsJetpackConfigOne() throws {
        let device = try ConfigText.load("device: {profile: android, peers: [{address: 1}]}").device
        #expect(device.rangingInterval.milliseconds == 240)
        let parameters = device.session.appConfiguration
        for expected: AppConfigParameter in [.preambleCodeIndex(9), .slotsPerRangingRound(6), .slotDuration(2400), .hopping(true),
                                             .rangingRoundControl(3), .rangingDuration(240), .channelNumber(9),
                                             .vendorID(0x0708), .staticSTSIV([1, 2, 3, 4, 5, 6])] {
            #expect(parameters.contains(expected), "\(expected)")
        }
        #expect(parameters.count == 20)
    }

    @Test func explicitKeysOverrideTheProfile() throws {
        let device = try ConfigText.load("""
            device:
              profile: android
              preamble_index: 11
              slots_per_round: 8
              slot_duration: 1ms
              hopping: false
              ranging_round_control: 1
              session_key_info: "5a1c93e07b2d4f68"
              ranging_interval: 120ms
              peers: [{address: 1}]
            """).device
        let parameters = device.session.appConfiguration
        for expected: AppConfigParameter in [.preambleCodeIndex(11), .slotsPerRangingRound(8), .slotDuration(1200),
                                             .rangingRoundControl(1), .rangingDuration(120),
                                             .vendorID(0x1C5A), .staticSTSIV([0x93, 0xE0, 0x7B, 0x2D, 0x4F, 0x68])] {
            #expect(parameters.contains(expected), "\(expected)")
        }
        #expect(!parameters.contains(.hopping(true)))
        // The same key written with separators, and a qorvo session given a round control.
        let qorvo = try ConfigText.load("device: {session_key_info: \"5a:1c:93:e0:7b:2d:4f:68\", ranging_round_control: 3, peers: [{address: 1}]}").device
        #expect(qorvo.air.sessionKeyInfo == SessionKeyInfo(hex: "5a1c93e07b2d4f68"))
        #expect(qorvo.session.appConfiguration.contains(.rangingRoundControl(3)))
        #expect(qorvo.session.appConfiguration.contains(.preambleCodeIndex(10)))
    }

    @Test(arguments: [
        ("device:\n  preamble_index: 13\n",
         "c.yaml:2:19: device.preamble_index must be 9 to 12 (the BPRF codes both the DWM3001C and phones use), found 13"),
        ("device:\n  profile: iphone\n",
         "c.yaml:2:12: device.profile must be qorvo or android, found \"iphone\""),
        ("device:\n  slots_per_round: 40\n",
         "c.yaml:2:20: device.slots_per_round must be 4 to 32, found 40"),
        ("device:\n  slot_duration: 3ms\n",
         "c.yaml:2:18: device.slot_duration must be 1ms or 2ms (the slot lengths phones use), found 3ms"),
        ("device:\n  ranging_round_control: 300\n",
         "c.yaml:2:26: device.ranging_round_control must be 0 to 255 (one byte of flags), found 300"),
        ("device:\n  session_key_info: \"08070102030405\"\n",
         "c.yaml:2:21: device.session_key_info must be 16 hex digits (8 bytes: VENDOR_ID, then STATIC_STS_IV; openssl rand -hex 8 makes one), found 14 digits"),
        ("device:\n  session_key_info: \"080701020304050g\"\n",
         "c.yaml:2:21: device.session_key_info must be 16 hex digits (8 bytes: VENDOR_ID, then STATIC_STS_IV; openssl rand -hex 8 makes one), found a character that is not a hex digit"),
        ("device:\n  profile: android\n  peers:\n    - {address: 1}\n    - {address: 2}\n",
         "c.yaml:4:5: device.profile android ranges with one peer (Jetpack's unicast session), found 2; more phones join through the phone_session request instead"),
        ("device:\n  slots_per_round: 32\n  ranging_interval: 50ms\n",
         "c.yaml:3:21: device.ranging_interval (50ms) is shorter than one ranging round (32 slots of 2ms = 64ms); lengthen it or use fewer slots"),
        ("device:\n  profile: android\n  ranging_interval: 20ms\n",
         "c.yaml:3:21: device.ranging_interval must be between 50ms and 10s, found 20ms"),
        ("device: {}\nphones:\n  max: 9\n",
         "c.yaml:3:8: phones.max must be 1 to 8 (the responders one session holds), found 9"),
        ("device: {}\nphones:\n  no_ranging_timeout: 2min\n",
         "c.yaml:3:23: phones.no_ranging_timeout must be between 1s and 60s, found 120s"),
        ("device: {}\nphones:\n  session_key_info: randm\n",
         "c.yaml:3:21: phones.session_key_info must be random or 16 hex digits (8 bytes: VENDOR_ID, then STATIC_STS_IV; openssl rand -hex 8 makes one), found a character that is not a hex digit"),
    ])
    func badValueIsLocated(yaml: String, message: String) {
        #expect(ConfigText.failure(yaml) == message)
    }

    @Test func unknownPhonesKeyIsAnError() {
        let message = ConfigText.failure("device: {}\nphones:\n  maximum: 2\n")
        #expect(message.hasPrefix("c.yaml:3:3: "), "\(message)")
        #expect(message.contains("maximum"), "\(message)")
    }

    @Test func keyErrorsNeverRepeatTheKey() {
        let message = ConfigText.failure("device:\n  session_key_info: \"5a1c93e07b2d4f6\"\n")
        #expect(message.contains("found 15 digits"), "\(message)")
        #expect(!message.contains("5a1c93"))
    }

    @Test func aGatewayMayHaveNoPeersOfItsOwn() throws {
        for yaml in ["device: {}", "device: {peers: []}", "device: {profile: android}", "device: {role: controlee, peers: []}"] {
            let configuration = try ConfigText.load(yaml)
            #expect(configuration.device.peers.isEmpty, "\(yaml)")
            #expect(configuration.device.session.peers.isEmpty, "\(yaml)")
        }
        // The other peer checks stay.
        #expect(ConfigText.failure("device:\n  peers: [{address: 1}, {address: 1}]\n") == "c.yaml:2:10: peer address 0x0001 is listed twice")
        #expect(ConfigText.failure("device:\n  role: controlee\n  peers: [{address: 1}, {address: 2}]\n")
                == "c.yaml:3:10: a controlee ranges with one peer (its controller), found 2")
    }

    @Test func phonesSection() throws {
        let defaults = try ConfigText.load("device: {}").phones
        #expect(defaults == PhoneSettings())
        #expect(defaults.enabled && defaults.sessionKeyInfo == nil && defaults.noRangingTimeout.seconds == 10 && defaults.maximum == 8)
        #expect(try ConfigText.load("device: {}\nphones: {session_key_info: random}").phones.sessionKeyInfo == nil)
        let phones = try ConfigText.load("device: {}\nphones: {enabled: false, session_key_info: \"5a1c93e07b2d4f68\", no_ranging_timeout: 30s, max: 2}").phones
        #expect(!phones.enabled)
        #expect(phones.sessionKeyInfo == SessionKeyInfo(hex: "5a1c93e07b2d4f68"))
        #expect(phones.noRangingTimeout.seconds == 30)
        #expect(phones.maximum == 2)
    }

    @Test func wellKnownKeysAreWarnedAboutAndRealKeysNeverShown() throws {
        let demo = try ConfigText.load("device: {peers: [{address: 1}]}").warnings
        #expect(demo.map(\.message) == ["device.session_key_info is a well-known demo key (08 07 01 02 03 04 05 06, the profiles' default): "
                                        + "anyone can follow these sessions; set a random one (openssl rand -hex 8) on every gateway and tag"])
        #expect(demo.first?.keyPath == ["device", "session_key_info"])
        #expect(try ConfigText.load("device: {profile: android, peers: [{address: 1}]}").warnings.count == 1)
        // A real key: no warning, so its bytes appear nowhere.
        #expect(try ConfigText.load("device: {session_key_info: \"5a1c93e07b2d4f68\", peers: [{address: 1}]}").warnings.isEmpty)
        // No session of its own, no device warning; phones with a fixed demo key are warned about.
        #expect(try ConfigText.load("device: {}").warnings.isEmpty)
        let phones = try ConfigText.load("device: {}\nphones: {session_key_info: \"0000000000000000\"}").warnings
        #expect(phones.map(\.message) == ["phones.session_key_info is a well-known demo key (00 00 00 00 00 00 00 00): "
                                          + "anyone can follow the phones' sessions; leave it at random"])
        #expect(try ConfigText.load("device: {}\nphones: {enabled: false, session_key_info: \"0000000000000000\"}").warnings.isEmpty)
    }
}
