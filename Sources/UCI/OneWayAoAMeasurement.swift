/// One result of an OWR-AoA ranging notification (measurement type 3, uci.md §5.4): an angle of
/// arrival measured from an advertiser's frame, without distance.
public struct OneWayAoAMeasurement: Hashable, Sendable {
    public var macAddress: MacAddress
    public var status: Status
    public var nlosRaw: UInt8
    public var frameSequenceNumber: UInt8
    public var blockIndex: UInt16
    public var aoaAzimuth: Q9_7Angle
    public var aoaAzimuthFOM: UInt8
    public var aoaElevation: Q9_7Angle
    public var aoaElevationFOM: UInt8

    public init(macAddress: MacAddress, status: Status = .ok, nlosRaw: UInt8 = 0, frameSequenceNumber: UInt8 = 0,
                blockIndex: UInt16 = 0, aoaAzimuth: Q9_7Angle = Q9_7Angle(raw: 0), aoaAzimuthFOM: UInt8 = 0,
                aoaElevation: Q9_7Angle = Q9_7Angle(raw: 0), aoaElevationFOM: UInt8 = 0) {
        self.macAddress = macAddress
        self.status = status
        self.nlosRaw = nlosRaw
        self.frameSequenceNumber = frameSequenceNumber
        self.blockIndex = blockIndex
        self.aoaAzimuth = aoaAzimuth
        self.aoaAzimuthFOM = aoaAzimuthFOM
        self.aoaElevation = aoaElevation
        self.aoaElevationFOM = aoaElevationFOM
    }

    public static func size(_ mode: MacAddressingMode) -> Int { mode.addressSize + 11 }

    init(_ reader: inout ByteReader, mode: MacAddressingMode) throws(UCIDecodingError) {
        macAddress = try MacAddress.read(&reader, mode: mode, "measurement mac_address")
        status = Status(rawValue: try reader.u8("measurement status"))
        nlosRaw = try reader.u8("measurement nlos")
        frameSequenceNumber = try reader.u8("frame_sequence_number")
        blockIndex = try reader.u16("block_index")
        aoaAzimuth = try Q9_7Angle(&reader, "aoa_azimuth")
        aoaAzimuthFOM = try reader.u8("aoa_azimuth_fom")
        aoaElevation = try Q9_7Angle(&reader, "aoa_elevation")
        aoaElevationFOM = try reader.u8("aoa_elevation_fom")
    }

    func encode(into bytes: inout [UInt8]) {
        macAddress.encode(into: &bytes)
        bytes.append(status.rawValue)
        bytes.append(nlosRaw)
        bytes.append(frameSequenceNumber)
        bytes.append16(blockIndex)
        aoaAzimuth.encode(into: &bytes)
        bytes.append(aoaAzimuthFOM)
        aoaElevation.encode(into: &bytes)
        bytes.append(aoaElevationFOM)
    }
}
