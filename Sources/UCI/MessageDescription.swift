import Vocabulary

/// The JSON values of a decoded message's description: a readable, ordered account of its fields,
/// for `uwb2mqtt decode` and logs. Keys are the snake_case names of cli-and-config.md ("decode
/// --json output"); codes are their FiRa names (or `0xNN`), identifiers integers, byte strings
/// lower-case hex. The CLI renders them as JSON or text; the codec itself stays free of any output
/// format.
extension JSONValue {
    static func hex(_ bytes: [UInt8]) -> JSONValue { .string(Hex.string(bytes)) }
    static func code(_ code: some NamedCode) -> JSONValue { .string(code.description) }
    /// An unsigned field; values of 2^63 and above (8-byte timestamps) do not fit `.int` and
    /// become their decimal text rather than a trap.
    static func uint<T: BinaryInteger>(_ value: T) -> JSONValue {
        if let exact = Int64(exactly: value) { return .int(exact) }
        return .string(String(value))
    }
}

extension UCIMessage {
    /// The decoded fields beyond the common `mt`/`gid`/`oid`/`name`/`pbf`/`payload` keys.
    public var fields: [JSONMember] {
        switch self {
        case let .command(c): c.fields
        case let .response(r): r.fields
        case let .notification(n): n.fields
        case .other: []
        }
    }
}

extension UCICommand {
    var fields: [JSONMember] {
        switch self {
        case let .coreDeviceReset(config): [JSONMember("reset_config", .uint(config))]
        case .coreGetDeviceInfo, .coreGetCapsInfo, .coreQueryUWBSTimestamp, .sessionGetCount, .unknown: []
        case let .coreSetConfig(list):
            [JSONMember("parameters", .list(list.map { tlvObject($0, names: DeviceConfigID.names) }))]
        case let .coreGetConfig(ids):
            [JSONMember("parameter_ids", .list(ids.map { idObject($0, names: DeviceConfigID.names) }))]
        case let .sessionInit(id, type): [JSONMember("session_id", .uint(id)), JSONMember("session_type", .code(type))]
        case let .sessionDeinit(h), let .sessionGetState(h), let .sessionStart(h), let .sessionStop(h),
             let .sessionGetRangingCount(h):
            [JSONMember("session_handle", .uint(h))]
        case let .sessionSetAppConfig(h, list):
            [JSONMember("session_handle", .uint(h)),
             JSONMember("parameters", .list(list.map { tlvObject($0, names: AppConfigID.names) }))]
        case let .sessionGetAppConfig(h, ids):
            [JSONMember("session_handle", .uint(h)),
             JSONMember("parameter_ids", .list(ids.map { idObject($0, names: AppConfigID.names) }))]
        case let .sessionUpdateControllerMulticastList(h, action, controlees):
            [JSONMember("session_handle", .uint(h)), JSONMember("action", .code(action)),
             JSONMember("controlees", .list(controlees.map { c in
                 var f = [JSONMember("mac_address", .string(MacAddress.short(c.shortAddress).description)),
                          JSONMember("sub_session_id", .uint(c.subSessionID))]
                 if !c.subSessionKey.isEmpty { f.append(JSONMember("sub_session_key", .hex(c.subSessionKey))) }
                 return .object(f)
             }))]
        }
    }
}

