import Testing
import UCI
@testable import Simulator

@Suite("Bring-up as on the real firmware (uci.md §7)")
struct BringUpTests {
    @Test("V1: reset answers NTF READY, RSP OK, NTF READY, byte for byte")
    func resetSequence() throws {
        var device = try SimulatedDevice()
        let out = device.receive(hex("20 00 00 01 00"), at: 0)
        #expect(out.writtenBytes == hex("60 01 00 01 01 40 00 00 01 00 60 01 00 01 01"))
        #expect(out == [.write(hex("60 01 00 01 01")), .write(hex("40 00 00 01 00")), .write(hex("60 01 00 01 01"))])
    }

    @Test("status_delay_ms and status_reorder: status notifications come late or before the response, none lost")
    func lateAndReorderedStatus() throws {
        let scenario = Scenario(name: "late", seed: 3, device: ScenarioDevice(statusDelay: 0.003...0.020, statusReorder: true))
        var device = try SimulatedDevice(scenario: scenario)
        var before = 0, after = 0
        for trial in 0..<20 {
            let t = Double(trial)
            let out = messages(device.receive(wire(.coreDeviceReset()), at: t))
            let response = try #require(out.firstIndex { if case .response = $0 { true } else { false } })
            #expect(response == out.count - 1, "nothing is written right after the response")
            before += response
            #expect(device.advance(to: t + 0.0029).isEmpty, "a late notification is at least 3 ms late")
            let late = messages(device.advance(to: t + 0.020))
            after += late.count
            #expect(response + late.count == 2, "both READY notifications of a reset arrive")
            #expect(late.allSatisfy { $0 == .notification(.coreDeviceStatus(.ready)) })
        }
        #expect(before > 0 && after > 0)
    }

    @Test("an empty reset payload is a SYNTAX_ERROR and nothing else")
    func emptyReset() throws {
        var device = try SimulatedDevice()
        #expect(device.receive(hex("20 00 00 00"), at: 0).writtenBytes == hex("40 00 00 01 03"))
    }

    @Test("V2: device info is UCI 2.0.0 with the 52-byte Qorvo block")
    func deviceInfo() throws {
        var device = try SimulatedDevice()
        let out = device.receive(hex("20 02 00 00"), at: 0).writtenBytes
        #expect(Array(out.prefix(4)) == hex("40 02 00 3e"))
        #expect(out.count == 4 + 0x3E)
        let list = messages([.write(out)])
        guard case let .response(.coreGetDeviceInfo(.ok, info?))? = list.first else { Issue.record("\(list)"); return }
        #expect(info.uciVersion.description == "2.0.0")
        #expect(info.macVersion.description == "2.0.0")
        #expect(info.phyVersion.description == "2.0.0")
        #expect(info.uciTestVersion.description == "1.1.0")
        let qorvo = try #require(info.qorvo)
        #expect(qorvo.firmwareVersionString == "1.1.0-rc0")
        #expect(qorvo.deviceID == 0xDECA0302)
        #expect(qorvo.packageID == 0)
    }

    @Test("V3: capabilities are the 26 captured TLVs; AOA_SUPPORT follows the scenario")
    func capabilities() throws {
        let v3 = hex("""
            40 03 00 5e 00 1a 00 02 03 01 01 02 ff 00 02 04 02 00 02 00 03 04 02 00 02 00 04 01 03 05 02 03 00 06 02 1e 00 07 01 19 08
            01 03 09 01 02 0a 01 02 0b 01 01 0c 01 01 0d 01 01 0e 01 09 0f 01 0a 10 01 01 11 01 3f 12 05 00 00 00 00 00 13 01 00 14 01
            00 15 01 00 16 01 02 17 01 00 18 01 00 19 01 00
            """)
        var plain = try SimulatedDevice(scenario: .default)
        #expect(plain.receive(hex("20 03 00 00"), at: 0).writtenBytes == v3)

        var withAoA = try SimulatedDevice(scenario: .withAngles)
        let list = messages(withAoA.receive(hex("20 03 00 00"), at: 0))
        guard case let .response(.coreGetCapsInfo(.ok, caps))? = list.first else { Issue.record("\(list)"); return }
        #expect(caps.count == 26)
        #expect(caps.first { $0.id == 0x13 }?.value != [0])
    }

