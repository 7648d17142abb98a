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

    /// An angle exists only when the device has AoA and gives it a non-zero FOM: never a made-up one.
    @Test func anAngleIsReportedOnlyWithAoAAndAFigureOfMerit() {
        var m = TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: 150)
        m.aoaAzimuth = Q9_7Angle(raw: 12 * 128)
        m.aoaElevation = Q9_7Angle(raw: -5 * 128)
        #expect(m.azimuthDegrees(deviceHasAoA: true) == nil && m.elevationDegrees(deviceHasAoA: true) == nil, "FOM 0")
        m.aoaAzimuthFOM = 80
        #expect(m.azimuthDegrees(deviceHasAoA: true) == 12 && m.elevationDegrees(deviceHasAoA: true) == nil)
        #expect(m.azimuthDegrees(deviceHasAoA: false) == nil, "a device without AoA reports no angle")
        m.aoaElevationFOM = 60
        #expect(m.elevationDegrees(deviceHasAoA: true) == -5)
    }
}
