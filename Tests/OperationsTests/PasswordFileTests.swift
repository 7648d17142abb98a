import Service
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Gateway
@testable import Commands
import Testing
import TestSupport

/// `PasswordFile.read`: one trailing newline ignored, clear errors, and a world-readable warning
/// that never repeats the password.
@Suite struct PasswordFileTests {
    static let secret = "s3cret-Pa55"

    private func file(_ content: String, mode: mode_t = 0o600) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-password")
        let path = try directory.write("mqtt.password", content)
        #expect(chmod(path, mode) == 0)
        return (directory, path)
    }

    @Test(arguments: [secret, secret + "\n", secret + "\r\n"])
    func oneTrailingNewlineIsIgnored(content: String) throws {
        let (directory, path) = try file(content)
        defer { _ = directory }
        let (password, warning) = try PasswordFile.read(path: path)
        #expect(password == Self.secret)
        #expect(warning == nil)
    }

    @Test func onlyOneNewlineIsIgnored() throws {
        let (directory, path) = try file(Self.secret + "\n\n")
        defer { _ = directory }
        let error = #expect(throws: ConfigurationError.self) { try PasswordFile.read(path: path) }
        #expect(error?.description.contains("more than one line") == true)
        #expect(error?.description.contains(Self.secret) == false)
    }

    @Test func worldReadableIsAWarningWithoutThePassword() throws {
        let (directory, path) = try file(Self.secret + "\n", mode: 0o644)
        defer { _ = directory }
        let (password, warning) = try PasswordFile.read(path: path)
        #expect(password == Self.secret)
        let text = try #require(warning)
        #expect(text.contains("readable by every user"))
        #expect(text.contains("0644"))
        #expect(text.contains(path))
        #expect(!text.contains(Self.secret))
    }

    @Test func groupReadableIsFine() throws {
        let (directory, path) = try file(Self.secret, mode: 0o640)
        defer { _ = directory }
        #expect(try PasswordFile.read(path: path).warning == nil)
    }

    @Test func missingFileIsAClearError() throws {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-password")
        let path = directory.file("absent")
        let error = #expect(throws: ConfigurationError.self) { try PasswordFile.read(path: path) }
        #expect(error?.description == "cannot read the MQTT password file \(path): no such file")
    }

    @Test func emptyFileIsAnError() throws {
        let (directory, path) = try file("\n")
        defer { _ = directory }
        let error = #expect(throws: ConfigurationError.self) { try PasswordFile.read(path: path) }
        #expect(error?.description.contains("is empty") == true)
    }

    @Test func directoryIsAnError() throws {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-password")
        let error = #expect(throws: ConfigurationError.self) { try PasswordFile.read(path: directory.path) }
        #expect(error?.description.contains("not a regular file") == true)
    }

    /// Root reads any file, so the permission case is only observable for other users.
    @Test(.enabled(if: geteuid() != 0, "root bypasses file permissions"))
    func unreadableFileNamesTheUser() throws {
        let (directory, path) = try file(Self.secret, mode: 0o000)
        defer { _ = directory }
        let error = #expect(throws: ConfigurationError.self) { try PasswordFile.read(path: path) }
        #expect(error?.description.contains("permission denied") == true)
        #expect(error?.description.contains(Self.secret) == false)
    }
}
