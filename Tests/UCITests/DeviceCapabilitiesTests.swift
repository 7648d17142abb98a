import Testing
import UCI

/// AoA and extended-MAC support read with the numbering of the device's UCI version.
@Suite struct DeviceCapabilitiesTests {
    @Test func fira2NumbersAoAAs0x13() {
        // The DWM3001CDK's answer (uci.md §7 V3): AoA 0x13 = 00, extended MAC 0x14 = 00.
        let v2 = DeviceCapabilities(tlvs: [ConfigTLV(id: 0x10, value: [1]), ConfigTLV(id: 0x13, value: [0]), ConfigTLV(id: 0x14, value: [0])],
                                    uciVersion: UCIVersion(major: 2, minor: 0))
        #expect(!v2.hasAoA && !v2.hasExtendedMACAddress)
        let aoa = DeviceCapabilities(tlvs: [ConfigTLV(id: 0x13, value: [1])], uciVersion: UCIVersion(major: 2, minor: 0))
        #expect(aoa.hasAoA)
    }

    @Test func uci1NumbersAoAAs0x10() {
        let v1 = DeviceCapabilities(tlvs: [ConfigTLV(id: 0x10, value: [1]), ConfigTLV(id: 0x11, value: [1]), ConfigTLV(id: 0x13, value: [0])],
                                    uciVersion: UCIVersion(major: 1, minor: 1))
        #expect(v1.hasAoA && v1.hasExtendedMACAddress)
    }

    @Test func aMissingTLVIsNoSupport() {
        let none = DeviceCapabilities(tlvs: [], uciVersion: UCIVersion(major: 2, minor: 0))
        #expect(!none.hasAoA && none.isEmpty)
    }

    @Test func aValidMeasurementHasSuccessAndADistance() {
        let ok = TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: 150)
        #expect(ok.validDistanceMeters == 1.5)
        let failed = TwoWayRangingMeasurement(macAddress: .short(1), status: Status(rawValue: 0x21), distanceRaw: 150)
        #expect(failed.validDistanceMeters == nil)
        let noDistance = TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: TwoWayRangingMeasurement.invalidDistance)
        #expect(noDistance.validDistanceMeters == nil)
    }
}
