import DeviceLink
import Testing

/// `uwb2mqtt ports` output, from constructed ports (this machine has no USB serial devices), and
/// enumeration on the real system.
@Suite struct PortsReportTests {
    static let dwm = SerialPortInfo(
        path: "/dev/ttyACM0", transport: .usb, vendorID: 0x1915, productID: 0x520F,
        serialNumber: "E1A2B3C4D5E6", description: "nRF52 USB Product", manufacturer: "Nordic Semiconductor",
        byIDPath: "/dev/serial/by-id/usb-Nordic_Semiconductor_nRF52_USB_Product_E1A2B3C4D5E6-if00")
    static let jLink = SerialPortInfo(
        path: "/dev/ttyACM1", transport: .usb, vendorID: 0x1366, productID: 0x0105,
        serialNumber: "000760012345", description: "J-Link", manufacturer: "SEGGER")
    static let uart = SerialPortInfo(path: "/dev/ttyS0", description: "ttyS0")

    @Test func marksTheDWM3001CAndShowsIdsSerialsAndDescriptions() {
        let report = portsReport([Self.dwm, Self.jLink, Self.uart])
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "   PORT          VID:PID    SERIAL        DESCRIPTION")
        #expect(lines[1] == "*  /dev/ttyACM0  1915:520F  E1A2B3C4D5E6  nRF52 USB Product (Nordic Semiconductor)")
        #expect(lines[2] == "     /dev/serial/by-id/usb-Nordic_Semiconductor_nRF52_USB_Product_E1A2B3C4D5E6-if00")
        #expect(lines[3] == "   /dev/ttyACM1  1366:0105  000760012345  J-Link (SEGGER) [J-Link debugger (J9), not the UCI port]")
        #expect(lines[4] == "   /dev/ttyS0    -          -             ttyS0")
        #expect(lines[5] == "")
        #expect(lines[6].hasPrefix("* looks like a DWM3001C (USB 1915:520F"))
        #expect(lines[6].hasSuffix("`device.port: auto` uses /dev/ttyACM0."))
        var twin = Self.dwm
        twin.path = "/dev/ttyACM4"
        twin.serialNumber = "0000"
        #expect(portsReport([Self.dwm, twin]).contains("tries the 2 of them by serial number, starting with /dev/ttyACM4."))
        #expect(report.contains("CORE_GET_DEVICE_INFO"))
        #expect(report.hasSuffix("\n"))
    }

    @Test func saysSoWhenNoPortLooksLikeADWM3001C() {
        let report = portsReport([Self.uart])
        #expect(report.contains("No port looks like a DWM3001C (USB 1915:520F)."))
        #expect(report.contains("J20"))
        #expect(report.contains("ATTRS{idProduct}==\"520f\""))
        #expect(!report.contains("*"))
    }

    @Test func saysSoWhenThereAreNoPortsAtAll() {
        let report = portsReport([])
        #expect(report.hasPrefix("No serial ports found.\n"))
        #expect(report.contains("No port looks like a DWM3001C"))
    }

    @Test func autoCandidatesAreTheDWM3001CPortsInSerialNumberOrder() {
        var second = Self.dwm
        second.path = "/dev/ttyACM2"
        second.serialNumber = "A0000000"
        var noSerial = Self.dwm
        noSerial.path = "/dev/ttyACM10"
        noSerial.serialNumber = nil
        var noSerialLow = noSerial
        noSerialLow.path = "/dev/ttyACM3"
        let candidates = autoCandidates(from: [noSerial, Self.uart, Self.dwm, Self.jLink, noSerialLow, second])
        #expect(candidates.map(\.path) == ["/dev/ttyACM2", "/dev/ttyACM0", "/dev/ttyACM3", "/dev/ttyACM10"])
    }

    @Test func identifiesTheDWM3001CByUSBIdOnly() {
        #expect(Self.dwm.looksLikeDWM3001C)
        #expect(!Self.jLink.looksLikeDWM3001C)
        #expect(!Self.uart.looksLikeDWM3001C)
        #expect(Self.dwm.usbID == "1915:520F")
        #expect(Self.uart.usbID == nil)
    }

    @Test func enumeratesTheRealSystemWithoutFailing() throws {
        let ports = try listSerialPorts()
        for port in ports {
            #expect(port.path.hasPrefix("/dev/"))
            #expect(!port.path.hasPrefix("/dev/pts/"))
        }
        #expect(try autoCandidates() == autoCandidates(from: ports))
        let report = portsReport()
        #expect(report.hasSuffix("\n"))
        #expect(!report.isEmpty)
    }
}
