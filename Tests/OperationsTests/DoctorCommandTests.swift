#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import DeviceLink
import Gateway
import SimulatorHosting
@testable import Commands
import Simulator
import Testing
import TestSupport

/// `uwb2mqtt doctor` against the real parts: the DWM3001C simulator on a real pseudo-terminal
/// (behind a link, as udev makes /dev/dwm3001c) and a real mosquitto with a password file.
@Suite struct DoctorCommandTests {
    static let password = "d0ctor-Pa55"

    /// Runs doctor; returns the exit status and the printed lines.
    func doctor(_ fixture: ConfigFixture) async -> (Int32, [String]) {
        let lines = Lines()
        let errors = Lines()
        let status = await DoctorCommand.main(["--config", fixture.configPath],
                                              console: Console(output: lines.append, errors: errors.append))
        #expect(errors.all.isEmpty)
        return (status, lines.all)
    }

    func line(_ lines: [String], _ name: String) -> String {
        lines.first { $0.dropFirst(6).hasPrefix(name.padding(toLength: 15, withPad: " ", startingAt: 0)) } ?? "<no \(name) line>"
    }

    func brokerWithPassword() async throws -> (MosquittoBroker, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-doctor-passwd")
        let file = try await MosquittoPasswordFile.create(in: directory, username: "gateway", password: Self.password)
        return (try await MosquittoBroker.start(.init(passwordFile: file)), directory)
    }

    @Test func everythingPresentIsAllOk() async throws {
        let fixture = try ConfigFixture()
        let simulator = try SimulatorHost(scenario: .default, linkPath: fixture.directory.file("dwm3001c"))
        defer { simulator.stop() }
        let (broker, passwords) = try await brokerWithPassword()
        defer { broker.stop(); _ = passwords }
        try fixture.writeConfig(port: fixture.directory.file("dwm3001c"), url: broker.url, username: "gateway", password: Self.password)

        let (status, lines) = await doctor(fixture)
        #expect(status == 0, "\(lines.joined(separator: "\n"))")
        for name in ["config", "password file", "rules", "device port", "device access", "device UCI", "broker", "spool dir"] {
            #expect(line(lines, name).hasPrefix("ok    "), "\(line(lines, name))")
        }
        // This machine's kernel clock may not be NTP-disciplined (a container): ok or warn, never FAIL.
        #expect(line(lines, "clock").hasPrefix("ok    ") || line(lines, "clock").hasPrefix("warn  "))
        #expect(line(lines, "device UCI").contains("UCI 2.0.0"), "\(line(lines, "device UCI"))")
        #expect(line(lines, "device UCI").contains("firmware "))
        #expect(line(lines, "broker").contains("as gateway"))
        #expect(lines.last?.hasPrefix("doctor: all checks passed") == true)
        #expect(!lines.joined().contains(Self.password))
        // The probe talks as the agent's bring-up does: a reset, the identity, the capabilities; no session.
        #expect(simulator.commandsSeen == [.coreDeviceReset(resetConfig: 0), .coreGetDeviceInfo, .coreGetCapsInfo])
        #expect(line(lines, "device UCI").contains("capabilities: angle of arrival no, extended MAC addresses no"), "\(line(lines, "device UCI"))")
    }

    @Test func wrongPasswordIsABrokerFailureExitThree() async throws {
        let fixture = try ConfigFixture()
        let simulator = try SimulatorHost(scenario: .default, linkPath: fixture.directory.file("dwm3001c"))
        defer { simulator.stop() }
        let (broker, passwords) = try await brokerWithPassword()
        defer { broker.stop(); _ = passwords }
        try fixture.writeConfig(port: fixture.directory.file("dwm3001c"), url: broker.url, username: "gateway", password: "wrong-Pa55word")

        let (status, lines) = await doctor(fixture)
        #expect(status == 3)
        let brokerLine = line(lines, "broker")
        #expect(brokerLine.hasPrefix("FAIL  "), "\(brokerLine)")
        #expect(brokerLine.contains("refused the credentials as gateway"))
        #expect(brokerLine.contains("hint: "))
        #expect(line(lines, "device UCI").hasPrefix("ok    "))
        #expect(!lines.joined().contains("wrong-Pa55word"))
    }