extension UCIResponse {
    var fields: [JSONMember] {
        guard let status else { return [] }
        if case .unknown = self { return [] }
        var f = [JSONMember("status", .code(status))]
        switch self {
        case let .coreGetDeviceInfo(_, info?):
            f += [JSONMember("uci_version", .string(info.uciVersion.description)),
                  JSONMember("mac_version", .string(info.macVersion.description)),
                  JSONMember("phy_version", .string(info.phyVersion.description)),
                  JSONMember("uci_test_version", .string(info.uciTestVersion.description)),
                  JSONMember("vendor_info", .hex(info.vendorInfo))]
            if let q = info.qorvo {
                f += [JSONMember("firmware_version", .string(q.firmwareVersionString)),
                      JSONMember("device_id", .string("0x" + hexDigits(UInt64(q.deviceID), count: 8)))]
            }
        case let .coreGetCapsInfo(_, caps):
            f.append(JSONMember("capabilities", .list(caps.map { .object([JSONMember("type", .uint($0.id)), JSONMember("value", .hex($0.value))]) })))
        case let .coreSetConfig(_, failed):
            f.append(JSONMember("failed", .list(failed.map { failedObject($0, names: DeviceConfigID.names) })))
        case let .sessionSetAppConfig(_, failed):
            f.append(JSONMember("failed", .list(failed.map { failedObject($0, names: AppConfigID.names) })))
        case let .coreGetConfig(_, list):
            f.append(JSONMember("parameters", .list(list.map { tlvObject($0, names: DeviceConfigID.names) })))
        case let .sessionGetAppConfig(_, list):
            f.append(JSONMember("parameters", .list(list.map { tlvObject($0, names: AppConfigID.names) })))
        case let .coreQueryUWBSTimestamp(_, t?): f.append(JSONMember("timestamp", .uint(t)))
        case let .sessionInit(_, h?): f.append(JSONMember("session_handle", .uint(h)))
        case let .sessionGetCount(_, c?): f.append(JSONMember("session_count", .uint(c)))
        case let .sessionGetState(_, s?): f.append(JSONMember("session_state", .code(s)))
        case let .sessionUpdateControllerMulticastList(_, list?):
            f.append(JSONMember("controlees", .list(list.map(controleeStatusObject))))
        case let .sessionGetRangingCount(_, c?): f.append(JSONMember("ranging_count", .uint(c)))
        default: break
        }
        return f
    }
}

extension UCINotification {
    var fields: [JSONMember] {
        switch self {
        case let .coreDeviceStatus(state): [JSONMember("device_state", .code(state))]
        case let .coreGenericError(status): [JSONMember("status", .code(status))]
        case let .sessionStatus(h, state, reason):
            [JSONMember("session_handle", .uint(h)), JSONMember("session_state", .code(state)), JSONMember("reason_code", .code(reason))]
        case let .sessionUpdateControllerMulticastList(u):
            [JSONMember("session_handle", .uint(u.sessionHandle))]
                + (u.remainingMulticastListSize.map { [JSONMember("remaining_multicast_list_size", .uint($0))] } ?? [])
                + [JSONMember("controlees", .list(u.controlees.map(controleeStatusObject)))]
        case let .sessionInfo(info): info.fields
        case let .rangeDiagnostics(d):
            [JSONMember("session_handle", .uint(d.sessionHandle)), JSONMember("sequence_number", .uint(d.sequenceNumber)),
             JSONMember("reports", .list(d.reports.map { r in
                 .object([JSONMember("message", .string(r.messageName)), JSONMember("action", .string(r.action == 1 ? "TX" : r.action == 0 ? "RX" : hexByte(r.action))),
                          JSONMember("antenna_set", .uint(r.antennaSet)),
                          JSONMember("fields", .list(r.fields.map { .object([JSONMember("tag", .uint($0.id)), JSONMember("value", .hex($0.value))]) }))])
             }))]
        case .unknown: []
        }
    }
}

extension SessionInfo {
    var fields: [JSONMember] {
        var f = [JSONMember("sequence_number", .uint(sequenceNumber)), JSONMember("session_id", .uint(sessionHandle)),
                 JSONMember("ranging_interval_ms", .uint(currentRangingInterval)),
                 JSONMember("measurement_type", .code(measurementType)),
                 JSONMember("mac_addressing_mode", .string(macAddressingMode.description))]
        if husPrimarySessionID != 0 { f.append(JSONMember("hus_primary_session_id", .uint(husPrimarySessionID))) }
        switch measurements {
        case let .twoWay(list): f.append(JSONMember("measurements", .list(list.map { .object($0.fields) })))
        case let .oneWayAoA(list): f.append(JSONMember("measurements", .list(list.map { .object($0.fields) })))
        case let .downlinkTDoA(list): f.append(JSONMember("measurements", .list(list.map { .object($0.fields) })))
        case let .other(_, bytes):
            f.append(JSONMember("measurements", .list([])))
            f.append(JSONMember("measurement_data", .hex(bytes)))
        }
        if !vendorData.isEmpty { f.append(JSONMember("vendor_data", .hex(vendorData))) }
        return f
    }
}

