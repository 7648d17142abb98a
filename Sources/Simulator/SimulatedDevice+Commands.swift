import UCI

/// How the simulated firmware answers each command (uci.md §2.2, §3.3, §6.4, §7).
extension SimulatedDevice {
    /// Groups the firmware knows: an unimplemented OID in these gets UNKNOWN_OID, any other
    /// group UNKNOWN_GID. Besides CORE and the two session groups these are Qorvo's vendor and
    /// test groups (uci.md §2.1, §6.3), which the simulator does not implement.
    static let knownGroups: Set<UInt8> = [0x0, 0x1, 0x2, 0x9, 0xB, 0xC, 0xD, 0xE, 0xF]

    mutating func handle(_ raw: RawMessage, into out: inout [DeviceOutput]) {
        guard raw.messageType == .command else { return }  // data and test packets: not supported, ignored
        let command: UCICommand
        do {
            guard case let .command(decoded) = try UCIMessage(decoding: raw) else { return }
            command = decoded
        } catch {
            // A known command with a malformed payload (e.g. CORE_DEVICE_RESET without its byte).
            respond(status: .syntaxError, gid: raw.gid, oid: raw.oid, into: &out)
            return
        }
        if deviceState == .error && !Self.allowedInError(command) {
            respond(status: .rejected, gid: raw.gid, oid: raw.oid, into: &out)
            return
        }
        switch command {
        case let .coreDeviceReset(config): deviceReset(config, into: &out)
        case .coreGetDeviceInfo:
            send(UCIResponse.coreGetDeviceInfo(status: .ok, info: FirmwareIdentity.deviceInfo).raw, into: &out)
        case .coreGetCapsInfo:
            send(UCIResponse.coreGetCapsInfo(status: .ok, capabilities: FirmwareIdentity.capabilities(hasAoA: scenario.device.hasAoA)).raw,
                 into: &out)
        case let .coreSetConfig(list): coreSetConfig(list, into: &out)
        case let .coreGetConfig(ids): coreGetConfig(ids, into: &out)
        case .coreQueryUWBSTimestamp:
            // "Not supported in QM33 SDK" ([QAPI]).
            respond(status: .unknownOID, gid: raw.gid, oid: raw.oid, into: &out)
        case let .sessionInit(id, type): sessionInit(id, type, into: &out)
        case let .sessionDeinit(handle): sessionDeinit(handle, into: &out)
        case let .sessionSetAppConfig(handle, parameters): setAppConfig(handle, parameters, into: &out)
        case let .sessionGetAppConfig(handle, ids): getAppConfig(handle, ids, into: &out)
        case .sessionGetCount:
            send(UCIResponse.sessionGetCount(status: .ok, count: UInt8(truncatingIfNeeded: sessions.count)).raw, into: &out)
        case let .sessionGetState(handle):
            guard let index = index(of: handle) else { return respond(status: .sessionNotExist, gid: 1, oid: 0x06, into: &out) }
            send(UCIResponse.sessionGetState(status: .ok, state: sessions[index].state).raw, into: &out)
        case let .sessionUpdateControllerMulticastList(handle, action, controlees):
            updateMulticastList(handle, action, controlees, into: &out)
        case let .sessionStart(handle): sessionStart(handle, into: &out)
        case let .sessionStop(handle): sessionStop(handle, into: &out)
        case let .sessionGetRangingCount(handle):
            guard let index = index(of: handle) else { return respond(status: .sessionNotExist, gid: 2, oid: 0x03, into: &out) }
            send(UCIResponse.sessionGetRangingCount(status: .ok, count: sessions[index].roundCount).raw, into: &out)
        case let .unknown(gid, oid, _):
            respond(status: Self.knownGroups.contains(gid) ? .unknownOID : .unknownGID, gid: gid, oid: oid, into: &out)
        }
    }

    /// In ERROR the device "needs to be reset" (uci.md §3.2): it still identifies itself and
    /// accepts the reset; everything else is REJECTED.
    private static func allowedInError(_ command: UCICommand) -> Bool {
        switch command {
        case .coreDeviceReset, .coreGetDeviceInfo, .coreGetCapsInfo, .coreGetConfig, .unknown: true
        default: false
        }
    }

    private func index(of handle: UInt32) -> Int? { sessions.firstIndex { $0.handle == handle } }

    /// A response carrying only a status byte, as the firmware sends for errors (uci.md §7 V9).
    private mutating func respond(status: Status, gid: UInt8, oid: UInt8, into out: inout [DeviceOutput]) {
        send(RawMessage(messageType: .response, gid: gid, oid: oid, payload: [status.rawValue]), into: &out)
    }

    // MARK: CORE

    /// V1: DEVICE_STATUS_NTF(READY) before and after the response; every session is dropped.
    private mutating func deviceReset(_ config: UInt8, into out: inout [DeviceOutput]) {
        guard config <= 1 else { return respond(status: .invalidParam, gid: 0, oid: 0, into: &out) }
        powerCycle()
        send(UCINotification.coreDeviceStatus(.ready).raw, into: &out)
        send(UCIResponse.coreDeviceReset(status: .ok).raw, into: &out)
        send(UCINotification.coreDeviceStatus(.ready).raw, into: &out)
    }