    @Test func missingPortIsADeviceFailureExitThree() async throws {
        let fixture = try ConfigFixture()
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let port = fixture.directory.file("dwm3001c-unplugged")
        try fixture.writeConfig(port: port, url: broker.url)

        let (status, lines) = await doctor(fixture)
        #expect(status == 3)
        #expect(line(lines, "device port").hasPrefix("FAIL  "))
        #expect(line(lines, "device port").contains("\(port): no such device"))
        #expect(line(lines, "device UCI").hasPrefix("skip  "))
        #expect(line(lines, "broker").hasPrefix("ok    "))
        #expect(line(lines, "broker").contains("anonymously"))
    }

    @Test func aWellKnownSessionKeyIsAWarning() async throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: fixture.directory.file("dwm3001c-unplugged"), sessionKey: nil)
        let (status, lines) = await doctor(fixture)
        #expect(status == 3) // no device, no broker: the key itself fails nothing
        #expect(line(lines, "config").hasPrefix("ok    "))
        let key = line(lines, "session key")
        #expect(key.hasPrefix("warn  "), "\(lines)")
        #expect(key.contains("device.session_key_info is a well-known demo key (08 07 01 02 03 04 05 06"), "\(key)")
        #expect(key.contains("hint: put the output of `openssl rand -hex 8` in device.session_key_info"), "\(key)")
    }

    /// An unplugged board behind a udev link: the link dangles.
    @Test func danglingLinkSaysUnplugged() async throws {
        let fixture = try ConfigFixture()
        let link = fixture.directory.file("dwm3001c")
        #expect(symlink("/dev/ttyACM-gone", link) == 0)
        try fixture.writeConfig(port: link)
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath)
        let port = try #require(checks.first { $0.name == "device port" })
        #expect(port.verdict == .fail)
        #expect(port.detail.contains("unplugged"))
    }

    /// A board that is there but silent (a pseudo-terminal nobody answers on, like the CLI
    /// firmware ignoring UCI): the probe gives up at its deadline with a hint.
    @Test func silentDeviceFailsAtTheDeadline() async throws {
        let fixture = try ConfigFixture()
        let terminal = try fixture.deviceTerminal()
        defer { terminal.close() }
        var limits = DoctorCommand.Limits()
        limits.deviceTimeout = .milliseconds(500)
        let clock = ContinuousClock()
        let start = clock.now
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath, limits: limits)
        let uci = try #require(checks.first { $0.name == "device UCI" })
        #expect(uci.verdict == .fail)
        #expect(uci.detail.contains("no answer to CORE_DEVICE_RESET"), "\(uci)")
        #expect(uci.detail.contains("within 0.5 s"), "\(uci)")
        #expect(uci.hint != nil)
        #expect(clock.now - start < .seconds(120), "gives up, does not hang (0.5 s alone; a loaded CI machine is slower)")
        // What the probe sent is exactly one CORE_DEVICE_RESET_CMD.
        #expect(try terminal.read(maximum: 64, timeout: .seconds(1)) == [0x20, 0x00, 0x00, 0x01, 0x00])
    }

    /// A device that wants a reset before anything else: it answers every other command with
    /// DEVICE_STATUS_NTF(ERROR). The probe resets it first, as the agent does, and passes.
    /// A device whose READY comes 300 ms after its reset answer: doctor waits for it, as `run`
    /// does, before asking who the device is (it asked a fraction of a millisecond after the
    /// answer, and such a device refuses).
    @Test func aLateReadyIsWaitedFor() async throws {
        let fixture = try ConfigFixture()
        let terminal = try fixture.deviceTerminal()
        defer { terminal.close() }
        let device = LateReadyDevice(terminal: terminal, readyDelay: .milliseconds(300))
        defer { device.stop() }
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath)
        let uci = try #require(checks.first { $0.name == "device UCI" })
        #expect(uci.verdict == .ok, "\(uci)")
        #expect(uci.detail.contains("capabilities: angle of arrival"), "\(uci)")
        #expect(device.commandsBeforeReady == 0, "\(device.commands)")
        #expect(device.commands == ["CORE_DEVICE_RESET_CMD", "CORE_GET_DEVICE_INFO_CMD", "CORE_GET_CAPS_INFO_CMD"])
    }

    @Test func aDeviceThatWantsAResetFirstPasses() async throws {
        let fixture = try ConfigFixture()
        let terminal = try fixture.deviceTerminal()
        defer { terminal.close() }
        let device = ResetFirstDevice(terminal: terminal)
        defer { device.stop() }
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath)
        let uci = try #require(checks.first { $0.name == "device UCI" })
        #expect(uci.verdict == .ok, "\(uci)")
        #expect(uci.detail.contains("UCI 2.0.0"), "\(uci)")
    }

    /// The same device, but one that never takes the reset either: the report says what it sent.
    @Test func aDeviceInErrorThatRefusesTheResetIsReportedAsSeen() async throws {
        let fixture = try ConfigFixture()
        let terminal = try fixture.deviceTerminal()
        defer { terminal.close() }
        let device = ResetFirstDevice(terminal: terminal, acceptsReset: false)
        defer { device.stop() }
        var limits = DoctorCommand.Limits()
        limits.deviceTimeout = .milliseconds(500)
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath, limits: limits)
        let uci = try #require(checks.first { $0.name == "device UCI" })
        #expect(uci.verdict == .fail)
        #expect(uci.detail.contains("sent CORE_DEVICE_STATUS_NTF(DEVICE_STATE_ERROR) but did not answer CORE_DEVICE_RESET"), "\(uci)")
        #expect(uci.hint?.contains("flash") == false, "\(uci)")
    }

    /// A device that answers the reset with a response too short to hold its status: the check
    /// names the message and its size instead of waiting for a proper answer.
    @Test func aMalformedAnswerIsNamed() async throws {
        let fixture = try ConfigFixture()
        let terminal = try fixture.deviceTerminal()
        defer { terminal.close() }
        // CORE_DEVICE_RESET_RSP with an empty payload.
        let device = ResetFirstDevice(terminal: terminal, resetAnswer: [0x40, 0x00, 0x00, 0x00])
        defer { device.stop() }
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath)
        let uci = try #require(checks.first { $0.name == "device UCI" })
        #expect(uci.verdict == .fail)
        #expect(uci.detail == "malformed CORE_DEVICE_RESET_RSP: 0 bytes", "\(uci)")
    }

    @Test func unreachableBrokerIsExitThree() async throws {
        let fixture = try ConfigFixture()
        let simulator = try SimulatorHost(scenario: .default, linkPath: fixture.directory.file("dwm3001c"))
        defer { simulator.stop() }
        let closedPort = try freeLoopbackPort()
        try fixture.writeConfig(port: fixture.directory.file("dwm3001c"), url: "mqtt://127.0.0.1:\(closedPort)")
        let (status, lines) = await doctor(fixture)
        #expect(status == 3)
        #expect(line(lines, "broker").hasPrefix("FAIL  "))
        #expect(line(lines, "broker").contains("unreachable"), "\(line(lines, "broker"))")
    }

    @Test func brokenConfigIsExitOneWithFileLineColumn() async throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", mqttExtra: ["keepalive: 1s"])
        let (status, lines) = await doctor(fixture)
        #expect(status == 1)
        #expect(lines.count == 2) // the config line and the summary: nothing else can be checked
        #expect(line(lines, "config").hasPrefix("FAIL  \("config".padding(toLength: 15, withPad: " ", startingAt: 0))\(fixture.configPath):10:14: mqtt.keepalive"),
                "\(lines)")
    }

    @Test func missingPasswordFileIsAConfigFailureAndSkipsTheBroker() async throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", username: "gateway", mqttExtra: ["password_file: /nonexistent/mqtt.password"])
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath)
        #expect(checks.first { $0.name == "password file" }?.verdict == .fail)
        #expect(checks.first { $0.name == "broker" }?.verdict == .skip)
        #expect(DoctorCommand.exitStatus(checks) == 1)
    }

    @Test func missingRulesAndUnwritableSpoolAreConfigFailures() async throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", mqttExtra: [])
        try FileManager.default.removeItem(atPath: fixture.rulesPath)
        let checks = await DoctorCommand.diagnose(configPath: fixture.configPath)
        #expect(checks.first { $0.name == "rules" }?.verdict == .fail)
        #expect(DoctorCommand.exitStatus(checks) == 1)
    }

    /// The synchronous entry point the `uwb2mqtt` main thread calls blocks until done; called here
    /// from a plain thread, never from a concurrency thread it would starve.
    @Test func synchronousEntryPointReturnsTheStatus() async throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", mqttExtra: ["qos_ranges: 7"])
        let path = fixture.configPath
        let status = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: DoctorCommand.main(["--config", path])) }.start()
        }
        #expect(status == 1)
        let usage = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: DoctorCommand.main(["--frobnicate"])) }.start()
        }
        #expect(usage == 2)
    }
}
