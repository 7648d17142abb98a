/// What a device says it can do in its CORE_GET_CAPS_INFO answer, read the way its UCI version
/// numbers the TLVs — decided here once, for the agent, the `device` payload and `doctor`.
///
/// FiRa UCI 2.0 renumbered the capability TLVs (uci.md §5 "CAPS TLV IDs: V1 numbering →
/// renumbered"): AoA support and extended MAC address support are 0x13 and 0x14 from 2.0 on,
/// 0x10 and 0x11 in UCI 1.x. Read with the wrong numbering, a 1.x device's AoA would look absent.
public struct DeviceCapabilities: Hashable, Sendable {
    public let tlvs: [ConfigTLV]
    public let uciVersion: UCIVersion?

    public init(tlvs: [ConfigTLV], uciVersion: UCIVersion?) {
        self.tlvs = tlvs
        self.uciVersion = uciVersion
    }

    /// Whether the device measures angles of arrival; without it every angle is left out.
    public var hasAoA: Bool { flag(version1: 0x10, version2: 0x13) ?? false }

    /// Whether the device supports 8-byte (extended) MAC addresses.
    public var hasExtendedMACAddress: Bool { flag(version1: 0x11, version2: 0x14) ?? false }

    /// Whether the device answered with capabilities at all.
    public var isEmpty: Bool { tlvs.isEmpty }

    /// A TLV read as a flag: any non-zero byte means supported; nil when the device did not send it.
    private func flag(version1: UInt8, version2: UInt8) -> Bool? {
        // Without a version (not asked yet), the numbering of the DWM3001C's firmware: 2.0.
        let id = (uciVersion?.major ?? 2) >= 2 ? version2 : version1
        return tlvs.first { $0.id == id }.map { $0.value.contains { $0 != 0 } }
    }
}
