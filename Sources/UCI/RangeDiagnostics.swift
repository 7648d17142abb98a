/// Qorvo's QORVO_FIRA_RANGE_DIAGNOSTICS_NTF (GID 0xB OID 0x03, uci.md §6.3): per ranging round,
/// a report for each frame exchanged, sent after SESSION_INFO_NTF when ENABLE_DIAGNOSTICS = 1.
public struct RangeDiagnostics: Hashable, Sendable {
    public var sessionHandle: UInt32
    public var sequenceNumber: UInt32
    public var reports: [FrameReport]

    public init(sessionHandle: UInt32, sequenceNumber: UInt32, reports: [FrameReport]) {
        self.sessionHandle = sessionHandle
        self.sequenceNumber = sequenceNumber
        self.reports = reports
    }

    /// One frame of the round: which message, sent or received, on which antenna set.
    public struct FrameReport: Hashable, Sendable {
        /// 0 RIM, 1 RRM, 2 RFM, 3 CM, 4 MRM, 5 RRRM, 6 CU, 0xFF undefined.
        public var messageID: UInt8
        /// 0 RX, 1 TX.
        public var action: UInt8
        public var antennaSet: UInt8
        /// Tag-length(2, LE)-value fields: 0x1 AoAs, 0x3 frame status, 0x4 CFO, 0x5 emitter address,
        /// 0x6 segment metrics, 0x7 CIRs.
        public var fields: [ConfigTLV]

        public init(messageID: UInt8, action: UInt8, antennaSet: UInt8, fields: [ConfigTLV] = []) {
            self.messageID = messageID
            self.action = action
            self.antennaSet = antennaSet
            self.fields = fields
        }

        public var messageName: String {
            switch messageID {
            case 0: "RIM"; case 1: "RRM"; case 2: "RFM"; case 3: "CM"; case 4: "MRM"; case 5: "RRRM"; case 6: "CU"
            default: hexByte(messageID)
            }
        }
    }

    init(decoding payload: [UInt8]) throws(UCIDecodingError) {
        var reader = ByteReader(payload, message: "QORVO_FIRA_RANGE_DIAGNOSTICS_NTF")
        sessionHandle = try reader.u32("session_handle")
        sequenceNumber = try reader.u32("sequence_number")
        let count = try reader.count("number of reports", minimumEntrySize: 4)
        reports = []
        for _ in 0..<count {
            let id = try reader.u8("msg_id"), action = try reader.u8("action"), antenna = try reader.u8("antenna_set")
            let fieldCount = try reader.count("number of fields", minimumEntrySize: 3)
            var fields: [ConfigTLV] = []
            for _ in 0..<fieldCount {
                let tag = try reader.u8("field tag")
                let length = Int(try reader.u16("field length"))
                fields.append(ConfigTLV(id: tag, value: try reader.bytes(length, "field value")))
            }
            reports.append(FrameReport(messageID: id, action: action, antennaSet: antenna, fields: fields))
        }
        try reader.expectEnd()
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.append32(sessionHandle)
        bytes.append32(sequenceNumber)
        bytes.append(UInt8(truncatingIfNeeded: reports.count))
        for report in reports {
            bytes.append(report.messageID)
            bytes.append(report.action)
            bytes.append(report.antennaSet)
            bytes.append(UInt8(truncatingIfNeeded: report.fields.count))
            for field in report.fields {
                bytes.append(field.id)
                bytes.append16(UInt16(truncatingIfNeeded: field.value.count))
                bytes.append(contentsOf: field.value)
            }
        }
    }
}
