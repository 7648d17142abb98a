import Testing
import UCI

/// Every message type survives encode → bytes → reassemble → decode unchanged.
@Suite struct RoundTripTests {
    static let twr = TwoWayRangingMeasurement(
        macAddress: .short(0x01AA), status: .ok, nlosRaw: 1, distanceRaw: 321,
        aoaAzimuth: Q9_7Angle(degrees: -10.5), aoaAzimuthFOM: 87, aoaElevation: Q9_7Angle(degrees: 12.25),
        aoaElevationFOM: 60, aoaDestinationAzimuth: Q9_7Angle(degrees: 3), aoaDestinationAzimuthFOM: 10,
        aoaDestinationElevation: Q9_7Angle(degrees: -4), aoaDestinationElevationFOM: 11, slotIndex: 3, rssiRaw: 140)

    static let messages: [UCIMessage] = [
        .command(.coreDeviceReset(resetConfig: 0)),
        .command(.coreGetDeviceInfo),
        .command(.coreGetCapsInfo),
        .command(.coreSetConfig([ConfigTLV(id: DeviceConfigID.lowPowerMode, value: [0])])),
        .command(.coreGetConfig([0x00, 0x01])),
        .command(.coreQueryUWBSTimestamp),
        .command(.sessionInit(sessionID: 42, sessionType: .firaRangingSession)),
        .command(.sessionDeinit(sessionHandle: 0x8000_0003)),
        .command(.sessionSetAppConfig(sessionHandle: 1, AppConfigParameter.dsTWR(role: .controller, ownAddress: 0,
                                                                                peers: [1, 2, 3], aoa: true))),
        .command(.sessionGetAppConfig(sessionHandle: 1, ids: [0x00, 0x09])),
        .command(.sessionGetCount),
        .command(.sessionGetState(sessionHandle: 1)),
        .command(.sessionUpdateControllerMulticastList(sessionHandle: 1, action: .add,
                                                       controlees: [Controlee(shortAddress: 4, subSessionID: 9)])),
        .command(.sessionUpdateControllerMulticastList(sessionHandle: 1, action: .addWith16ByteSubSessionKey,
                                                       controlees: [Controlee(shortAddress: 5, subSessionID: 1,
                                                                              subSessionKey: Array(0..<16))])),
        .command(.sessionStart(sessionHandle: 1)),
        .command(.sessionStop(sessionHandle: 1)),
        .command(.sessionGetRangingCount(sessionHandle: 1)),
        .command(.unknown(gid: 0xE, oid: 0x2B, payload: [1, 2, 3])),
        .response(.coreDeviceReset(status: .ok)),
        .response(.coreGetDeviceInfo(status: .ok, info: DeviceInfo(
            uciVersion: UCIVersion(major: 2, minor: 0), macVersion: UCIVersion(major: 2, minor: 0),
            phyVersion: UCIVersion(major: 2, minor: 0), uciTestVersion: UCIVersion(major: 1, minor: 1),
            vendorInfo: Array(repeating: 7, count: 52)))),
        .response(.coreGetDeviceInfo(status: .rejected, info: nil)),
        .response(.coreGetCapsInfo(status: .ok, capabilities: [ConfigTLV(id: 0x13, value: [0])])),
        .response(.coreSetConfig(status: .invalidParam, failed: [ConfigStatus(id: 1, status: .readOnly)])),
        .response(.coreGetConfig(status: .ok, parameters: [ConfigTLV(id: 0, value: [1])])),
        .response(.coreQueryUWBSTimestamp(status: .ok, timestamp: 0x0102030405060708)),
        .response(.sessionInit(status: .ok, sessionHandle: 0x8000_0007)),
        .response(.sessionInit(status: .ok, sessionHandle: nil)),
        .response(.sessionDeinit(status: .ok)),
        .response(.sessionSetAppConfig(status: .invalidParam, failed: [ConfigStatus(id: 0x07, status: .invalidRange)])),
        .response(.sessionGetAppConfig(status: .ok, parameters: [ConfigTLV(id: 0x09, value: [200, 0, 0, 0])])),
        .response(.sessionGetCount(status: .ok, count: 1)),
        .response(.sessionGetState(status: .ok, state: .active)),
        .response(.sessionGetState(status: .sessionNotExist, state: nil)),
        .response(.sessionUpdateControllerMulticastList(status: .ok, controlees: [ControleeStatus(shortAddress: 4, status: .ok)])),
        .response(.sessionUpdateControllerMulticastList(status: .ok, controlees: nil)),
        .response(.sessionStart(status: .sessionNotConfigured)),
        .response(.sessionStop(status: .ok)),
        .response(.sessionGetRangingCount(status: .ok, count: 123_456)),
        .response(.unknown(gid: 0xE, oid: 0x2B, payload: [0, 4, 0, 0, 0])),
        .notification(.coreDeviceStatus(.error)),
        .notification(.coreGenericError(.commandRetry)),
        .notification(.sessionStatus(sessionHandle: 1, state: .idle, reason: .maxRangingRoundRetryCountReached)),
        .notification(.sessionUpdateControllerMulticastList(MulticastListUpdate(
            sessionHandle: 1, controlees: [ControleeStatus(shortAddress: 4, status: .ok)]))),
        .notification(.sessionUpdateControllerMulticastList(MulticastListUpdate(
            sessionHandle: 1, remainingMulticastListSize: 6,
            controlees: [ControleeStatus(shortAddress: 4, subSessionID: 9, status: 0x07)]))),
        .notification(.sessionInfo(SessionInfo(sequenceNumber: 7, sessionHandle: 1, currentRangingInterval: 200,
                                               measurements: .twoWay([twr, TwoWayRangingMeasurement(
                                                   macAddress: .short(2), status: .rangingRxTimeout, nlosRaw: 0xFF,
                                                   distanceRaw: 0xFFFF, slotIndex: 2)])))),
        .notification(.sessionInfo(SessionInfo(sequenceNumber: 1, sessionHandle: 2, currentRangingInterval: 100,
                                               macAddressingMode: .extended,
                                               measurements: .twoWay([TwoWayRangingMeasurement(
                                                   macAddress: .extended(0x1122_3344_5566_7788), distanceRaw: 5)]),
                                               vendorData: [0xAA, 0xBB]))),
        .notification(.sessionInfo(SessionInfo(sequenceNumber: 3, sessionHandle: 1, currentRangingInterval: 100,
                                               measurements: .oneWayAoA([OneWayAoAMeasurement(
                                                   macAddress: .short(0xBBAA), frameSequenceNumber: 1, blockIndex: 1,
                                                   aoaAzimuth: Q9_7Angle(raw: 0x0403), aoaAzimuthFOM: 0x60,
                                                   aoaElevation: Q9_7Angle(raw: 0x0605), aoaElevationFOM: 0x50)])))),
        .notification(.sessionInfo(SessionInfo(sequenceNumber: 4, sessionHandle: 1, currentRangingInterval: 100,
                                               measurements: .downlinkTDoA([
                                                   DownlinkTDoAMeasurement(macAddress: .short(1), messageControl: 0x0553,
                                                                           txTimestamp: 0x0102030405060708, rxTimestamp: 0x0102030405,
                                                                           anchorLocation: Array(0..<10),
                                                                           activeRangingRounds: Array(0..<10)),
                                                   DownlinkTDoAMeasurement(macAddress: .short(2), messageControl: 0x0533,
                                                                           anchorLocation: Array(0..<12),
                                                                           activeRangingRounds: Array(0..<10)),
                                               ])))),
        .notification(.sessionInfo(SessionInfo(sequenceNumber: 5, sessionHandle: 1, currentRangingInterval: 100,
                                               measurements: .other(type: .oneWay, bytes: [0, 1, 2])))),
        .notification(.rangeDiagnostics(RangeDiagnostics(sessionHandle: 42, sequenceNumber: 8, reports: [
            .init(messageID: 3, action: 1, antennaSet: 0, fields: [ConfigTLV(id: 0x4, value: [1, 2, 3, 4])]),
        ]))),
        .notification(.unknown(gid: 9, oid: 1, payload: Array(repeating: 0x55, count: 300))),
        .other(RawMessage(messageType: .data, gid: 2, oid: 0, payload: Array(0..<20))),
    ]

