#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Gateway
@testable import Commands
import Testing
import TestSupport
import RulesReading

/// `uwb2mqtt check`.
@Suite struct CheckCommandTests {
    /// Runs `check` and returns (status, stdout lines, stderr lines).
    func check(_ arguments: [String]) -> (Int32, [String], [String]) {
        let output = Lines()
        let errors = Lines()
        let status = CheckCommand.main(arguments, console: Console(output: output.append, errors: errors.append))
        return (status, output.all, errors.all)
    }

    @Test func validConfigAndRulesAreExitZero() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "/dev/ttyACM0", username: "gateway", password: "pw")
        let (status, output, errors) = check(["--config", fixture.configPath])
        #expect(status == 0)
        #expect(errors.isEmpty, "\(errors)")
        #expect(output.contains { $0.hasPrefix("\(fixture.rulesPath): rules valid (sha256 ") })
        #expect(output.last == "\(fixture.configPath): ok")
    }

    @Test func brokenRulesAreExitOneWithFileLineColumn() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "/dev/ttyACM0")
        try fixture.directory.write("rules.yaml", "version: 1\nzones:\n  - name: counter\n    enter_within: 1.3\n    exit_beyond: 1.0\n")
        let (status, _, errors) = check(["--config", fixture.configPath])
        #expect(status == 1)
        #expect(errors == ["\(fixture.rulesPath):5:18: exit_beyond (1 m) must be greater than enter_within (1.3 m)"])
    }

    @Test func brokenConfigIsExitOneWithFileLineColumn() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "/dev/ttyACM0", mqttExtra: ["qos_range: 1"])
        let (status, output, errors) = check(["--config=\(fixture.configPath)"])
        #expect(status == 1)
        #expect(errors.count == 1)
        // mqtt: is line 7; its entries start at line 8: url, spool_dir, qos_range.
        let line = try #require(errors.first)
        #expect(line.hasPrefix("\(fixture.configPath):10:3: "), "\(line)")
        #expect(line.contains("qos_range"))
        #expect(!output.contains { $0.hasSuffix(": ok") })
    }

    @Test func syntaxErrorIsExitOneWithFileLineColumn() throws {
        let fixture = try ConfigFixture()
        try fixture.directory.write("config.yaml", "device:\n  port: [unclosed\n")
        let (status, _, errors) = check(["--config", fixture.configPath])
        #expect(status == 1)
        #expect(errors.first?.range(of: #"^.*config\.yaml:\d+:\d+: "#, options: .regularExpression) != nil, "\(errors)")
    }

    @Test func missingConfigIsExitOne() throws {
        let fixture = try ConfigFixture()
        let (status, _, errors) = check(["--config", fixture.directory.file("nope.yaml")])
        #expect(status == 1)
        #expect(errors == ["cannot read \(fixture.directory.file("nope.yaml")): no such file"])
    }

    /// A path that is not a regular file is named for what it is, and no file is read whole
    /// however large: a FIFO would block for ever, /dev/zero never ends.
    @Test func aConfigThatIsNotAFileSaysWhatItIs() throws {
        let fixture = try ConfigFixture()
        let fifo = fixture.directory.file("fifo.yaml")
        #expect(mkfifo(fifo, 0o600) == 0)
        let big = try fixture.directory.write("big.yaml", String(repeating: "# padding\n", count: 120_000))
        for (path, reason) in [(fixture.directory.path, "it is a directory, not a file"), (fifo, "it is a FIFO, not a file"),
                               ("/dev/zero", "it is a character device, not a file"),
                               (big, "it is 1200000 bytes; the limit is 1048576 bytes")] {
            let (status, _, errors) = check(["--config", path])
            #expect(status == 1)
            #expect(errors == ["cannot read \(path): \(reason)"])
        }
    }

    @Test func aNamedPathThatIsNotAFileSaysWhatItIs() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", username: "gateway", mqttExtra: ["password_file: /tmp", "ca_file: /dev/zero"])
        let (_, _, errors) = check(["--config", fixture.configPath])
        #expect(errors.contains { $0.hasSuffix("mqtt.password_file names /tmp, which is a directory, not a file") }, "\(errors)")
        #expect(errors.contains { $0.hasSuffix("mqtt.ca_file names /dev/zero, which is a character device, not a file") }, "\(errors)")
        #expect(!errors.contains { $0.contains("cannot read") })
    }

    @Test func missingNamedFilesAreWarningsWithTheirKeyPosition() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", username: "gateway",
                                mqttExtra: ["password_file: /nonexistent/mqtt.password", "ca_file: /nonexistent/ca.crt"])
        try FileManager.default.removeItem(atPath: fixture.rulesPath)
        let (status, output, errors) = check(["--config", fixture.configPath])
        #expect(status == 0)
        #expect(errors.count == 3, "\(errors)")
        #expect(errors.allSatisfy { $0.hasPrefix("warning: \(fixture.configPath):") })
        #expect(errors.contains { $0.contains(":11:18: mqtt.password_file names /nonexistent/mqtt.password, which does not exist") }, "\(errors)")
        #expect(errors.contains { $0.contains("mqtt.ca_file names /nonexistent/ca.crt") })
        #expect(errors.contains { $0.contains(":13:8: rules names \(fixture.rulesPath), which does not exist") }, "\(errors)")
        #expect(output.last == "\(fixture.configPath): ok (3 warnings)")
    }

    @Test func worldReadablePasswordFileIsAWarningWithoutThePassword() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", username: "gateway", password: "hunter2-secret")
        chmod(fixture.passwordPath, 0o644)
        let (status, output, errors) = check(["--config", fixture.configPath])
        #expect(status == 0)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("readable by every user") == true)
        #expect(!(output + errors).joined().contains("hunter2-secret"))
    }

    @Test func explicitRulesFileMustExist() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto")
        let missing = fixture.directory.file("other-rules.yaml")
        let (status, _, errors) = check(["--config", fixture.configPath, "--rules", missing])
        #expect(status == 1)
        #expect(errors == ["\(missing): no such file"])
    }

    /// A rules or config path pointed at a private key or a password file (issue #35): the error
    /// names the place and what was expected, and prints nothing of the file.
    @Test(arguments: [("id_ed25519", SecretFiles.openSSHPrivateKey), ("mqtt.password", SecretFiles.password)])
    func aSecretFileGivenAsRulesOrConfigIsNotPrinted(name: String, secret: String) throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto")
        let path = try fixture.directory.write(name, secret)
        let expected = "\(path):1:1: expected a mapping (key: value pairs) at the top of the file, found text (not quoted: this may not be the file meant)"
        for arguments in [["--config", fixture.configPath, "--rules", path], ["--config", path]] {
            let (status, output, errors) = check(arguments)
            #expect(status == 1)
            #expect(errors == [expected], "\(arguments)")
            #expect(SecretFiles.leaks(of: secret, in: (output + errors).joined(separator: "\n")).isEmpty, "\(output + errors)")
        }
    }

    /// 10,000 zones (under the 1 MiB file limit) are refused at the 65th, which `check` names.
    @Test func tenThousandZonesAreRefusedAtTheSixtyFifth() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto")
        let path = try fixture.directory.write("huge-rules.yaml", LargeRulesFile.text(zones: 10_000))
        let (status, _, errors) = check(["--config", fixture.configPath, "--rules", path])
        #expect(status == 1)
        #expect(errors == ["\(path):67:5: at most 64 zones are allowed, found 10000 (this is the 65th)"])
    }

    @Test func badBrokerPortIsAnErrorAtTheURL() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto", url: "mqtt://broker:99999")
        let (status, _, errors) = check(["--config", fixture.configPath])
        #expect(status == 1)
        #expect(errors.first?.hasPrefix("\(fixture.configPath):8:8: ") == true, "\(errors)")
    }

    @Test(arguments: [["--bogus"], ["--config"], ["extra"], ["--config", "a", "--config", "b"]])
    func badUsageIsExitTwo(arguments: [String]) {
        let (status, output, errors) = check(arguments)
        #expect(status == 2)
        #expect(output.isEmpty)
        #expect(errors.first?.hasPrefix("uwb2mqtt: check: ") == true)
    }

    /// The shipped example config is valid (its /etc files are absent here: warnings only).
    @Test func aWellKnownSessionKeyIsAWarning() throws {
        let fixture = try ConfigFixture()
        // Left out: the profile's default, the demo key; the warning points at the device section.
        try fixture.writeConfig(port: "auto", sessionKey: nil)
        var (status, output, errors) = check(["--config", fixture.configPath])
        #expect(status == 0)
        #expect(errors == ["warning: \(fixture.configPath):4:3: device.session_key_info is a well-known demo key (08 07 01 02 03 04 05 06, "
                           + "the profiles' default): anyone can follow these sessions; set a random one (openssl rand -hex 8) on every gateway and tag"])
        #expect(output.last == "\(fixture.configPath): ok (1 warning)")

        // Written: the warning points at the key.
        try fixture.writeConfig(port: "auto", sessionKey: "07 08 01 02 03 04 05 06")
        (status, output, errors) = check(["--config", fixture.configPath])
        #expect(status == 0)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("warning: \(fixture.configPath):5:21: device.session_key_info is a well-known demo key (07 08 01 02 03 04 05 06): ") == true,
                "\(errors)")
    }

    @Test func aPrivateSessionKeyIsNeverPrinted() throws {
        let fixture = try ConfigFixture()
        try fixture.writeConfig(port: "auto")
        let (status, output, errors) = check(["--config", fixture.configPath])
        #expect(status == 0)
        #expect(errors.isEmpty, "\(errors)")
        #expect(!(output + errors).joined().contains(ConfigFixture.privateSessionKey))
    }

    @Test func shippedExampleConfigIsValid() throws {
        let (status, output, errors) = check(["--config", repositoryRoot + "/deploy/config.yaml", "--rules", repositoryRoot + "/deploy/rules.yaml"])
        #expect(status == 0, "\(errors)")
        #expect(errors.allSatisfy { $0.hasPrefix("warning: ") }, "\(errors)")
        #expect(output.contains { $0.hasPrefix(repositoryRoot + "/deploy/rules.yaml: rules valid (sha256 ") }, "\(output)")
    }
}
