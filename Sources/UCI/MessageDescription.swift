/// A readable, ordered account of a decoded message's fields, for `uwb2mqtt decode` and logs.
///
/// Keys are the snake_case names of cli-and-config.md ("decode --json output"); codes are
/// their FiRa names (or `0xNN`), identifiers integers, byte strings lower-case hex. The CLI
/// renders this as JSON or text; the codec itself stays free of any output format.
///
/// Not `indirect`: lists and objects nest through arrays, which already live on the heap, and an
/// indirect enum would box every scalar too (one allocation per field of every MQTT payload).
public enum FieldValue: Hashable, Sendable {
    case int(Int64)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null
    case list([FieldValue])
    case object([Field])

    static func hex(_ bytes: [UInt8]) -> FieldValue { .string(Hex.string(bytes)) }
    static func code(_ code: some NamedCode) -> FieldValue { .string(code.description) }
    /// An unsigned field; values of 2^63 and above (8-byte timestamps) do not fit `.int` and
    /// become their decimal text rather than a trap.
    static func uint<T: BinaryInteger>(_ value: T) -> FieldValue {
        if let exact = Int64(exactly: value) { return .int(exact) }
        return .string(String(value))
    }
}

/// One key and its value, in the order a reader expects them.
public struct Field: Hashable, Sendable {
    public var key: String
    public var value: FieldValue
    public init(_ key: String, _ value: FieldValue) {
        self.key = key
        self.value = value
    }
}

extension UCIMessage {
    /// The decoded fields beyond the common `mt`/`gid`/`oid`/`name`/`pbf`/`payload` keys.
    public var fields: [Field] {
        switch self {
        case let .command(c): c.fields
        case let .response(r): r.fields
        case let .notification(n): n.fields
        case .other: []
        }
    }
}

extension UCICommand {
    var fields: [Field] {
        switch self {
        case let .coreDeviceReset(config): [Field("reset_config", .uint(config))]
        case .coreGetDeviceInfo, .coreGetCapsInfo, .coreQueryUWBSTimestamp, .sessionGetCount, .unknown: []
        case let .coreSetConfig(list):
            [Field("parameters", .list(list.map { tlvObject($0, names: DeviceConfigID.names) }))]
        case let .coreGetConfig(ids):
            [Field("parameter_ids", .list(ids.map { idObject($0, names: DeviceConfigID.names) }))]
        case let .sessionInit(id, type): [Field("session_id", .uint(id)), Field("session_type", .code(type))]
        case let .sessionDeinit(h), let .sessionGetState(h), let .sessionStart(h), let .sessionStop(h),
             let .sessionGetRangingCount(h):
            [Field("session_handle", .uint(h))]
        case let .sessionSetAppConfig(h, list):
            [Field("session_handle", .uint(h)),
             Field("parameters", .list(list.map { tlvObject($0, names: AppConfigID.names) }))]
        case let .sessionGetAppConfig(h, ids):
            [Field("session_handle", .uint(h)),
             Field("parameter_ids", .list(ids.map { idObject($0, names: AppConfigID.names) }))]
        case let .sessionUpdateControllerMulticastList(h, action, controlees):
            [Field("session_handle", .uint(h)), Field("action", .code(action)),
             Field("controlees", .list(controlees.map { c in
                 var f = [Field("mac_address", .string(MacAddress.short(c.shortAddress).description)),
                          Field("sub_session_id", .uint(c.subSessionID))]
                 if !c.subSessionKey.isEmpty { f.append(Field("sub_session_key", .hex(c.subSessionKey))) }
                 return .object(f)
             }))]
        }
    }
}