    @Test(arguments: messages)
    func encodeThenDecodeIsIdentity(_ message: UCIMessage) throws {
        let bytes = message.encoded()
        var reassembler = Reassembler(accepting: Set(MessageType.allCases))
        let events = reassembler.feed(bytes)
        #expect(events.count == 1)
        guard case let .message(raw) = events.first else { Issue.record("no message"); return }
        #expect(raw == message.raw)
        #expect(try UCIMessage(decoding: raw) == message)
        #expect(!message.name.isEmpty)
        _ = message.fields
    }

    @Test func typedAppConfigParametersRoundTrip() throws {
        let all: [AppConfigParameter] = AppConfigParameter.dsTWR(role: .controlee, ownAddress: 2, peers: [0],
                                                                  multiNode: .oneToMany, aoa: true)
            + [.rssiReporting(true), .prfMode(.bprf62_4MHz), .macAddressMode(.short), .resultReportConfig(0x0B),
               .enableDiagnostics(true), .other(ConfigTLV(id: 0xE9, value: [0x02]))]
        for parameter in all {
            #expect(try AppConfigParameter(parameter.tlv) == parameter)
        }
    }

    @Test func dsTWROneToManyStatesTheControlees() {
        let list = AppConfigParameter.dsTWR(role: .controller, ownAddress: 0, peers: [1, 2])
        #expect(list.contains(.multiNodeMode(.oneToMany)))
        #expect(list.contains(.numberOfControlees(2)))
        #expect(list.contains(.dstMacAddresses([.short(1), .short(2)])))
        #expect(list.count == 19)
        #expect(AppConfigParameter.dsTWR(role: .controller, ownAddress: 0, peers: [1]).count == 18)
    }

    @Test func segmentationOfALongMessage() {
        let raw = RawMessage(messageType: .command, gid: 1, oid: 3, payload: Array(repeating: 0xAB, count: 600))
        let packets = raw.packets()
        #expect(packets.map(\.payload.count) == [255, 255, 90])
        #expect(packets.map(\.header.moreSegmentsFollow) == [true, true, false])
        #expect(packets.allSatisfy { $0.header.gid == 1 && $0.header.oid == 3 && $0.header.messageType == .command })
        #expect(RawMessage(messageType: .command, gid: 0, oid: 2).packets().count == 1)
        // An exact multiple of 255 does not produce an empty trailing segment.
        #expect(RawMessage(messageType: .command, gid: 0, oid: 2, payload: Array(repeating: 1, count: 510)).packets().count == 2)
    }

    @Test func dataPacketsUseATwoByteLength() throws {
        let raw = RawMessage(messageType: .data, gid: 1, oid: 0, payload: Array(repeating: 9, count: 300))
        let bytes = raw.encoded(maximumSegmentPayload: 1000)
        #expect(Array(bytes.prefix(4)) == [0x01, 0x00, 0x2C, 0x01])
        let packet = try Packet(decoding: bytes)
        #expect(packet.header.payloadLength == 300)
        #expect(packet.header.messageType == .data)
    }
}