    private mutating func coreSetConfig(_ list: [ConfigTLV], into out: inout [DeviceOutput]) {
        var failed: [ConfigStatus] = []
        for tlv in list {
            let ok: Bool
            switch tlv.id {
            case DeviceConfigID.deviceState: failed.append(ConfigStatus(id: tlv.id, status: .readOnly)); continue
            case DeviceConfigID.lowPowerMode: ok = tlv.value.count == 1 && tlv.value[0] <= 1
            case 0xA0: ok = tlv.value == [5] || tlv.value == [9]  // Qorvo channel number
            case 0xA8, 0xA9: ok = tlv.value.count == 4            // Qorvo traces, PM inactivity
            default: ok = false
            }
            if ok { deviceConfig[tlv.id] = tlv.value } else { failed.append(ConfigStatus(id: tlv.id, status: .invalidParam)) }
        }
        send(UCIResponse.coreSetConfig(status: failed.first?.status ?? .ok, failed: failed).raw, into: &out)
    }

    private mutating func coreGetConfig(_ ids: [UInt8], into out: inout [DeviceOutput]) {
        var all = deviceConfig
        all[DeviceConfigID.deviceState] = [deviceState.rawValue]
        let wanted = ids.isEmpty ? all.keys.sorted() : ids
        let found = wanted.compactMap { id in all[id].map { ConfigTLV(id: id, value: $0) } }
        let status: Status = found.count == wanted.count ? .ok : .invalidParam
        send(UCIResponse.coreGetConfig(status: status, parameters: found).raw, into: &out)
    }

    // MARK: SESSION_CONFIG

    /// FiRa 2.0 form: the response carries a device-chosen handle (1, 2, … since the last
    /// reset), never the session id (uci.md Q1, V4), then SESSION_STATUS_NTF(INIT).
    private mutating func sessionInit(_ id: UInt32, _ type: SessionType, into out: inout [DeviceOutput]) {
        let status: Status? = if type != .firaRangingSession { .invalidParam }
            else if sessions.contains(where: { $0.sessionID == id }) { Status(rawValue: 0x12) }  // ERROR_SESSION_DUPLICATE
            else if sessions.count >= scenario.device.maxSessions { .maxSessionsExceeded }
            else { nil }
        if let status { return send(UCIResponse.sessionInit(status: status, sessionHandle: nil).raw, into: &out) }
        let session = SimulatedSession(sessionID: id, handle: nextHandle)
        nextHandle &+= 1
        sessions.append(session)
        send(UCIResponse.sessionInit(status: .ok, sessionHandle: session.handle).raw, into: &out)
        send(UCINotification.sessionStatus(sessionHandle: session.handle, state: .initialized,
                                           reason: .stateChangeWithSessionManagementCommands).raw, into: &out)
    }

    /// V12: OK, then SESSION_STATUS_NTF(DEINIT); an active session stops ranging first.
    private mutating func sessionDeinit(_ handle: UInt32, into out: inout [DeviceOutput]) {
        guard let index = index(of: handle) else { return respond(status: .sessionNotExist, gid: 1, oid: 0x01, into: &out) }
        sessions.remove(at: index)
        send(UCIResponse.sessionDeinit(status: .ok).raw, into: &out)
        send(UCINotification.sessionStatus(sessionHandle: handle, state: .deinitialized,
                                           reason: .stateChangeWithSessionManagementCommands).raw, into: &out)
        updateDeviceActivity(into: &out)
    }

    /// V6: status OK with no failed parameters; a rejected parameter is listed with
    /// INVALID_PARAM (the status is then INVALID_PARAM too) and the others still apply. The
    /// first time the configuration is complete, the session goes INIT → IDLE with an NTF.
    private mutating func setAppConfig(_ handle: UInt32, _ parameters: [ConfigTLV], into out: inout [DeviceOutput]) {
        guard let index = index(of: handle) else {
            return send(UCIResponse.sessionSetAppConfig(status: .sessionNotExist, failed: []).raw, into: &out)
        }
        guard sessions[index].state != .active else {
            return send(UCIResponse.sessionSetAppConfig(status: .sessionActive, failed: []).raw, into: &out)
        }
        var failed: [ConfigStatus] = []
        for tlv in parameters {
            if let rejection = AppConfigRules.rejection(of: tlv) {
                failed.append(ConfigStatus(id: tlv.id, status: rejection))
            } else {
                sessions[index].apply(tlv)
            }
        }
        send(UCIResponse.sessionSetAppConfig(status: failed.isEmpty ? .ok : .invalidParam, failed: failed).raw, into: &out)
        if sessions[index].state == .initialized && sessions[index].isConfigured {
            sessions[index].state = .idle
            send(UCINotification.sessionStatus(sessionHandle: handle, state: .idle,
                                               reason: .stateChangeWithSessionManagementCommands).raw, into: &out)
        }
    }

