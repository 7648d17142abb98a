import Testing
import UCI
@testable import Simulator

@Suite("Input framing like the firmware's UART reader (uci.md §1.4)")
struct InputFramingTests {
    @Test("a command fed one byte at a time is answered once, after its last byte")
    func oneByteAtATime() throws {
        var device = try SimulatedDevice()
        let bytes = wire(.sessionInit(sessionID: 7))
        var out: [DeviceOutput] = []
        for (index, byte) in bytes.enumerated() {
            let step = device.receive([byte], at: Double(index) * 0.001)
            if index < bytes.count - 1 { #expect(step.isEmpty) }
            out += step
        }
        #expect(out.writtenBytes == hex("41 00 00 05 00 01 00 00 00 61 02 00 06 01 00 00 00 00 00"))
    }

    @Test("garbage before a command is ignored")
    func garbageBeforeCommand() throws {
        var device = try SimulatedDevice()
        let out = device.receive(hex("ff 55 c3 7e 20 02 00 00"), at: 0)
        let list = messages(out)
        #expect(list.map(\.name) == ["CORE_GET_DEVICE_INFO_RSP"])
        #expect(device.discardedInputBytes == 4)
    }

    @Test("an incomplete packet is flushed after 100 ms of silence and the next command works")
    func partialPacketFlush() throws {
        var device = try SimulatedDevice()
        #expect(device.receive(hex("21 00 00 05 07 00"), at: 0).isEmpty)   // truncated SESSION_INIT
        #expect(device.nextEventTime == 0.1)
        #expect(device.advance(to: 0.1).isEmpty)
        #expect(device.discardedInputBytes == 6)
        let list = messages(device.receive(hex("20 02 00 00"), at: 0.2))
        #expect(list.map(\.name) == ["CORE_GET_DEVICE_INFO_RSP"])
    }

    @Test("without the pause, the partial packet swallows the next command's bytes, as on the device")
    func noFlushWithoutSilence() throws {
        var device = try SimulatedDevice()
        _ = device.receive(hex("21 00 00 05 07 00"), at: 0)
        // Three bytes of GET_DEVICE_INFO complete the 5-byte payload; the fourth is left over.
        let out = device.receive(hex("20 02 00 00"), at: 0.05)
        #expect(responses(messages(out)).first.map { $0.opcode == .sessionInit } == true)
    }

    @Test("data and test packets are ignored")
    func dataIgnored() throws {
        var device = try SimulatedDevice()
        #expect(device.receive(hex("01 00 02 00 aa bb"), at: 0).isEmpty)
    }
}
