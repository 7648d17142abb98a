#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLibSerialPort

/// Lists the system's serial ports through libserialport (`sp_list_ports`), with USB ids, serial
/// numbers and descriptions read from sysfs. Pseudo-terminals are never listed (they are virtual).
///
/// Note: for legacy `ttyS*` UARTs libserialport opens each port once to weed out phantom ones.
public func listSerialPorts() throws(TransportError) -> [SerialPortInfo] {
    var listPointer: UnsafeMutablePointer<OpaquePointer?>?
    let result = sp_list_ports(&listPointer)
    guard result == SP_OK, let list = listPointer else {
        throw libserialportError(result, path: "serial port list", doing: "enumerate ports")
    }
    defer { sp_free_port_list(list) }
    let links = serialByIDLinks()
    var ports: [SerialPortInfo] = []
    var index = 0
    while let port = list[index] {
        index += 1
        guard let name = sp_get_port_name(port) else { continue }
        var info = SerialPortInfo(path: String(cString: name))
        switch sp_get_port_transport(port) {
        case SP_TRANSPORT_USB: info.transport = .usb
        case SP_TRANSPORT_BLUETOOTH: info.transport = .bluetooth
        default: info.transport = .native
        }
        if info.transport == .usb {
            var vendor: Int32 = -1
            var product: Int32 = -1
            if sp_get_port_usb_vid_pid(port, &vendor, &product) == SP_OK {
                info.vendorID = UInt16(exactly: vendor)
                info.productID = UInt16(exactly: product)
            }
            info.serialNumber = nonEmpty(sp_get_port_usb_serial(port))
            info.manufacturer = nonEmpty(sp_get_port_usb_manufacturer(port))
        }
        info.description = nonEmpty(sp_get_port_description(port))
        info.byIDPath = links[info.path]
        ports.append(info)
    }
    return ports.sorted { naturalOrder($0.path, $1.path) }
}

/// The ports that look like a DWM3001C, in the order `device.port: auto` should try them: by USB
/// serial number (stable across replugs and renumbering, so the same unit wins each time), then
/// by path.
public func autoCandidates(from ports: [SerialPortInfo]) -> [SerialPortInfo] {
    ports.filter(\.looksLikeDWM3001C).sorted { a, b in
        switch (a.serialNumber, b.serialNumber) {
        case let (x?, y?) where x != y: return x < y
        case (_?, nil): return true
        case (nil, _?): return false
        default: return naturalOrder(a.path, b.path)
        }
    }
}

/// The DWM3001C-looking ports on this system, in `auto` order (see `autoCandidates(from:)`).
public func autoCandidates() throws(TransportError) -> [SerialPortInfo] {
    autoCandidates(from: try listSerialPorts())
}

/// Orders `/dev/ttyACM2` before `/dev/ttyACM10`: text first, then the trailing number by value.
func naturalOrder(_ a: String, _ b: String) -> Bool {
    func split(_ s: String) -> (Substring, Int?) {
        let digits = s.reversed().prefix(while: { $0.isASCII && $0.isNumber }).count
        let stem = s.dropLast(digits)
        return (stem, digits > 0 && digits < 10 ? Int(s.suffix(digits)) : nil)
    }
    let (stemA, numberA) = split(a)
    let (stemB, numberB) = split(b)
    if stemA != stemB || numberA == nil || numberB == nil { return a < b }
    return numberA! < numberB!
}

/// Maps each device node to its `/dev/serial/by-id/` link (udev's stable names).
private func serialByIDLinks() -> [String: String] {
    let directory = "/dev/serial/by-id"
    guard let dir = opendir(directory) else { return [:] }
    defer { closedir(dir) }
    var links: [String: String] = [:]
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        guard name != ".", name != ".." else { continue }
        let link = directory + "/" + name
        if let target = realpath(link, nil) {
            links[String(cString: target)] = link
            free(target)
        }
    }
    return links
}

private func nonEmpty(_ text: UnsafeMutablePointer<CChar>?) -> String? {
    guard let text else { return nil }
    let value = String(cString: text).trimmingWhitespace
    return value.isEmpty ? nil : value
}
