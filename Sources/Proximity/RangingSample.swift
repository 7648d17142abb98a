import UCI

/// What the engine needs from one ranging measurement of one peer.
///
/// Built from a UCI ``TwoWayRangingMeasurement`` or directly (tests, replays, the simulator). A
/// measurement is valid when its status is a success and it carries a distance; a negative distance
/// (status OK_NEGATIVE_DISTANCE_REPORT: the peer is closer than the antenna delay calibration) counts as 0.
public struct RangingSample: Hashable, Sendable {
    public var isValid: Bool
    /// Metres, as the device reported (may be negative).
    public var distanceMeters: Double?
    public var azimuthDeg: Double?
    /// 0…100; 0 means the device gave no angle.
    public var azimuthFOM: Int
    public var elevationDeg: Double?
    public var elevationFOM: Int
    public var nonLineOfSight: Bool?

    public init(isValid: Bool = true, distanceMeters: Double?, azimuthDeg: Double? = nil, azimuthFOM: Int = 0,
                elevationDeg: Double? = nil, elevationFOM: Int = 0, nonLineOfSight: Bool? = nil) {
        self.isValid = isValid && distanceMeters?.isFinite == true
        self.distanceMeters = distanceMeters
        self.azimuthDeg = azimuthDeg
        self.azimuthFOM = azimuthFOM
        self.elevationDeg = elevationDeg
        self.elevationFOM = elevationFOM
        self.nonLineOfSight = nonLineOfSight
    }

    /// A failed measurement (status not ok): it moves only the link timer.
    public static let failed = RangingSample(isValid: false, distanceMeters: nil)

    /// A device's measurement: its angles only as far as the device reported them
    /// (`TwoWayRangingMeasurement.azimuthDegrees(deviceHasAoA:)`).
    public init(_ m: TwoWayRangingMeasurement, deviceHasAoA: Bool = true) {
        let distance = m.validDistanceMeters
        self.init(isValid: distance != nil, distanceMeters: distance ?? m.distanceCentimeters.map { Double($0) / 100 },
                  azimuthDeg: m.azimuthDegrees(deviceHasAoA: deviceHasAoA), azimuthFOM: Int(m.aoaAzimuthFOM),
                  elevationDeg: m.elevationDegrees(deviceHasAoA: deviceHasAoA), elevationFOM: Int(m.aoaElevationFOM),
                  nonLineOfSight: m.isNonLineOfSight)
    }
}