    @Test("full bring-up: reset, info, caps, init, config, start, rounds, stop, deinit")
    func fullBringUp() throws {
        var device = try SimulatedDevice(scenario: still([(1, 1.5)]))
        var t = 0.0

        var list = messages(device.receive(wire(.coreDeviceReset()), at: t))
        #expect(list.map(\.name) == ["CORE_DEVICE_STATUS_NTF", "CORE_DEVICE_RESET_RSP", "CORE_DEVICE_STATUS_NTF"])
        list = messages(device.receive(wire(.coreGetDeviceInfo), at: t))
        #expect(responses(list).first?.status == .ok)
        list = messages(device.receive(wire(.coreGetCapsInfo), at: t))
        #expect(responses(list).first?.status == .ok)

        // V4: handle 1 for session id 7, then SESSION_STATUS_NTF(INIT).
        let initBytes = device.receive(wire(.sessionInit(sessionID: 7)), at: t).writtenBytes
        #expect(initBytes == hex("41 00 00 05 00 01 00 00 00 61 02 00 06 01 00 00 00 00 00"))
        let handle: UInt32 = 1

        // V8: GET_STATE INIT, GET_COUNT 1.
        #expect(device.receive(hex("21 06 00 04 01 00 00 00"), at: t).writtenBytes == hex("41 06 00 02 00 00"))
        #expect(device.receive(hex("21 05 00 00"), at: t).writtenBytes == hex("41 05 00 02 00 01"))

        // V6: the 18 TLVs, OK with no failures, then IDLE.
        let v6 = hex("""
            21 03 00 47 01 00 00 00 12 00 01 01 11 01 01 03 01 00 01 01 02 06 02 00 00 07 02 01 00 04 01 09 02 01 00 12 01 03 22 01 01
            14 01 0a 15 01 02 08 02 60 09 09 04 c8 00 00 00 1b 01 19 27 02 08 07 28 06 01 02 03 04 05 06 35 01 01
            """)
        #expect(wire(.sessionSetAppConfig(sessionHandle: handle, AppConfigParameter.dsTWR(role: .controller, ownAddress: 0, peers: [1]))) == v6)
        #expect(device.receive(v6, at: t).writtenBytes == hex("41 03 00 02 00 00 61 02 00 06 01 00 00 00 03 00"))

        // V12 (first half): no rounds yet.
        #expect(device.receive(hex("22 03 00 04 01 00 00 00"), at: t).writtenBytes == hex("42 03 00 05 00 00 00 00 00"))

        // V10: START → RSP OK, DEVICE_STATUS ACTIVE, SESSION_STATUS ACTIVE.
        #expect(device.receive(hex("22 00 00 04 01 00 00 00"), at: t).writtenBytes
                == hex("42 00 00 01 00 60 01 00 01 02 61 02 00 06 01 00 00 00 02 00"))
        #expect(device.nextEventTime == 0.2)

        // Rounds every 200 ms with increasing sequence numbers.
        t = 1.0
        let infos = sessionInfos(messages(device.advance(to: t)))
        #expect(infos.map(\.sequenceNumber) == [0, 1, 2, 3, 4])
        for info in infos {
            #expect(info.sessionHandle == handle)
            #expect(info.currentRangingInterval == 200)
            #expect(info.measurementType == .twoWay)
            #expect(info.macAddressingMode == .short)
            #expect(info.twoWayMeasurements.count == 1)
            let m = info.twoWayMeasurements[0]
            #expect(m.macAddress == .short(1))
            #expect(m.status == .ok)
            #expect(m.distanceRaw == 150)
            #expect(m.nlosRaw == 0)
            #expect(m.rssiRaw == 0)
        }
        #expect(device.receive(wire(.sessionGetRangingCount(sessionHandle: handle)), at: t).writtenBytes == hex("42 03 00 05 00 05 00 00 00"))

