#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import DeviceLink
import Foundation
import Gateway
@testable import Commands
import Testing
import TestSupport

/// A config directory for one test: config.yaml, rules.yaml, a password file and a spool dir,
/// all in a temporary directory that goes away with the fixture.
final class ConfigFixture: Sendable {
    let directory: TemporaryDirectory
    var configPath: String { directory.file("config.yaml") }
    var rulesPath: String { directory.file("rules.yaml") }
    var passwordPath: String { directory.file("mqtt.password") }
    var spoolPath: String { directory.file("spool") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "uwb2mqtt-ops")
        try directory.write("rules.yaml", "version: 1\n")
        try FileManager.default.createDirectory(atPath: spoolPath, withIntermediateDirectories: false)
    }

    /// A key nobody published, so that a valid fixture is valid without warnings.
    static let privateSessionKey = "5a1c93e07b2d4f68"

    /// Writes config.yaml: the given port and broker URL, optional credentials, and extra lines
    /// under `mqtt:`. `sessionKey` nil leaves the profile's well-known default (a warning), and
    /// the config one line shorter.
    func writeConfig(port: String, url: String = "mqtt://127.0.0.1:1", username: String? = nil,
                     password: String? = nil, mqttExtra: [String] = [],
                     sessionKey: String? = ConfigFixture.privateSessionKey) throws {
        var mqtt = ["  url: \(url)", "  spool_dir: \(spoolPath)"]
        if let username { mqtt.append("  username: \(username)") }
        if let password {
            try directory.write("mqtt.password", password + "\n")
            chmod(passwordPath, 0o600)
            mqtt.append("  password_file: \(passwordPath)")
        }
        mqtt += mqttExtra.map { "  " + $0 }
        let key = sessionKey.map { "\n  session_key_info: \"\($0)\"" } ?? ""
        let text = """
        gateway:
          id: doctor-test
        device:
          port: \(port)\(key)
          peers: [{address: 0x0001, name: tool-cart}]
        mqtt:
        \(mqtt.joined(separator: "\n"))
        rules: \(rulesPath)

        """
        try directory.write("config.yaml", text)
    }

    /// A pseudo-terminal standing for the device: linked at `dwm3001c` in the directory, which
    /// config.yaml names as its port. The caller closes it (`defer { terminal.close() }`).
    func deviceTerminal() throws -> PseudoTerminal {
        let terminal = try PseudoTerminal()
        do {
            try terminal.link(at: directory.file("dwm3001c"))
            try writeConfig(port: directory.file("dwm3001c"))
        } catch {
            terminal.close()
            throw error
        }
        return terminal
    }
}

/// The repository root (for the shipped deploy/ examples).
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()
