/// A serial port the system lists, with the USB identity that tells which one is the DWM3001C
/// (ports renumber across replugs, so the agent finds its device by id, not by name).
public struct SerialPortInfo: Sendable, Equatable, Hashable {
    /// How the port is attached, as libserialport reports it.
    public enum Transport: String, Sendable, Equatable, Hashable {
        case native, usb, bluetooth
    }

    /// The device node, `/dev/ttyACM0`.
    public var path: String
    public var transport: Transport
    public var vendorID: UInt16?
    public var productID: UInt16?
    /// The USB serial number string (per unit; also part of its `/dev/serial/by-id/` name).
    public var serialNumber: String?
    /// libserialport's description: for USB the product string ("nRF52 USB Product").
    public var description: String?
    public var manufacturer: String?
    /// The stable `/dev/serial/by-id/…` link to this port, when udev made one.
    public var byIDPath: String?

    public init(path: String, transport: Transport = .native, vendorID: UInt16? = nil, productID: UInt16? = nil,
                serialNumber: String? = nil, description: String? = nil, manufacturer: String? = nil,
                byIDPath: String? = nil) {
        self.path = path
        self.transport = transport
        self.vendorID = vendorID
        self.productID = productID
        self.serialNumber = serialNumber
        self.description = description
        self.manufacturer = manufacturer
        self.byIDPath = byIDPath
    }

    /// USB 1915:520F: the nRF52833's CDC-ACM port on the DWM3001CDK's J20 (uci.md §6.2). The
    /// generic Nordic SDK id, shared by the CLI firmware, so a candidate still needs a UCI probe.
    public static let dwm3001cVendorID: UInt16 = 0x1915
    public static let dwm3001cProductID: UInt16 = 0x520F

    /// USB 1366:0105: the SEGGER J-Link on J9, which also offers a serial port but not UCI.
    static let jLinkVendorID: UInt16 = 0x1366
    static let jLinkProductID: UInt16 = 0x0105

    public var looksLikeDWM3001C: Bool {
        vendorID == Self.dwm3001cVendorID && productID == Self.dwm3001cProductID
    }

    /// The debugger's port: worth pointing out, since it is the other USB socket on the same board.
    var looksLikeJLink: Bool {
        vendorID == Self.jLinkVendorID && productID == Self.jLinkProductID
    }

    /// `1915:520F`, or nil when the port is not USB.
    public var usbID: String? {
        guard let vendorID, let productID else { return nil }
        return hex4(vendorID) + ":" + hex4(productID)
    }
}

private func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
}