        // V13: STOP → RSP, IDLE, READY; no more rounds.
        #expect(device.receive(hex("22 01 00 04 01 00 00 00"), at: t).writtenBytes
                == hex("42 01 00 01 00 61 02 00 06 01 00 00 00 03 00 60 01 00 01 01"))
        #expect(device.advance(to: 5).isEmpty)
        #expect(device.nextEventTime == nil)

        // V12: DEINIT → OK + DEINIT; V8: count 0.
        #expect(device.receive(hex("21 01 00 04 01 00 00 00"), at: t + 4).writtenBytes
                == hex("41 01 00 01 00 61 02 00 06 01 00 00 00 01 00"))
        #expect(device.receive(hex("21 05 00 00"), at: t + 4).writtenBytes == hex("41 05 00 02 00 00"))
    }

    @Test("V9: START before the configuration is complete → 0x15")
    func startUnconfigured() throws {
        var device = try SimulatedDevice()
        _ = device.receive(wire(.sessionInit(sessionID: 7)), at: 0)
        #expect(device.receive(hex("22 00 00 04 01 00 00 00"), at: 0).writtenBytes == hex("42 00 00 01 15"))
        // Part of the set is still not enough.
        let partial = Array(AppConfigParameter.dsTWR(role: .controller, ownAddress: 0, peers: [1]).prefix(7))
        let list = messages(device.receive(wire(.sessionSetAppConfig(sessionHandle: 1, partial)), at: 0))
        #expect(list.count == 1)  // no IDLE notification
        #expect(device.sessionState(handle: 1) == .initialized)
        #expect(device.receive(hex("22 00 00 04 01 00 00 00"), at: 0).writtenBytes == hex("42 00 00 01 15"))
    }

    @Test("bad app-config TLVs are listed with INVALID_PARAM, good ones still apply")
    func invalidAppConfig() throws {
        var device = try SimulatedDevice()
        _ = device.receive(wire(.sessionInit(sessionID: 7)), at: 0)
        let tlvs = [ConfigTLV(id: 0x04, value: [9]), ConfigTLV(id: 0x77, value: [1]), ConfigTLV(id: 0x09, value: [1, 2]),
                    ConfigTLV(id: 0x04, value: [7])]
        let list = messages(device.receive(wire(.sessionSetAppConfig(sessionHandle: 1, parameters: tlvs)), at: 0))
        #expect(list == [.response(.sessionSetAppConfig(status: .invalidParam, failed: [
            ConfigStatus(id: 0x77, status: .invalidParam), ConfigStatus(id: 0x09, status: .invalidParam),
            ConfigStatus(id: 0x04, status: .invalidParam),
        ]))])
        let got = messages(device.receive(wire(.sessionGetAppConfig(sessionHandle: 1, ids: [0x04])), at: 0))
        #expect(got == [.response(.sessionGetAppConfig(status: .ok, parameters: [ConfigTLV(id: 0x04, value: [9])]))])
    }

    @Test("commands on an unknown handle → ERROR_SESSION_NOT_EXIST")
    func unknownHandle() throws {
        var device = try SimulatedDevice()
        let commands: [UCICommand] = [
            .sessionDeinit(sessionHandle: 9), .sessionGetState(sessionHandle: 9), .sessionStart(sessionHandle: 9),
            .sessionStop(sessionHandle: 9), .sessionGetRangingCount(sessionHandle: 9),
            .sessionSetAppConfig(sessionHandle: 9, parameters: []), .sessionGetAppConfig(sessionHandle: 9, ids: []),
            .sessionUpdateControllerMulticastList(sessionHandle: 9, action: .add, controlees: [Controlee(shortAddress: 3)]),
        ]
        for command in commands {
            let list = messages(device.receive(wire(command), at: 0))
            #expect(list.count == 1)
            #expect(responses(list).first?.status == .sessionNotExist, "\(command)")
            #expect(responses(list).first.map { $0.opcode == command.opcode } == true)
        }
    }

    @Test("unknown GID → UNKNOWN_GID, unknown OID → UNKNOWN_OID")
    func unknownOpcodes() throws {
        var device = try SimulatedDevice()
        #expect(device.receive(hex("25 01 00 00"), at: 0).writtenBytes == hex("45 01 00 01 07"))
        #expect(device.receive(hex("21 3f 00 00"), at: 0).writtenBytes == hex("41 3f 00 01 08"))
        #expect(device.receive(hex("20 01 00 00"), at: 0).writtenBytes == hex("40 01 00 01 08"))
    }

    @Test("handles count up from 1 and restart after a reset; duplicates are refused")
    func handles() throws {
        var device = try SimulatedDevice()
        for (id, handle) in [(42 as UInt32, 1 as UInt32), (43, 2)] {
            let list = messages(device.receive(wire(.sessionInit(sessionID: id)), at: 0))
            #expect(list.first == .response(.sessionInit(status: .ok, sessionHandle: handle)))
        }
        #expect(responses(messages(device.receive(wire(.sessionInit(sessionID: 42)), at: 0))).first?.status == Status(rawValue: 0x12))
        _ = device.receive(wire(.coreDeviceReset()), at: 0)
        #expect(device.sessionHandles.isEmpty)
        #expect(messages(device.receive(wire(.sessionInit(sessionID: 42)), at: 0)).first
                == .response(.sessionInit(status: .ok, sessionHandle: 1)))
    }
}
