import Foundation
import Gateway
import Testing
import UCI
import YAMLCoding

/// `phones.apple:`: how iPhones see the gateway, with `file:line:column` errors for bad values.
@Suite struct AppleAccessorySettingsTests {
    @Test func theDefaultsAreQorvosAccessory() throws {
        let apple = try ConfigText.load("device: {}").phones.apple
        #expect(apple.role == .responder && apple.uwbConfigVersion == .v1_1 && apple.preferredUpdateRate == .userInteractive)
        #expect(apple.clockDriftPPM == 25 && apple.chipset == .qorvo && apple.accessoryDataTimeout.seconds == 30)
    }

    @Test func everyKeyIsRead() throws {
        let apple = try ConfigText.load("""
            device: {}
            phones:
              apple:
                role: initiator
                uwb_config_version: 2.0
                preferred_update_rate: infrequent
                clock_drift_ppm: 10
                chipset_ids: zero
                accessory_data_timeout: 1min
                request: {hopping: true, slots_per_round: 6, slot_duration: 2ms, ranging_interval: 240ms}
            """).phones.apple
        #expect(apple.role == .initiator && apple.uwbConfigVersion == .v2_0 && apple.preferredUpdateRate == .infrequent)
        #expect(apple.clockDriftPPM == 10 && apple.chipset == .zero && apple.accessoryDataTimeout.seconds == 60)
        #expect(apple.requested.hopping && apple.requested.slotsPerRound == 6 && apple.requested.slotDurationRSTU == 2400
                && apple.requested.rangingIntervalMilliseconds == 240)
    }

    @Test(arguments: [
        ("role: controller", "c.yaml:4:11: phones.apple.role must be responder or initiator"),
        ("uwb_config_version: 3.0", "must be \"1.0\", \"1.1\" or \"2.0\", found \"3.0\""),
        ("preferred_update_rate: fast", "phones.apple.preferred_update_rate must be"),
        ("clock_drift_ppm: 500", "phones.apple.clock_drift_ppm must be 0 to 100"),
        ("chipset_ids: nxp", "phones.apple.chipset_ids must be qorvo or zero"),
        ("accessory_data_timeout: 1s", "phones.apple.accessory_data_timeout must be between 5s and 10min"),
        ("request: {slots_per_round: 40}", "slots_per_round must be 4 to 32"),
        ("request: {slot_duration: 1.5ms}", "slot_duration must be whole milliseconds"),
        ("request: {slots_per_round: 25, slot_duration: 3ms, ranging_interval: 50ms}", "shorter than its round, 25 × 3 ms"),
        ("request: {slots: 6}", "unknown key"),
        ("colour: red", "unknown key"),
    ])
    func badValuesNameTheKey(line: String, expected: String) {
        let message = ConfigText.failure("device: {}\nphones:\n  apple:\n    \(line)\n")
        #expect(message.contains(expected), "\(message)")
    }
}
