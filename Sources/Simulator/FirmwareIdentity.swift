import UCI

/// What a DWM3001CDK running Qorvo's UCI firmware (QM33 SDK 1.1.1) says about itself.
///
/// The bytes are the real answers captured from hardware (uci.md §7 V2, V3), so that a host
/// developed against the simulator sees exactly what it will see on the bench.
enum FirmwareIdentity {
    /// GET_DEVICE_INFO: UCI 2.0.0, MAC 2.0.0, PHY 2.0.0, test 1.1.0 and the 52-byte Qorvo block.
    static let deviceInfo = DeviceInfo(
        uciVersion: UCIVersion(major: 2, minor: 0), macVersion: UCIVersion(major: 2, minor: 0),
        phyVersion: UCIVersion(major: 2, minor: 0), uciTestVersion: UCIVersion(major: 1, minor: 1),
        vendorInfo: qorvoVendorInfo)

    /// Firmware 1.1.0-rc0, chip id as captured, device id 0xDECA0302, package 0 (SoC).
    ///
    /// V2 as published carries 53 vendor bytes for a declared 52 (uci.md §7 V2 caution): the
    /// device id must end at offset 51 with the package id last, so one byte of the zero run
    /// before the device id is the copy's extra byte and is left out here.
    static let qorvoVendorInfo: [UInt8] = {
        var bytes: [UInt8] = [0x01, 0x01, 0x00, 0x00]                   // internal fw 1.1.0-rc0
        bytes += [UInt8](repeating: 0, count: 8)                         // build id
        bytes += [0x00, 0x00, 0x00]                                      // product fw version
        var chip: [UInt8] = [0x00, 0x00, 0x50, 0x56, 0x34, 0x58, 0x32, 0x30, 0x0E, 0xE0, 0xCA, 0x09]
        chip += [UInt8](repeating: 0, count: 32 - chip.count)
        bytes += chip                                                    // chip id (32)
        bytes += [0x02, 0x03, 0xCA, 0xDE]                                // device id 0xDECA0302, LE
        bytes += [0x00]                                                  // package id: SoC
        return bytes
    }()

    /// GET_CAPS_INFO AOA_SUPPORT tag (FiRa 2.0 numbering).
    static let aoaSupportTag: UInt8 = 0x13

    /// Azimuth ±90°, elevation and FOM: what a two-antenna QM33 module would announce.
    /// A DWM3001C has a single antenna and announces 0 (uci.md §5.3).
    static let aoaSupportWithAngles: UInt8 = 0x0D

    /// The 26 capability TLVs of V3, with AOA_SUPPORT set from the scenario.
    static func capabilities(hasAoA: Bool) -> [ConfigTLV] {
        var list: [ConfigTLV] = []
        // Parsed from the captured bytes so that nothing is retyped by hand.
        var index = 0
        while index + 1 < capsPayload.count {
            let id = capsPayload[index], length = Int(capsPayload[index + 1])
            let value = Array(capsPayload[(index + 2)..<(index + 2 + length)])
            list.append(ConfigTLV(id: id, value: id == aoaSupportTag ? [hasAoA ? aoaSupportWithAngles : 0x00] : value))
            index += 2 + length
        }
        return list
    }

    /// The TLV part of V3's payload (after status and count).
    private static let capsPayload: [UInt8] = [
        0x00, 0x02, 0x03, 0x01, 0x01, 0x02, 0xFF, 0x00, 0x02, 0x04, 0x02, 0x00, 0x02, 0x00, 0x03, 0x04,
        0x02, 0x00, 0x02, 0x00, 0x04, 0x01, 0x03, 0x05, 0x02, 0x03, 0x00, 0x06, 0x02, 0x1E, 0x00, 0x07,
        0x01, 0x19, 0x08, 0x01, 0x03, 0x09, 0x01, 0x02, 0x0A, 0x01, 0x02, 0x0B, 0x01, 0x01, 0x0C, 0x01,
        0x01, 0x0D, 0x01, 0x01, 0x0E, 0x01, 0x09, 0x0F, 0x01, 0x0A, 0x10, 0x01, 0x01, 0x11, 0x01, 0x3F,
        0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x13, 0x01, 0x00, 0x14, 0x01, 0x00, 0x15, 0x01, 0x00,
        0x16, 0x01, 0x02, 0x17, 0x01, 0x00, 0x18, 0x01, 0x00, 0x19, 0x01, 0x00,
    ]
}
