import Testing
import UCI

/// Every vector of uci.md §7 decodes to what the source says it means.
@Suite struct VectorTests {
    @Test func v1ResetSequence() throws {
        #expect(try decodePacket(Vectors.v1Command) == .command(.coreDeviceReset(resetConfig: 0)))
        let reply = try decodeStream(Vectors.v1Reply)
        #expect(reply == [.notification(.coreDeviceStatus(.ready)), .response(.coreDeviceReset(status: .ok)),
                          .notification(.coreDeviceStatus(.ready))])
    }

    @Test func v2DeviceInfo() throws {
        #expect(try decodePacket([0x20, 0x02, 0x00, 0x00]) == .command(.coreGetDeviceInfo))
        guard case let .response(.coreGetDeviceInfo(status, info?)) = try decodePacket(Vectors.v2DeviceInfoRsp) else {
            Issue.record("not a device info response"); return
        }
        #expect(status == .ok)
        #expect(info.uciVersion.description == "2.0.0")
        #expect(info.macVersion.description == "2.0.0")
        #expect(info.phyVersion.description == "2.0.0")
        #expect(info.uciTestVersion.description == "1.1.0")
        #expect(info.vendorInfo.count == 52)
        #expect(info.qorvo?.firmwareVersionString == "1.1.0-rc0")
        #expect(info.qorvo?.deviceID == 0xDECA0302)
        #expect(info.qorvo?.packageID == 0)
    }

    @Test func v2AsPublishedIsALengthMismatch() {
        #expect(throws: UCIDecodingError.lengthMismatch(declared: 62, actual: 63)) { try Packet(decoding: Vectors.v2AsPublished) }
    }

    @Test func v2AsPublishedInAStreamLeavesOneGarbageByte() throws {
        var reassembler = Reassembler()
        let events = reassembler.feed(Vectors.v2AsPublished + Vectors.v1Reply)
        guard case let .message(first) = events.first else { Issue.record("no message"); return }
        #expect(first.name == "CORE_GET_DEVICE_INFO_RSP")
        #expect(events.contains(.discarded(.init(reason: .notAPacket, byteCount: 1, sample: [0x00]))))
        #expect(events.filter { if case .message = $0 { true } else { false } }.count == 4)
    }

    @Test func v3Capabilities() throws {
        guard case let .response(.coreGetCapsInfo(status, caps)) = try decodePacket(Vectors.v3CapsRsp) else {
            Issue.record("not caps"); return
        }
        #expect(status == .ok)
        #expect(caps.count == 26)
        #expect(caps.first == ConfigTLV(id: 0x00, value: [0x03, 0x01]))
        #expect(caps.first { $0.id == 0x13 }?.value == [0x00]) // AoA support: none
        #expect(caps.first { $0.id == 0x14 }?.value == [0x00]) // extended MAC: none
        #expect(caps.first { $0.id == 0x0F }?.value == [0x0A]) // RFRAME SP1+SP3
    }

    @Test func v4SessionInitWithHandle() throws {
        #expect(try decodePacket(Vectors.v4InitCmd) == .command(.sessionInit(sessionID: 7, sessionType: .firaRangingSession)))
        #expect(try decodeStream(Vectors.v4Reply) == [
            .response(.sessionInit(status: .ok, sessionHandle: 1)),
            .notification(.sessionStatus(sessionHandle: 1, state: .initialized, reason: .stateChangeWithSessionManagementCommands)),
        ])
    }

    @Test func v5SessionInit42() throws {
        #expect(try decodePacket(Vectors.v5InitCmd) == .command(.sessionInit(sessionID: 42, sessionType: .firaRangingSession)))
    }

    @Test func v6SetAppConfigIsTheDSTWRSet() throws {
        let expected = UCICommand.sessionSetAppConfig(
            sessionHandle: 1, AppConfigParameter.dsTWR(role: .controller, ownAddress: 0x0000, peers: [0x0001]))
        #expect(try decodePacket(Vectors.v6SetAppConfigCmd) == .command(expected))
        #expect(expected.raw.encoded() == Vectors.v6SetAppConfigCmd)
        #expect(try decodeStream(Vectors.v6Reply) == [
            .response(.sessionSetAppConfig(status: .ok, failed: [])),
            .notification(.sessionStatus(sessionHandle: 1, state: .idle, reason: 0)),
        ])
    }

    @Test func v6ParametersAreTyped() throws {
        guard case let .command(.sessionSetAppConfig(_, tlvs)) = try decodePacket(Vectors.v6SetAppConfigCmd) else {
            Issue.record("not set app config"); return
        }
        let typed = try tlvs.map { try AppConfigParameter($0) }
        #expect(typed.contains(.slotDuration(2400)))
        #expect(typed.contains(.rangingDuration(200)))
        #expect(typed.contains(.vendorID(0x0708)))
        #expect(typed.contains(.dstMacAddresses([.short(1)])))
        #expect(typed.contains(.staticSTSIV([1, 2, 3, 4, 5, 6])))
        #expect(typed.contains(.rangingRoundUsage(.dsTWRDeferred)))
    }

    @Test func v7TwentySevenParameters() throws {
        guard case let .command(.sessionSetAppConfig(handle, tlvs)) = try decodePacket(Vectors.v7SetAppConfigCmd) else {
            Issue.record("not set app config"); return
        }
        #expect(handle == 1)
        #expect(tlvs.count == 27)
        #expect(tlvs.first { $0.id == AppConfigID.uwbInitiationTime.rawValue }?.value == [UInt8](repeating: 0, count: 8))
        #expect(tlvs.first { $0.id == AppConfigID.resultReportConfig.rawValue }?.value == [0x0B])
        #expect(try tlvs.map { try AppConfigParameter($0) }.count == 27)
    }

    @Test func v8StateAndCount() throws {
        #expect(try decodePacket(Vectors.v8GetStateCmd) == .command(.sessionGetState(sessionHandle: 1)))
        #expect(try decodePacket(Vectors.v8GetStateRsp) == .response(.sessionGetState(status: .ok, state: .initialized)))
        #expect(try decodePacket(Vectors.v8GetCountCmd) == .command(.sessionGetCount))
        #expect(try decodePacket(Vectors.v8GetCountRsp1) == .response(.sessionGetCount(status: .ok, count: 1)))
        #expect(try decodePacket(Vectors.v8GetCountRsp0) == .response(.sessionGetCount(status: .ok, count: 0)))
    }

    @Test func v9StartUnconfigured() throws {
        #expect(try decodePacket(Vectors.v9StartCmd) == .command(.sessionStart(sessionHandle: 1)))
        #expect(try decodePacket(Vectors.v9StartRsp) == .response(.sessionStart(status: .sessionNotConfigured)))
        #expect(Status.sessionNotConfigured.description == "ERROR_SESSION_NOT_CONFIGURED")
    }

    @Test func v10StartReply() throws {
        #expect(try decodeStream(Vectors.v10Reply) == [
            .response(.sessionStart(status: .ok)), .notification(.coreDeviceStatus(.active)),
            .notification(.sessionStatus(sessionHandle: 1, state: .active, reason: 0)),
        ])
    }

    @Test func v11RxTimeout() throws {
        for (index, bytes) in [Vectors.v11Ntf0, Vectors.v11Ntf1].enumerated() {
            guard case let .notification(.sessionInfo(info)) = try decodePacket(bytes) else {
                Issue.record("not a session info"); return
            }
            #expect(info.sequenceNumber == UInt32(index))
            #expect(info.sessionHandle == 1)
            #expect(info.currentRangingInterval == 200)
            #expect(info.measurementType == .twoWay)
            #expect(info.macAddressingMode == .short)
            let m = try #require(info.twoWayMeasurements.first)
            #expect(info.twoWayMeasurements.count == 1)
            #expect(m.macAddress == .short(0x0001))
            #expect(m.status == .rangingRxTimeout)
            #expect(m.nlosRaw == 0xFF && m.isNonLineOfSight == nil)
            #expect(m.distanceRaw == 0xFFFF && m.distanceCentimeters == nil)
            #expect(m.aoaAzimuthFOM == 0 && m.aoaAzimuth.raw == 0)
            #expect(m.slotIndex == 2)
            #expect(m.rssiDBm == nil)
            #expect(info.vendorData.isEmpty)
        }
    }

    @Test func v12CountAndDeinit() throws {
        #expect(try decodePacket(Vectors.v12RangingCountCmd) == .command(.sessionGetRangingCount(sessionHandle: 1)))
        #expect(try decodePacket(Vectors.v12RangingCountRsp) == .response(.sessionGetRangingCount(status: .ok, count: 0)))
        #expect(try decodePacket(Vectors.v12DeinitCmd) == .command(.sessionDeinit(sessionHandle: 1)))
        #expect(try decodeStream(Vectors.v12DeinitReply) == [
            .response(.sessionDeinit(status: .ok)),
            .notification(.sessionStatus(sessionHandle: 1, state: .deinitialized, reason: 0)),
        ])
    }

    @Test func v13Stop() throws {
        #expect(try decodePacket(Vectors.v13StopCmd) == .command(.sessionStop(sessionHandle: 1)))
        #expect(try decodeStream(Vectors.v13Reply) == [
            .response(.sessionStop(status: .ok)),
            .notification(.sessionStatus(sessionHandle: 1, state: .idle, reason: 0)),
            .notification(.coreDeviceStatus(.ready)),
        ])
    }

    @Test(arguments: [(Vectors.v14, 9, 7), (Vectors.v15, 10, 4), (Vectors.v16, 11, 7), (Vectors.v17, 12, 12)])
    func v14to17SuccessfulRanging(bytes: [UInt8], sequence: Int, centimetres: Int) throws {
        guard case let .notification(.sessionInfo(info)) = try decodePacket(bytes) else { Issue.record("not info"); return }
        #expect(info.sequenceNumber == UInt32(sequence))
        #expect(info.sessionHandle == 42)
        let m = try #require(info.twoWayMeasurements.first)
        #expect(m.status == .ok)
        #expect(m.isNonLineOfSight == false)
        #expect(m.distanceCentimeters == centimetres)
        #expect([m.aoaAzimuthFOM, m.aoaElevationFOM, m.aoaDestinationAzimuthFOM, m.aoaDestinationElevationFOM] == [0, 0, 0, 0])
    }

    @Test func v18RangeDiagnostics() throws {
        guard case let .notification(.rangeDiagnostics(d)) = try decodePacket(Vectors.v18) else { Issue.record("not diag"); return }
        #expect(d.sessionHandle == 42)
        #expect(d.sequenceNumber == 8)
        #expect(d.reports.map(\.messageName) == ["CM", "RIM", "RRM", "RFM", "MRM", "RRRM"])
        #expect(d.reports.map(\.action) == [1, 1, 0, 1, 1, 0])
        #expect(d.reports.allSatisfy { $0.fields.isEmpty })
    }

    @Test func v19DecodeUCIReadme() throws {
        #expect(try decodePacket(Vectors.v19[0]) == .command(.coreGetDeviceInfo))
        #expect(try decodePacket(Vectors.v19[1]) == .response(.sessionSetAppConfig(status: .ok, failed: [])))
        #expect(try decodePacket(Vectors.v19[2]) == .response(.sessionInit(status: .ok, sessionHandle: nil)))
        #expect(try decodePacket(Vectors.v19[3]) == .notification(.sessionStatus(sessionHandle: 42, state: .initialized, reason: 0)))
    }

    @Test func v20AndroidSynthetic() throws {
        #expect(try decodePacket(Vectors.v20[0]) == .notification(.coreGenericError(.rejected)))
        #expect(try decodePacket(Vectors.v20[1]) == .notification(.coreDeviceStatus(.ready)))
        #expect(try decodePacket(Vectors.v20[2]) == .notification(.sessionStatus(sessionHandle: 0x04030201, state: .active, reason: 0x21)))
        #expect(try decodePacket(Vectors.v20[3]) == .response(.sessionInit(status: .sessionNotExist, sessionHandle: nil)))
        guard case let .response(.coreGetDeviceInfo(status, info?)) = try decodePacket(Vectors.v20[4]) else {
            Issue.record("not device info"); return
        }
        #expect(status == .rejected)
        #expect(info.vendorInfo == [0x0A])
    }

    @Test(arguments: [(Vectors.v21, MacAddressingMode.short), (Vectors.v22, MacAddressingMode.extended)])
    func v21v22EmptyRangeData(bytes: [UInt8], mode: MacAddressingMode) throws {
        guard case let .notification(.sessionInfo(info)) = try decodePacket(bytes) else { Issue.record("not info"); return }
        #expect(info.sequenceNumber == 0x04030200)
        #expect(info.sessionHandle == 0x08070605)
        #expect(info.currentRangingInterval == 0x0101010A)
        #expect(info.measurementType == .twoWay)
        #expect(info.macAddressingMode == mode)
        #expect(info.twoWayMeasurements.isEmpty)
    }

    @Test func v23FragmentedVendorNotification() throws {
        var reassembler = Reassembler()
        let events = reassembler.feed(Vectors.v23Fragments.joined())
        #expect(events == [.message(RawMessage(messageType: .notification, gid: 9, oid: 1, payload: Vectors.v23Payload))])
        let message = try UCIMessage(decoding: RawMessage(messageType: .notification, gid: 9, oid: 1, payload: Vectors.v23Payload))
        #expect(message == .notification(.unknown(gid: 9, oid: 1, payload: Vectors.v23Payload)))
        #expect(message.name == "UNKNOWN")
        // And the encoder splits it exactly as the vector does.
        #expect(message.encoded() == Array(Vectors.v23Fragments.joined()))
    }

    @Test func q97AnglesAndNegativeDistance() throws {
        // 0xFEAB = −341 → −2.664°; −1361/128 = −10.6328125° (uci.md §5.2).
        #expect(Q9_7Angle(raw: Int16(bitPattern: 0xFEAB)).degrees == -2.6640625)
        #expect(Q9_7Angle(raw: -1361).degrees == -10.6328125)
        #expect(Q9_7Angle(degrees: -10.6328125).raw == -1361)
        let m = TwoWayRangingMeasurement(macAddress: .short(1), status: .okNegativeDistanceReport, distanceRaw: 12)
        #expect(m.distanceCentimeters == -12)
        #expect(TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: 0, rssiRaw: 0x91).rssiDBm == -72.5)
    }

    @Test func macAddressNotation() {
        #expect(MacAddress.short(0x0001).description == "0x0001")
        #expect(MacAddress.short(0x01AA).description == "0x01AA")
        #expect(MacAddress.extended(0x0102030405060708).description == "0x0102030405060708")
    }

    @Test func codeNames() {
        #expect(Status(rawValue: 0x21).description == "RANGING_RX_TIMEOUT")
        #expect(Status(rawValue: 0x0D).description == "0x0D")
        #expect(DeviceState.error.description == "DEVICE_STATE_ERROR")
        #expect(SessionState.idle.description == "SESSION_STATE_IDLE")
        #expect(ReasonCode(rawValue: 0x01).description == "MAX_RANGING_ROUND_RETRY_COUNT_REACHED")
        #expect(ReasonCode(rawValue: 0x10).description == "0x10")
        #expect(AppConfigID.stsLength.description == "STS_LENGTH")
    }
}
