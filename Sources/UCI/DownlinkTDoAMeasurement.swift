/// One result of a DL-TDoA ranging notification (measurement type 2, uci.md §5.4): what a tag
/// heard from one anchor. Its length varies: `messageControl` bit 1 and bit 3 select 5- or
/// 8-byte TX/RX timestamps, bits 5–6 the anchor location (none, 12-byte WGS-84, 10-byte
/// relative), bits 7–10 the number of active ranging rounds (one byte each) — as Android's
/// `DlTdoaRangingMeasurement::parse_one` reads it.
public struct DownlinkTDoAMeasurement: Hashable, Sendable {
    public var macAddress: MacAddress
    public var status: Status
    public var messageType: UInt8
    public var messageControl: UInt16
    public var blockIndex: UInt16
    public var roundIndex: UInt8
    public var nlosRaw: UInt8
    public var aoaAzimuth: Q9_7Angle
    public var aoaAzimuthFOM: UInt8
    public var aoaElevation: Q9_7Angle
    public var aoaElevationFOM: UInt8
    public var rssiRaw: UInt8
    public var txTimestamp: UInt64
    public var rxTimestamp: UInt64
    public var anchorCFO: UInt16
    public var cfo: UInt16
    public var initiatorReplyTime: UInt32
    public var responderReplyTime: UInt32
    public var initiatorResponderTOF: UInt16
    public var anchorLocation: [UInt8]
    public var activeRangingRounds: [UInt8]

    public init(macAddress: MacAddress, status: Status = .ok, messageType: UInt8 = 0, messageControl: UInt16 = 0,
                blockIndex: UInt16 = 0, roundIndex: UInt8 = 0, nlosRaw: UInt8 = 0,
                aoaAzimuth: Q9_7Angle = Q9_7Angle(raw: 0), aoaAzimuthFOM: UInt8 = 0,
                aoaElevation: Q9_7Angle = Q9_7Angle(raw: 0), aoaElevationFOM: UInt8 = 0, rssiRaw: UInt8 = 0,
                txTimestamp: UInt64 = 0, rxTimestamp: UInt64 = 0, anchorCFO: UInt16 = 0, cfo: UInt16 = 0,
                initiatorReplyTime: UInt32 = 0, responderReplyTime: UInt32 = 0, initiatorResponderTOF: UInt16 = 0,
                anchorLocation: [UInt8] = [], activeRangingRounds: [UInt8] = []) {
        self.macAddress = macAddress
        self.status = status
        self.messageType = messageType
        self.messageControl = messageControl
        self.blockIndex = blockIndex
        self.roundIndex = roundIndex
        self.nlosRaw = nlosRaw
        self.aoaAzimuth = aoaAzimuth
        self.aoaAzimuthFOM = aoaAzimuthFOM
        self.aoaElevation = aoaElevation
        self.aoaElevationFOM = aoaElevationFOM
        self.rssiRaw = rssiRaw
        self.txTimestamp = txTimestamp
        self.rxTimestamp = rxTimestamp
        self.anchorCFO = anchorCFO
        self.cfo = cfo
        self.initiatorReplyTime = initiatorReplyTime
        self.responderReplyTime = responderReplyTime
        self.initiatorResponderTOF = initiatorResponderTOF
        self.anchorLocation = anchorLocation
        self.activeRangingRounds = activeRangingRounds
    }

    static func timestampSize(_ control: UInt16, bit: UInt16) -> Int { control >> bit & 1 == 1 ? 8 : 5 }

    init(_ reader: inout ByteReader, mode: MacAddressingMode) throws(UCIDecodingError) {
        macAddress = try MacAddress.read(&reader, mode: mode, "measurement mac_address")
        status = Status(rawValue: try reader.u8("measurement status"))
        messageType = try reader.u8("message_type")
        messageControl = try reader.u16("message_control")
        blockIndex = try reader.u16("block_index")
        roundIndex = try reader.u8("round_index")
        nlosRaw = try reader.u8("nlos")
        aoaAzimuth = try Q9_7Angle(&reader, "aoa_azimuth")
        aoaAzimuthFOM = try reader.u8("aoa_azimuth_fom")
        aoaElevation = try Q9_7Angle(&reader, "aoa_elevation")
        aoaElevationFOM = try reader.u8("aoa_elevation_fom")
        rssiRaw = try reader.u8("rssi")
        txTimestamp = try reader.uint(Self.timestampSize(messageControl, bit: 1), "tx_timestamp")
        rxTimestamp = try reader.uint(Self.timestampSize(messageControl, bit: 3), "rx_timestamp")
        anchorCFO = try reader.u16("anchor_cfo")
        cfo = try reader.u16("cfo")
        initiatorReplyTime = try reader.u32("initiator_reply_time")
        responderReplyTime = try reader.u32("responder_reply_time")
        initiatorResponderTOF = try reader.u16("initiator_responder_tof")
        let locationSize: Int
        switch messageControl >> 5 & 0x3 {
        case 0: locationSize = 0
        case 1: locationSize = 12
        case 2: locationSize = 10
        default: throw .invalidValue(message: "SESSION_INFO_NTF", field: "DL-TDoA anchor location type", value: 3)
        }
        anchorLocation = try reader.bytes(locationSize, "anchor_location")
        activeRangingRounds = try reader.bytes(Int(messageControl >> 7 & 0xF), "active_ranging_rounds")
    }

    func encode(into bytes: inout [UInt8]) {
        macAddress.encode(into: &bytes)
        bytes.append(status.rawValue)
        bytes.append(messageType)
        bytes.append16(messageControl)
        bytes.append16(blockIndex)
        bytes.append(roundIndex)
        bytes.append(nlosRaw)
        aoaAzimuth.encode(into: &bytes)
        bytes.append(aoaAzimuthFOM)
        aoaElevation.encode(into: &bytes)
        bytes.append(aoaElevationFOM)
        bytes.append(rssiRaw)
        bytes.appendLE(txTimestamp, count: Self.timestampSize(messageControl, bit: 1))
        bytes.appendLE(rxTimestamp, count: Self.timestampSize(messageControl, bit: 3))
        bytes.append16(anchorCFO)
        bytes.append16(cfo)
        bytes.append32(initiatorReplyTime)
        bytes.append32(responderReplyTime)
        bytes.append16(initiatorResponderTOF)
        bytes.append(contentsOf: anchorLocation)
        bytes.append(contentsOf: activeRangingRounds)
    }
}
