/// The text `uwb2mqtt ports` prints: one line per serial port with its path, USB VID:PID, serial
/// number and description, a `*` on the ones that look like a DWM3001C, then a line that says what
/// `device.port: auto` would do, or, when no port matches, how to make the device appear.
public func portsReport(_ ports: [SerialPortInfo]) -> String {
    var lines: [String] = []
    if ports.isEmpty {
        lines.append("No serial ports found.")
    } else {
        let rows = ports.map { port -> [String] in
            var text = port.description ?? ""
            if let manufacturer = port.manufacturer, !text.contains(manufacturer) {
                text += text.isEmpty ? manufacturer : " (\(manufacturer))"
            }
            if port.looksLikeJLink { text += (text.isEmpty ? "" : " ") + "[J-Link debugger (J9), not the UCI port]" }
            return [port.looksLikeDWM3001C ? "*" : " ", port.path, port.usbID ?? "-",
                    port.serialNumber ?? "-", text.isEmpty ? "-" : text]
        }
        let header = [" ", "PORT", "VID:PID", "SERIAL", "DESCRIPTION"]
        let widths = (0..<header.count).map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func render(_ row: [String]) -> String {
            var line = ""
            for (column, cell) in row.enumerated() {
                let last = column == row.count - 1
                line += last ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }
            return line
        }
        lines.append(render(header))
        for (port, row) in zip(ports, rows) {
            lines.append(render(row))
            if let link = port.byIDPath {
                lines.append(String(repeating: " ", count: widths[0] + 2) + "  " + link)
            }
        }
    }
    let candidates = autoCandidates(from: ports)
    lines.append("")
    if let first = candidates.first {
        let which = candidates.count == 1
            ? "`device.port: auto` uses \(first.path)"
            : "`device.port: auto` tries the \(candidates.count) of them by serial number, starting with \(first.path)"
        lines.append("* looks like a DWM3001C (USB 1915:520F, the nRF52833's CDC-ACM port on J20); \(which).")
        lines.append("  The CLI firmware has the same USB id: the agent confirms UCI by asking CORE_GET_DEVICE_INFO.")
    } else {
        lines.append("No port looks like a DWM3001C (USB 1915:520F).")
        lines.append("Plug the DWM3001CDK's J20 USB port (the nRF52833; J9 is the J-Link debugger), check `dmesg` for a new ttyACM device,")
        lines.append("and install the udev rule: SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"1915\", ATTRS{idProduct}==\"520f\", MODE=\"0660\", GROUP=\"dialout\", SYMLINK+=\"uwb-%s{serial}\"")
    }
    return lines.joined(separator: "\n") + "\n"
}

/// `uwb2mqtt ports` for this system: enumerates, then renders; an enumeration failure is reported
/// as a line of the report rather than thrown, since the command only informs.
public func portsReport() -> String {
    do {
        return portsReport(try listSerialPorts())
    } catch {
        return "Cannot list serial ports: \(error.message)\n"
    }
}
