/// A version as CORE_GET_DEVICE_INFO reports it: byte 0 major, byte 1 `minor<<4 | maintenance`
/// (`02 00` is 2.0.0, `01 10` is 1.1.0).
public struct UCIVersion: Hashable, Sendable, CustomStringConvertible, Comparable {
    public var major: UInt8
    public var minor: UInt8
    public var maintenance: UInt8

    public init(major: UInt8, minor: UInt8, maintenance: UInt8 = 0) {
        self.major = major
        self.minor = minor & 0x0F
        self.maintenance = maintenance & 0x0F
    }

    init(_ reader: inout ByteReader, _ field: StaticString) throws(UCIDecodingError) {
        let b0 = try reader.u8(field), b1 = try reader.u8(field)
        self.init(major: b0, minor: b1 >> 4, maintenance: b1 & 0x0F)
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.append(major)
        bytes.append(minor << 4 | maintenance & 0x0F)
    }

    public var description: String { "\(major).\(minor).\(maintenance)" }

    public static func < (a: UCIVersion, b: UCIVersion) -> Bool {
        (a.major, a.minor, a.maintenance) < (b.major, b.minor, b.maintenance)
    }
}

/// The body of a successful CORE_GET_DEVICE_INFO_RSP.
public struct DeviceInfo: Hashable, Sendable {
    public var uciVersion: UCIVersion
    public var macVersion: UCIVersion
    public var phyVersion: UCIVersion
    public var uciTestVersion: UCIVersion
    /// Vendor-specific bytes; on Qorvo firmware 52 bytes that `qorvo` decodes.
    public var vendorInfo: [UInt8]

    public init(uciVersion: UCIVersion, macVersion: UCIVersion, phyVersion: UCIVersion, uciTestVersion: UCIVersion,
                vendorInfo: [UInt8] = []) {
        self.uciVersion = uciVersion
        self.macVersion = macVersion
        self.phyVersion = phyVersion
        self.uciTestVersion = uciTestVersion
        self.vendorInfo = vendorInfo
    }

    /// The Qorvo vendor block (uci.md §6.3), when the vendor info has its 52-byte shape.
    public var qorvo: QorvoVendorInfo? { QorvoVendorInfo(vendorInfo) }
}

/// Qorvo's 52-byte vendor info: firmware version, build, chip and device ids (uci.md §6.3).
public struct QorvoVendorInfo: Hashable, Sendable {
    /// Internal firmware version: major, minor, patch, release candidate.
    public var firmwareVersion: (UInt8, UInt8, UInt8, UInt8) { (raw[0], raw[1], raw[2], raw[3]) }
    /// `1.1.0-rc0`-style rendering of the internal firmware version.
    public var firmwareVersionString: String {
        "\(raw[0]).\(raw[1]).\(raw[2])" + "-rc\(raw[3])"
    }
    public var buildID: [UInt8] { Array(raw[4..<12]) }
    public var productFirmwareVersion: [UInt8] { Array(raw[12..<15]) }
    public var chipID: [UInt8] { Array(raw[15..<47]) }
    /// Little-endian device id; a DWM3001CDK reports 0xDECA0302.
    public var deviceID: UInt32 {
        UInt32(raw[47]) | UInt32(raw[48]) << 8 | UInt32(raw[49]) << 16 | UInt32(raw[50]) << 24
    }
    /// 0 SoC, 1 SiP.
    public var packageID: UInt8 { raw[51] }

    private let raw: [UInt8]

    public init?(_ vendorInfo: [UInt8]) {
        guard vendorInfo.count == 52 else { return nil }
        raw = vendorInfo
    }

    public static func == (a: QorvoVendorInfo, b: QorvoVendorInfo) -> Bool { a.raw == b.raw }
    public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
}