extension UCIResponse {
    var fields: [Field] {
        guard let status else { return [] }
        if case .unknown = self { return [] }
        var f = [Field("status", .code(status))]
        switch self {
        case let .coreGetDeviceInfo(_, info?):
            f += [Field("uci_version", .string(info.uciVersion.description)),
                  Field("mac_version", .string(info.macVersion.description)),
                  Field("phy_version", .string(info.phyVersion.description)),
                  Field("uci_test_version", .string(info.uciTestVersion.description)),
                  Field("vendor_info", .hex(info.vendorInfo))]
            if let q = info.qorvo {
                f += [Field("firmware_version", .string(q.firmwareVersionString)),
                      Field("device_id", .string("0x" + hexDigits(UInt64(q.deviceID), count: 8)))]
            }
        case let .coreGetCapsInfo(_, caps):
            f.append(Field("capabilities", .list(caps.map { .object([Field("type", .uint($0.id)), Field("value", .hex($0.value))]) })))
        case let .coreSetConfig(_, failed):
            f.append(Field("failed", .list(failed.map { failedObject($0, names: DeviceConfigID.names) })))
        case let .sessionSetAppConfig(_, failed):
            f.append(Field("failed", .list(failed.map { failedObject($0, names: AppConfigID.names) })))
        case let .coreGetConfig(_, list):
            f.append(Field("parameters", .list(list.map { tlvObject($0, names: DeviceConfigID.names) })))
        case let .sessionGetAppConfig(_, list):
            f.append(Field("parameters", .list(list.map { tlvObject($0, names: AppConfigID.names) })))
        case let .coreQueryUWBSTimestamp(_, t?): f.append(Field("timestamp", .uint(t)))
        case let .sessionInit(_, h?): f.append(Field("session_handle", .uint(h)))
        case let .sessionGetCount(_, c?): f.append(Field("session_count", .uint(c)))
        case let .sessionGetState(_, s?): f.append(Field("session_state", .code(s)))
        case let .sessionUpdateControllerMulticastList(_, list?):
            f.append(Field("controlees", .list(list.map(controleeStatusObject))))
        case let .sessionGetRangingCount(_, c?): f.append(Field("ranging_count", .uint(c)))
        default: break
        }
        return f
    }
}

extension UCINotification {
    var fields: [Field] {
        switch self {
        case let .coreDeviceStatus(state): [Field("device_state", .code(state))]
        case let .coreGenericError(status): [Field("status", .code(status))]
        case let .sessionStatus(h, state, reason):
            [Field("session_handle", .uint(h)), Field("session_state", .code(state)), Field("reason_code", .code(reason))]
        case let .sessionUpdateControllerMulticastList(u):
            [Field("session_handle", .uint(u.sessionHandle))]
                + (u.remainingMulticastListSize.map { [Field("remaining_multicast_list_size", .uint($0))] } ?? [])
                + [Field("controlees", .list(u.controlees.map(controleeStatusObject)))]
        case let .sessionInfo(info): info.fields
        case let .rangeDiagnostics(d):
            [Field("session_handle", .uint(d.sessionHandle)), Field("sequence_number", .uint(d.sequenceNumber)),
             Field("reports", .list(d.reports.map { r in
                 .object([Field("message", .string(r.messageName)), Field("action", .string(r.action == 1 ? "TX" : r.action == 0 ? "RX" : hexByte(r.action))),
                          Field("antenna_set", .uint(r.antennaSet)),
                          Field("fields", .list(r.fields.map { .object([Field("tag", .uint($0.id)), Field("value", .hex($0.value))]) }))])
             }))]
        case .unknown: []
        }
    }
}

extension SessionInfo {
    var fields: [Field] {
        var f = [Field("sequence_number", .uint(sequenceNumber)), Field("session_id", .uint(sessionHandle)),
                 Field("ranging_interval_ms", .uint(currentRangingInterval)),
                 Field("measurement_type", .code(measurementType)),
                 Field("mac_addressing_mode", .string(macAddressingMode.description))]
        if husPrimarySessionID != 0 { f.append(Field("hus_primary_session_id", .uint(husPrimarySessionID))) }
        switch measurements {
        case let .twoWay(list): f.append(Field("measurements", .list(list.map { .object($0.fields) })))
        case let .oneWayAoA(list): f.append(Field("measurements", .list(list.map { .object($0.fields) })))
        case let .downlinkTDoA(list): f.append(Field("measurements", .list(list.map { .object($0.fields) })))
        case let .other(_, bytes):
            f.append(Field("measurements", .list([])))
            f.append(Field("measurement_data", .hex(bytes)))
        }
        if !vendorData.isEmpty { f.append(Field("vendor_data", .hex(vendorData))) }
        return f
    }
}