extension TwoWayRangingMeasurement {
    var fields: [JSONMember] {
        [JSONMember("mac_address", .string(macAddress.description)), JSONMember("status", .code(status)),
         JSONMember("nlos", nlosValue(nlosRaw)),
         JSONMember("distance_cm", distanceCentimeters.map { .int(Int64($0)) } ?? .null),
         JSONMember("aoa_azimuth_deg", .double(aoaAzimuth.degrees)), JSONMember("aoa_azimuth_fom", .uint(aoaAzimuthFOM)),
         JSONMember("aoa_elevation_deg", .double(aoaElevation.degrees)), JSONMember("aoa_elevation_fom", .uint(aoaElevationFOM)),
         JSONMember("aoa_destination_azimuth_deg", .double(aoaDestinationAzimuth.degrees)),
         JSONMember("aoa_destination_azimuth_fom", .uint(aoaDestinationAzimuthFOM)),
         JSONMember("aoa_destination_elevation_deg", .double(aoaDestinationElevation.degrees)),
         JSONMember("aoa_destination_elevation_fom", .uint(aoaDestinationElevationFOM)),
         JSONMember("slot_index", .uint(slotIndex)),
         JSONMember("rssi_dbm", rssiDBm.map(JSONValue.double) ?? .null)]
    }
}

extension OneWayAoAMeasurement {
    var fields: [JSONMember] {
        [JSONMember("mac_address", .string(macAddress.description)), JSONMember("status", .code(status)),
         JSONMember("nlos", nlosValue(nlosRaw)), JSONMember("frame_sequence_number", .uint(frameSequenceNumber)),
         JSONMember("block_index", .uint(blockIndex)),
         JSONMember("aoa_azimuth_deg", .double(aoaAzimuth.degrees)), JSONMember("aoa_azimuth_fom", .uint(aoaAzimuthFOM)),
         JSONMember("aoa_elevation_deg", .double(aoaElevation.degrees)), JSONMember("aoa_elevation_fom", .uint(aoaElevationFOM))]
    }
}

extension DownlinkTDoAMeasurement {
    var fields: [JSONMember] {
        [JSONMember("mac_address", .string(macAddress.description)), JSONMember("status", .code(status)),
         JSONMember("message_type", .uint(messageType)), JSONMember("message_control", .uint(messageControl)),
         JSONMember("block_index", .uint(blockIndex)), JSONMember("round_index", .uint(roundIndex)),
         JSONMember("nlos", nlosValue(nlosRaw)),
         JSONMember("aoa_azimuth_deg", .double(aoaAzimuth.degrees)), JSONMember("aoa_azimuth_fom", .uint(aoaAzimuthFOM)),
         JSONMember("aoa_elevation_deg", .double(aoaElevation.degrees)), JSONMember("aoa_elevation_fom", .uint(aoaElevationFOM)),
         JSONMember("rssi_dbm", rssiRaw == 0 ? .null : .double(-Double(rssiRaw) / 2)),
         JSONMember("tx_timestamp", .uint(txTimestamp)), JSONMember("rx_timestamp", .uint(rxTimestamp)),
         JSONMember("anchor_cfo", .uint(anchorCFO)), JSONMember("cfo", .uint(cfo)),
         JSONMember("initiator_reply_time", .uint(initiatorReplyTime)), JSONMember("responder_reply_time", .uint(responderReplyTime)),
         JSONMember("initiator_responder_tof", .uint(initiatorResponderTOF)),
         JSONMember("anchor_location", .hex(anchorLocation)), JSONMember("active_ranging_rounds", .hex(activeRangingRounds))]
    }
}

private func nlosValue(_ raw: UInt8) -> JSONValue {
    switch raw { case 0: .bool(false); case 1: .bool(true); default: .null }
}

private func tlvObject(_ tlv: ConfigTLV, names: [UInt8: String]) -> JSONValue {
    .object([JSONMember("id", .uint(tlv.id)), JSONMember("name", .string(names[tlv.id] ?? hexByte(tlv.id))), JSONMember("value", .hex(tlv.value))])
}

private func idObject(_ id: UInt8, names: [UInt8: String]) -> JSONValue {
    .object([JSONMember("id", .uint(id)), JSONMember("name", .string(names[id] ?? hexByte(id)))])
}

private func failedObject(_ entry: ConfigStatus, names: [UInt8: String]) -> JSONValue {
    .object([JSONMember("id", .uint(entry.id)), JSONMember("name", .string(names[entry.id] ?? hexByte(entry.id))),
             JSONMember("status", .code(entry.status))])
}

private func controleeStatusObject(_ c: ControleeStatus) -> JSONValue {
    var f = [JSONMember("mac_address", .string(MacAddress.short(c.shortAddress).description))]
    if let id = c.subSessionID { f.append(JSONMember("sub_session_id", .uint(id))) }
    f.append(JSONMember("status", .code(c.status)))
    return .object(f)
}
