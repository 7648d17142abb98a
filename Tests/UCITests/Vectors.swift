import UCI

/// The test vectors of uci.md §7, as bytes. "Real" ones were captured from hardware.
enum Vectors {
    static func bytes(_ hex: String) -> [UInt8] {
        do { return try Hex.bytes(hex) } catch { fatalError("bad test hex \(hex): \(error)") }
    }

    // V1 (real): reset command and the device's reply stream.
    static let v1Command = bytes("20 00 00 01 00")
    static let v1Reply = bytes("60 01 00 01 01 40 00 00 01 00 60 01 00 01 01")
    // V2 (real, with the published extra byte removed so that the length is right).
    static let v2DeviceInfoRsp = bytes("40 02 00 3e 00 02 00 02 00 02 00 01 10 34 01 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 50 56 34 58 32 30 0e e0 ca 09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02 03 ca de 00")
    // V2 exactly as published: one byte more than its header says.
    static let v2AsPublished = bytes("40 02 00 3e 00 02 00 02 00 02 00 01 10 34 01 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 50 56 34 58 32 30 0e e0 ca 09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02 03 ca de 00")
    static let v3CapsRsp = bytes("40 03 00 5e 00 1a 00 02 03 01 01 02 ff 00 02 04 02 00 02 00 03 04 02 00 02 00 04 01 03 05 02 03 00 06 02 1e 00 07 01 19 08 01 03 09 01 02 0a 01 02 0b 01 01 0c 01 01 0d 01 01 0e 01 09 0f 01 0a 10 01 01 11 01 3f 12 05 00 00 00 00 00 13 01 00 14 01 00 15 01 00 16 01 02 17 01 00 18 01 00 19 01 00")
    static let v4InitCmd = bytes("21 00 00 05 07 00 00 00 00")
    static let v4Reply = bytes("41 00 00 05 00 01 00 00 00 61 02 00 06 01 00 00 00 00 00")
    static let v5InitCmd = bytes("210000052a00000000")
    static let v6SetAppConfigCmd = bytes("21 03 00 47 01 00 00 00 12 00 01 01 11 01 01 03 01 00 01 01 02 06 02 00 00 07 02 01 00 04 01 09 02 01 00 12 01 03 22 01 01 14 01 0a 15 01 02 08 02 60 09 09 04 c8 00 00 00 1b 01 19 27 02 08 07 28 06 01 02 03 04 05 06 35 01 01")
    static let v6Reply = bytes("41 03 00 02 00 00 61 02 00 06 01 00 00 00 03 00")
    static let v7SetAppConfigCmd = bytes("2103006a010000001b000101110101030100010102060200000401092201010201001201032e010b2702080728060102030405060d01012b08000000000000000014010a150102080260090904c80000001b0119320200002c01001301002d010005010107020100240100350101")
    static let v8GetStateCmd = bytes("21 06 00 04 01 00 00 00")
    static let v8GetStateRsp = bytes("41 06 00 02 00 00")
    static let v8GetCountCmd = bytes("21 05 00 00")
    static let v8GetCountRsp1 = bytes("41 05 00 02 00 01")
    static let v8GetCountRsp0 = bytes("41 05 00 02 00 00")
    static let v9StartCmd = bytes("22 00 00 04 01 00 00 00")
    static let v9StartRsp = bytes("42 00 00 01 15")
    static let v10Reply = bytes("42 00 00 01 00 60 01 00 01 02 61 02 00 06 01 00 00 00 02 00")
    static let v11Ntf0 = bytes("62 00 00 38 00 00 00 00 01 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 01 00 21 ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00")
    static let v11Ntf1 = bytes("62 00 00 38 01 00 00 00 01 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 01 00 21 ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00")
    static let v12RangingCountCmd = bytes("22 03 00 04 01 00 00 00")
    static let v12RangingCountRsp = bytes("42 03 00 05 00 00 00 00 00")
    static let v12DeinitCmd = bytes("21 01 00 04 01 00 00 00")
    static let v12DeinitReply = bytes("41 01 00 01 00 61 02 00 06 01 00 00 00 01 00")
    static let v13StopCmd = bytes("22 01 00 04 01 00 00 00")
    static let v13Reply = bytes("42 01 00 01 00 61 02 00 06 01 00 00 00 03 00 60 01 00 01 01")
    static let v14 = bytes("62000038090000002a00000000c800000001000000000000000000000101000000070000000000000000000000000000000000000000000000000000")
    static let v15 = bytes("620000380a0000002a00000000c800000001000000000000000000000101000000040000000000000000000000000000000000000000000000000000")
    static let v16 = bytes("620000380b0000002a00000000c800000001000000000000000000000101000000070000000000000000000000000000000000000000000000000000")
    static let v17 = bytes("620000380c0000002a00000000c8000000010000000000000000000001010000000c0000000000000000000000000000000000000000000000000000")
    static let v18 = bytes("6b0300212a0000000800000006030100000001000001000000020100000401000005000000")
    static let v19 = [bytes("20.02.00.00"), bytes("410300020000"), bytes("41.00.00.01.00"), bytes("61.02.00.06.2a.00.00.00.00.00")]
    static let v20 = [
        bytes("0x60, 0x07, 0x00, 0x01, 0x01"), bytes("0x60, 0x01, 0x00, 0x01, 0x01"),
        bytes("0x61, 0x02, 0x00, 0x06, 0x01, 0x02, 0x03, 0x04, 0x02, 0x21"), bytes("0x41, 0x00, 0x00, 0x01, 0x11"),
        bytes("0x40, 0x02, 0x00, 0x0b, 0x01, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00, 0x01, 0x0a"),
    ]
    static let v21 = bytes("0x62, 0x00, 0x00, 0x19, 0x00, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x0a, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00")
    static let v22 = bytes("0x62, 0x00, 0x00, 0x19, 0x00, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x0a, 0x01, 0x01, 0x01, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00")

    /// V23's shape (the source gives only the first bytes): a 400-byte vendor notification
    /// (GID 9, OID 1) in a 255-byte segment with PBF and a 145-byte last segment.
    static let v23Payload: [UInt8] = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0x81) }
    static var v23Fragments: [[UInt8]] {
        [[0x79, 0x01, 0x00, 0xFF] + Array(v23Payload[0..<255]), [0x69, 0x01, 0x00, 0x91] + Array(v23Payload[255...])]
    }
}

/// Decodes one whole packet (no segmentation) into a typed message; test failures say why.
func decodePacket(_ bytes: [UInt8]) throws -> UCIMessage {
    let packet = try Packet(decoding: bytes)
    return try UCIMessage(decoding: RawMessage(messageType: packet.header.messageType, gid: packet.header.gid,
                                               oid: packet.header.oid, payload: packet.payload))
}

/// Splits a reply stream into typed messages with the host-side reassembler.
func decodeStream(_ bytes: [UInt8]) throws -> [UCIMessage] {
    var reassembler = Reassembler()
    var out: [UCIMessage] = []
    for event in reassembler.feed(bytes) {
        guard case let .message(raw) = event else { throw StreamError.discarded("\(event)") }
        out.append(try UCIMessage(decoding: raw))
    }
    return out
}

enum StreamError: Error { case discarded(String) }
