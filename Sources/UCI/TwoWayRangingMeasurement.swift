/// One peer's result in a TWR ranging notification: 31 bytes, short or extended address
/// (uci.md §5.2). Fields hold what the device sent; the computed properties interpret them
/// (invalid distance, negative distance, RSSI scaling, line of sight).
public struct TwoWayRangingMeasurement: Hashable, Sendable {
    public var macAddress: MacAddress
    /// 0x00 OK, 0x1B OK with negative distance, 0x20–0x27 failures (e.g. 0x21 RX timeout).
    public var status: Status
    /// 0 line of sight, 1 non line of sight, anything else (0xFF) undetermined.
    public var nlosRaw: UInt8
    /// Centimetres, 0xFFFF when the device marks the distance invalid.
    public var distanceRaw: UInt16
    public var aoaAzimuth: Q9_7Angle
    public var aoaAzimuthFOM: UInt8
    public var aoaElevation: Q9_7Angle
    public var aoaElevationFOM: UInt8
    public var aoaDestinationAzimuth: Q9_7Angle
    public var aoaDestinationAzimuthFOM: UInt8
    public var aoaDestinationElevation: Q9_7Angle
    public var aoaDestinationElevationFOM: UInt8
    public var slotIndex: UInt8
    /// FiRa 2.0: unsigned Q7.1 of |dBm|; 0 = not reported (RFU in FiRa 1.x).
    public var rssiRaw: UInt8

    public static let invalidDistance: UInt16 = 0xFFFF
    /// 31 bytes in both addressing modes: the extended form has 6 fewer RFU bytes.
    public static func size(_ mode: MacAddressingMode) -> Int { 31 }

    public init(macAddress: MacAddress, status: Status = .ok, nlosRaw: UInt8 = 0, distanceRaw: UInt16,
                aoaAzimuth: Q9_7Angle = Q9_7Angle(raw: 0), aoaAzimuthFOM: UInt8 = 0,
                aoaElevation: Q9_7Angle = Q9_7Angle(raw: 0), aoaElevationFOM: UInt8 = 0,
                aoaDestinationAzimuth: Q9_7Angle = Q9_7Angle(raw: 0), aoaDestinationAzimuthFOM: UInt8 = 0,
                aoaDestinationElevation: Q9_7Angle = Q9_7Angle(raw: 0), aoaDestinationElevationFOM: UInt8 = 0,
                slotIndex: UInt8 = 0, rssiRaw: UInt8 = 0) {
        self.macAddress = macAddress
        self.status = status
        self.nlosRaw = nlosRaw
        self.distanceRaw = distanceRaw
        self.aoaAzimuth = aoaAzimuth
        self.aoaAzimuthFOM = aoaAzimuthFOM
        self.aoaElevation = aoaElevation
        self.aoaElevationFOM = aoaElevationFOM
        self.aoaDestinationAzimuth = aoaDestinationAzimuth
        self.aoaDestinationAzimuthFOM = aoaDestinationAzimuthFOM
        self.aoaDestinationElevation = aoaDestinationElevation
        self.aoaDestinationElevationFOM = aoaDestinationElevationFOM
        self.slotIndex = slotIndex
        self.rssiRaw = rssiRaw
    }

    /// The distance in centimetres as the device reports it: nil for 0xFFFF, negative when the
    /// status is OK_NEGATIVE_DISTANCE_REPORT (Android does the same).
    public var distanceCentimeters: Int? {
        guard distanceRaw != Self.invalidDistance else { return nil }
        return status == .okNegativeDistanceReport ? -Int(distanceRaw) : Int(distanceRaw)
    }

    /// The distance in metres when the measurement is valid — its status is success and it carries
    /// a distance — else nil. The one definition of a valid measurement: the rules, the payloads
    /// and replay all ask here.
    public var validDistanceMeters: Double? {
        guard status.isSuccess, let centimeters = distanceCentimeters else { return nil }
        return Double(centimeters) / 100
    }

    /// The azimuth in degrees when the device measured one: it has AoA (`deviceHasAoA`, from
    /// its capabilities) and gives the angle a non-zero FOM; else nil, never a made-up angle.
    /// The one definition of a reported angle: the payloads and the rules ask here.
    public func azimuthDegrees(deviceHasAoA: Bool) -> Double? {
        deviceHasAoA && aoaAzimuthFOM > 0 ? aoaAzimuth.degrees : nil
    }

    /// The elevation in degrees, on the same terms as `azimuthDegrees(deviceHasAoA:)`.
    public func elevationDegrees(deviceHasAoA: Bool) -> Double? {
        deviceHasAoA && aoaElevationFOM > 0 ? aoaElevation.degrees : nil
    }

    /// True for NLoS, false for LoS, nil when undetermined.
    public var isNonLineOfSight: Bool? {
        switch nlosRaw { case 0: false; case 1: true; default: nil }
    }

    /// −raw/2 dBm, nil when the device did not report RSSI.
    public var rssiDBm: Double? { rssiRaw == 0 ? nil : -Double(rssiRaw) / 2 }

    init(_ reader: inout ByteReader, mode: MacAddressingMode) throws(UCIDecodingError) {
        macAddress = try MacAddress.read(&reader, mode: mode, "measurement mac_address")
        status = Status(rawValue: try reader.u8("measurement status"))
        nlosRaw = try reader.u8("measurement nlos")
        distanceRaw = try reader.u16("measurement distance")
        aoaAzimuth = try Q9_7Angle(&reader, "aoa_azimuth")
        aoaAzimuthFOM = try reader.u8("aoa_azimuth_fom")
        aoaElevation = try Q9_7Angle(&reader, "aoa_elevation")
        aoaElevationFOM = try reader.u8("aoa_elevation_fom")
        aoaDestinationAzimuth = try Q9_7Angle(&reader, "aoa_destination_azimuth")
        aoaDestinationAzimuthFOM = try reader.u8("aoa_destination_azimuth_fom")
        aoaDestinationElevation = try Q9_7Angle(&reader, "aoa_destination_elevation")
        aoaDestinationElevationFOM = try reader.u8("aoa_destination_elevation_fom")
        slotIndex = try reader.u8("slot_index")
        rssiRaw = try reader.u8("rssi")
        try reader.skip(mode == .short ? 11 : 5, "measurement RFU")
    }

    func encode(into bytes: inout [UInt8]) {
        macAddress.encode(into: &bytes)
        bytes.append(status.rawValue)
        bytes.append(nlosRaw)
        bytes.append16(distanceRaw)
        for (angle, fom) in [(aoaAzimuth, aoaAzimuthFOM), (aoaElevation, aoaElevationFOM),
                             (aoaDestinationAzimuth, aoaDestinationAzimuthFOM),
                             (aoaDestinationElevation, aoaDestinationElevationFOM)] {
            angle.encode(into: &bytes)
            bytes.append(fom)
        }
        bytes.append(slotIndex)
        bytes.append(rssiRaw)
        bytes.append(contentsOf: repeatElement(0, count: macAddress.size == 2 ? 11 : 5))
    }
}