    private mutating func getAppConfig(_ handle: UInt32, _ ids: [UInt8], into out: inout [DeviceOutput]) {
        guard let index = index(of: handle) else {
            return send(UCIResponse.sessionGetAppConfig(status: .sessionNotExist, parameters: []).raw, into: &out)
        }
        let session = sessions[index]
        let wanted = ids.isEmpty ? session.config.keys.sorted() : ids
        let found = wanted.compactMap { id in session.value(AppConfigID(rawValue: id)).map { ConfigTLV(id: id, value: $0) } }
        send(UCIResponse.sessionGetAppConfig(status: found.count == wanted.count ? .ok : .invalidParam, parameters: found).raw,
             into: &out)
    }

    /// FiRa 2.0 form (uci.md §2.2): the response lists the controlees that could not be
    /// added or removed (none on success), the notification lists every controlee with its
    /// status. Only a one-to-many session has a multicast list. The ranged peer set changes
    /// from the next round on.
    private mutating func updateMulticastList(_ handle: UInt32, _ action: MulticastAction, _ controlees: [Controlee],
                                              into out: inout [DeviceOutput]) {
        guard let index = index(of: handle) else {
            return send(UCIResponse.sessionUpdateControllerMulticastList(status: .sessionNotExist, controlees: nil).raw,
                        into: &out)
        }
        guard sessions[index].isOneToMany else {
            return send(UCIResponse.sessionUpdateControllerMulticastList(status: .rejected, controlees: nil).raw, into: &out)
        }
        var results: [ControleeStatus] = []
        for controlee in controlees {
            let address = controlee.shortAddress
            let status: MulticastUpdateStatus
            if action == .delete {
                if let position = sessions[index].peers.firstIndex(of: address) {
                    sessions[index].peers.remove(at: position)
                    status = .ok
                } else {
                    status = MulticastUpdateStatus(rawValue: 0x07)  // ADDRESS_NOT_FOUND
                }
            } else if sessions[index].peers.contains(address) {
                status = MulticastUpdateStatus(rawValue: 0x08)      // ADDRESS_ALREADY_PRESENT
            } else if sessions[index].peers.count >= AppConfigRules.maximumPeers {
                status = MulticastUpdateStatus(rawValue: 0x01)      // MULTICAST_LIST_FULL
            } else {
                sessions[index].peers.append(address)
                status = .ok
            }
            results.append(ControleeStatus(shortAddress: address, status: status))
        }
        send(UCIResponse.sessionUpdateControllerMulticastList(status: .ok, controlees: results.filter { $0.status != .ok }).raw,
             into: &out)
        send(UCINotification.sessionUpdateControllerMulticastList(MulticastListUpdate(sessionHandle: handle, controlees: results)).raw,
             into: &out)
    }

    // MARK: SESSION_CONTROL

    /// V9/V10: only an IDLE (configured) session starts; RSP, DEVICE_STATUS(ACTIVE) when it is
    /// the first to range, SESSION_STATUS(ACTIVE). The first round comes one interval later.
    private mutating func sessionStart(_ handle: UInt32, into out: inout [DeviceOutput]) {
        guard let index = index(of: handle) else { return respond(status: .sessionNotExist, gid: 2, oid: 0x00, into: &out) }
        switch sessions[index].state {
        case .active: return respond(status: .sessionActive, gid: 2, oid: 0x00, into: &out)
        case .idle: break
        default: return respond(status: .sessionNotConfigured, gid: 2, oid: 0x00, into: &out)
        }
        sessions[index].state = .active
        sessions[index].rangingStart = now
        sessions[index].roundsSinceStart = 0
        sessions[index].nextRoundTime = now + roundInterval(sessions[index])
        send(UCIResponse.sessionStart(status: .ok).raw, into: &out)
        updateDeviceActivity(into: &out)
        send(UCINotification.sessionStatus(sessionHandle: handle, state: .active,
                                           reason: .stateChangeWithSessionManagementCommands).raw, into: &out)
    }

    /// V13: RSP, SESSION_STATUS(IDLE), DEVICE_STATUS(READY) once nothing ranges. Stopping a
    /// session that is not ranging is REJECTED.
    private mutating func sessionStop(_ handle: UInt32, into out: inout [DeviceOutput]) {
        guard let index = index(of: handle) else { return respond(status: .sessionNotExist, gid: 2, oid: 0x01, into: &out) }
        guard sessions[index].state == .active else { return respond(status: .rejected, gid: 2, oid: 0x01, into: &out) }
        sessions[index].state = .idle
        sessions[index].nextRoundTime = nil
        send(UCIResponse.sessionStop(status: .ok).raw, into: &out)
        send(UCINotification.sessionStatus(sessionHandle: handle, state: .idle,
                                           reason: .stateChangeWithSessionManagementCommands).raw, into: &out)
        updateDeviceActivity(into: &out)
    }
}