extension TwoWayRangingMeasurement {
    var fields: [Field] {
        [Field("mac_address", .string(macAddress.description)), Field("status", .code(status)),
         Field("nlos", nlosValue(nlosRaw)),
         Field("distance_cm", distanceCentimeters.map { .int(Int64($0)) } ?? .null),
         Field("aoa_azimuth_deg", .double(aoaAzimuth.degrees)), Field("aoa_azimuth_fom", .uint(aoaAzimuthFOM)),
         Field("aoa_elevation_deg", .double(aoaElevation.degrees)), Field("aoa_elevation_fom", .uint(aoaElevationFOM)),
         Field("aoa_destination_azimuth_deg", .double(aoaDestinationAzimuth.degrees)),
         Field("aoa_destination_azimuth_fom", .uint(aoaDestinationAzimuthFOM)),
         Field("aoa_destination_elevation_deg", .double(aoaDestinationElevation.degrees)),
         Field("aoa_destination_elevation_fom", .uint(aoaDestinationElevationFOM)),
         Field("slot_index", .uint(slotIndex)),
         Field("rssi_dbm", rssiDBm.map(FieldValue.double) ?? .null)]
    }
}

extension OneWayAoAMeasurement {
    var fields: [Field] {
        [Field("mac_address", .string(macAddress.description)), Field("status", .code(status)),
         Field("nlos", nlosValue(nlosRaw)), Field("frame_sequence_number", .uint(frameSequenceNumber)),
         Field("block_index", .uint(blockIndex)),
         Field("aoa_azimuth_deg", .double(aoaAzimuth.degrees)), Field("aoa_azimuth_fom", .uint(aoaAzimuthFOM)),
         Field("aoa_elevation_deg", .double(aoaElevation.degrees)), Field("aoa_elevation_fom", .uint(aoaElevationFOM))]
    }
}

extension DownlinkTDoAMeasurement {
    var fields: [Field] {
        [Field("mac_address", .string(macAddress.description)), Field("status", .code(status)),
         Field("message_type", .uint(messageType)), Field("message_control", .uint(messageControl)),
         Field("block_index", .uint(blockIndex)), Field("round_index", .uint(roundIndex)),
         Field("nlos", nlosValue(nlosRaw)),
         Field("aoa_azimuth_deg", .double(aoaAzimuth.degrees)), Field("aoa_azimuth_fom", .uint(aoaAzimuthFOM)),
         Field("aoa_elevation_deg", .double(aoaElevation.degrees)), Field("aoa_elevation_fom", .uint(aoaElevationFOM)),
         Field("rssi_dbm", rssiRaw == 0 ? .null : .double(-Double(rssiRaw) / 2)),
         Field("tx_timestamp", .uint(txTimestamp)), Field("rx_timestamp", .uint(rxTimestamp)),
         Field("anchor_cfo", .uint(anchorCFO)), Field("cfo", .uint(cfo)),
         Field("initiator_reply_time", .uint(initiatorReplyTime)), Field("responder_reply_time", .uint(responderReplyTime)),
         Field("initiator_responder_tof", .uint(initiatorResponderTOF)),
         Field("anchor_location", .hex(anchorLocation)), Field("active_ranging_rounds", .hex(activeRangingRounds))]
    }
}

private func nlosValue(_ raw: UInt8) -> FieldValue {
    switch raw { case 0: .bool(false); case 1: .bool(true); default: .null }
}

private func tlvObject(_ tlv: ConfigTLV, names: [UInt8: String]) -> FieldValue {
    .object([Field("id", .uint(tlv.id)), Field("name", .string(names[tlv.id] ?? hexByte(tlv.id))), Field("value", .hex(tlv.value))])
}

private func idObject(_ id: UInt8, names: [UInt8: String]) -> FieldValue {
    .object([Field("id", .uint(id)), Field("name", .string(names[id] ?? hexByte(id)))])
}

private func failedObject(_ entry: ConfigStatus, names: [UInt8: String]) -> FieldValue {
    .object([Field("id", .uint(entry.id)), Field("name", .string(names[entry.id] ?? hexByte(entry.id))),
             Field("status", .code(entry.status))])
}

private func controleeStatusObject(_ c: ControleeStatus) -> FieldValue {
    var f = [Field("mac_address", .string(MacAddress.short(c.shortAddress).description))]
    if let id = c.subSessionID { f.append(Field("sub_session_id", .uint(id))) }
    f.append(Field("status", .code(c.status)))
    return .object(f)
}
