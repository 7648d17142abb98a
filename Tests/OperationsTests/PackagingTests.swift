import Service
import Foundation
import Gateway
import Testing
import TestSupport

/// The install script, the Debian package and the systemd unit, checked as an operator's tools
/// see them. They use the debug build of the executable (the one `make test` builds) so that no
/// release build is needed here; `make install` / `make deb` pass the release binary the same way.
@Suite(.serialized) struct PackagingTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("uwb2mqtt").path
    }

    /// Who the test packages say answers for them (the Maintainer field must be a setting).
    static let maintainer = "uwb2mqtt tests <uwb2mqtt-tests@example.org>"

    /// Runs a command to completion and returns (exit status, stdout + stderr).
    func run(_ executable: String, _ arguments: [String], in directory: TemporaryDirectory,
             environment: [String: String] = [:]) async throws -> (Int32, String) {
        let name = UUID().uuidString
        let process = try ChildProcess(executable: executable, arguments: arguments,
                                       stdoutPath: directory.file("\(name).out"), stderrPath: directory.file("\(name).err"),
                                       environment: environment)
        guard let termination = await process.waitForExit(timeout: .seconds(120)) else {
            process.terminate()
            Issue.record("\(executable) did not finish")
            return (-1, "")
        }
        let output = ((try? String(contentsOfFile: directory.file("\(name).out"), encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: directory.file("\(name).err"), encoding: .utf8)) ?? "")
        let status: Int32 = if case let .exited(code) = termination { code } else { -1 }
        return (status, output)
    }

    /// The permission bits of `path` in octal, or why `stat` failed.
    func mode(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "stat: " + String(cString: strerror(errno)) }
        return String(info.st_mode & 0o7777, radix: 8)
    }

    @Test func installIntoAStagingRootLaysOutTheFilesWithTheirModes() async throws {
        let work = try TemporaryDirectory(prefix: "install")
        let root = work.file("root")
        let (status, output) = try await run("/bin/sh", ["\(Self.repo)/deploy/install.sh", "--destdir", root, "--binary", Self.binary], in: work)
        #expect(status == 0, "\(output)")
        let expected: [(String, Int)] = [
            ("/usr/local/bin/uwb2mqtt", 0o755), ("/etc/systemd/system/uwb2mqtt.service", 0o644),
            ("/etc/udev/rules.d/99-uwb2mqtt.rules", 0o644), ("/etc/uwb2mqtt/config.yaml", 0o640),
            ("/etc/uwb2mqtt/rules.yaml", 0o644), ("/etc/uwb2mqtt", 0o1770), ("/var/lib/uwb2mqtt", 0o750),
            ("/usr/local/share/man/man1/uwb2mqtt.1", 0o644), ("/usr/local/share/man/man5/uwb2mqtt.yaml.5", 0o644),
        ]
        for (path, permissions) in expected {
            #expect(mode(root + path) == String(permissions, radix: 8),
                    "\(path); install.sh said: \(output); in \(root)/usr/local/bin: \((try? FileManager.default.contentsOfDirectory(atPath: root + "/usr/local/bin")) ?? [])")
        }
        // A second run (an upgrade) keeps an edited config.
        try "device: {peers: [{address: 0x0007}]}\n".write(toFile: root + "/etc/uwb2mqtt/config.yaml", atomically: true, encoding: .utf8)
        let (again, _) = try await run("/bin/sh", ["\(Self.repo)/deploy/install.sh", "--destdir", root, "--binary", Self.binary], in: work)
        #expect(again == 0)
        #expect(try String(contentsOfFile: root + "/etc/uwb2mqtt/config.yaml", encoding: .utf8).contains("0x0007"))
        // The installed examples are valid for `uwb2mqtt check`.
        let (check, checkOutput) = try await run(Self.binary, ["check", "--config", root + "/etc/uwb2mqtt/config.yaml",
                                                                "--rules", root + "/etc/uwb2mqtt/rules.yaml"], in: work)
        #expect(check == 0, "\(checkOutput)")
        // The manual pages are the binary's own.
        for (page, path) in [("uwb2mqtt", "man1/uwb2mqtt.1"), ("uwb2mqtt.yaml", "man5/uwb2mqtt.yaml.5")] {
            let (_, printed) = try await run(Self.binary, ["man", page], in: work)
            #expect(try String(contentsOfFile: root + "/usr/local/share/man/" + path, encoding: .utf8) == printed, "\(path)")
        }
        // Uninstalling takes the program and its pages, and keeps the configuration.
        let (removed, removal) = try await run("/bin/sh", ["\(Self.repo)/deploy/install.sh", "--uninstall", "--destdir", root], in: work)
        #expect(removed == 0, "\(removal)")
        for path in ["/usr/local/bin/uwb2mqtt", "/usr/local/share/man/man1/uwb2mqtt.1", "/usr/local/share/man/man5/uwb2mqtt.yaml.5"] {
            #expect(!FileManager.default.fileExists(atPath: root + path), "\(path)")
        }
        #expect(FileManager.default.fileExists(atPath: root + "/etc/uwb2mqtt/config.yaml"))
    }

    /// Builds the package of the test's binary into `work`/dist with `environment` (the
    /// maintainer, no homepage unless given); returns its path.
    func buildPackage(in work: TemporaryDirectory, environment: [String: String] = [:]) async throws -> String {
        let settings = ["DEB_MAINTAINER": Self.maintainer, "DEB_HOMEPAGE": ""].merging(environment) { $1 }
        let (status, output) = try await run("/bin/sh", ["\(Self.repo)/deploy/build-deb.sh", Self.binary, work.file("dist")],
                                             in: work, environment: settings)
        #expect(status == 0, "\(output)")
        let package = try #require(try FileManager.default.contentsOfDirectory(atPath: work.file("dist")).first { $0.hasSuffix(".deb") })
        return work.file("dist/\(package)")
    }

    /// Whether a gzip file was written with `gzip -n` (no name, no time: the same bytes from the
    /// same input, as Debian wants) at the best compression (`-9`).
    func isReproducibleGzip(_ path: String) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init), bytes.count > 10 else { return false }
        let noName = bytes[3] & 0x08 == 0
        let noTime = bytes[4..<8].allSatisfy { $0 == 0 }
        return bytes[0] == 0x1F && bytes[1] == 0x8B && noName && noTime && bytes[8] == 2
    }

    @Test func theDebianPackageHasItsMetadataAndFiles() async throws {
        let work = try TemporaryDirectory(prefix: "deb")
        let package = try await buildPackage(in: work)
        let (_, info) = try await run("/usr/bin/dpkg-deb", ["--info", package], in: work)
        #expect(info.contains("Package: uwb2mqtt"))
        #expect(info.contains("\n Version: \(AgentVersion.agent)\n"))
        #expect(info.contains("\n Maintainer: \(Self.maintainer)\n"))
        #expect(!info.contains("Homepage:"), "no homepage was given: \(info)")
        #expect(info.contains("libserialport0") && info.contains("libmosquitto1") && info.contains("libyaml-0-2") && info.contains("libmicrohttpd12"))
        #expect(info.contains("conffiles") && info.contains("postinst") && info.contains("md5sums"))
        let (_, contents) = try await run("/usr/bin/dpkg-deb", ["--contents", package], in: work)
        for path in ["./usr/bin/uwb2mqtt", "./lib/systemd/system/uwb2mqtt.service", "./lib/udev/rules.d/99-uwb2mqtt.rules",
                     "./etc/uwb2mqtt/config.yaml", "./etc/uwb2mqtt/rules.yaml", "./usr/share/man/man1/uwb2mqtt.1.gz",
                     "./usr/share/man/man5/uwb2mqtt.yaml.5.gz", "./usr/share/doc/uwb2mqtt/copyright",
                     "./usr/share/doc/uwb2mqtt/changelog.gz", "./usr/share/lintian/overrides/uwb2mqtt"] {
            #expect(contents.contains(path), "\(path) missing")
        }

        let files = work.file("files")
        let (extracted, extraction) = try await run("/usr/bin/dpkg-deb", ["-x", package, files], in: work)
        #expect(extracted == 0, "\(extraction)")
        // The manual pages are the packaged binary's own, compressed as Debian wants.
        for (page, path) in [("uwb2mqtt", "man1/uwb2mqtt.1.gz"), ("uwb2mqtt.yaml", "man5/uwb2mqtt.yaml.5.gz")] {
            let compressed = files + "/usr/share/man/" + path
            #expect(isReproducibleGzip(compressed), "\(path)")
            let (_, printed) = try await run(Self.binary, ["man", page], in: work)
            let (_, unpacked) = try await run("/bin/gzip", ["-dc", compressed], in: work)
            #expect(unpacked == printed, "\(path)")
        }
        // The changelog's latest entry is the package's version; the copyright file is in the
        // machine-readable format and names the licence of LICENSE.
        let changelog = files + "/usr/share/doc/uwb2mqtt/changelog.gz"
        #expect(isReproducibleGzip(changelog))
        let (_, log) = try await run("/bin/gzip", ["-dc", changelog], in: work)
        #expect(log.hasPrefix("uwb2mqtt (\(AgentVersion.agent)) "), "\(log)")
        let copyright = try String(contentsOfFile: files + "/usr/share/doc/uwb2mqtt/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        #expect(copyright.contains("\nFiles: *\n") && copyright.contains("\nLicense: Apache-2.0\n"))
        let license = try String(contentsOfFile: Self.repo + "/LICENSE", encoding: .utf8)
        #expect(license.contains("Apache License\n                           Version 2.0, January 2004"))
        if let common = try? String(contentsOfFile: "/usr/share/common-licenses/Apache-2.0", encoding: .utf8) {
            #expect(license == common, "LICENSE is not the Apache License 2.0 the copyright file points at")
        }
        // Only the conffile that may hold a secret is not world-readable.
        #expect(mode(files + "/etc/uwb2mqtt/config.yaml") == "640")
        #expect(mode(files + "/etc/uwb2mqtt/rules.yaml") == "644")
    }

    /// A Maintainer or Homepage that is a placeholder (what the package once said) builds nothing.
    @Test(arguments: [
        ["DEB_MAINTAINER": "uwb2mqtt maintainers <uwb2mqtt@localhost>"], ["DEB_MAINTAINER": "uwb2mqtt@example.org"],
        ["DEB_HOMEPAGE": "https://localhost/uwb2mqtt"], ["DEB_HOMEPAGE": "example.org"],
    ])
    func placeholdersForWhoAnswersForThePackageAreRefused(_ settings: [String: String]) async throws {
        let work = try TemporaryDirectory(prefix: "deb")
        let environment = ["DEB_MAINTAINER": Self.maintainer, "DEB_HOMEPAGE": ""].merging(settings) { $1 }
        let (status, output) = try await run("/bin/sh", ["\(Self.repo)/deploy/build-deb.sh", Self.binary, work.file("dist")],
                                             in: work, environment: environment)
        #expect(status == 1, "\(output)")
        #expect(output.hasPrefix("build-deb.sh: ") && output.contains("DEB_"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: work.file("dist")))
    }

    /// lintian, as a Debian packager runs it, finds no error and no warning that the package does
    /// not answer with a written override. The package here holds the debug build `make test`
    /// makes, which links the Swift runtime dynamically through a RUNPATH into the toolchain: that
    /// one error is the debug build's; `make deb`'s release binary, the Swift runtime linked in
    /// statically, has no RUNPATH but $ORIGIN, which lintian accepts.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/lintian"),
                   "lintian is not installed (make test installs it)"))
    func lintianFindsNothingWithoutAWrittenOverride() async throws {
        let work = try TemporaryDirectory(prefix: "lintian")
        let homepage = "https://example.org/uwb2mqtt"
        let package = try await buildPackage(in: work, environment: ["DEB_HOMEPAGE": homepage])
        let (_, info) = try await run("/usr/bin/dpkg-deb", ["--field", package, "Homepage"], in: work)
        #expect(info == homepage + "\n")
        let (_, report) = try await run("/usr/bin/lintian", ["--show-overrides", package], in: work)
        let hints = report.split(separator: "\n").map(String.init)
        let debugBuild = #/^E: uwb2mqtt: custom-library-search-path RUNPATH \S*/lib/swift/linux \[usr/bin/uwb2mqtt\]$/#
        let findings = hints.filter { ($0.hasPrefix("E: ") || $0.hasPrefix("W: ")) && $0.wholeMatch(of: debugBuild) == nil }
        #expect(findings.isEmpty, "\(report)")
        // What is overridden is the one conffile that may hold a secret, and says why.
        #expect(hints.filter { $0.hasPrefix("O: ") } == ["O: uwb2mqtt: non-standard-file-perm 0640 != 0644 [etc/uwb2mqtt/config.yaml]"],
                "\(report)")
        #expect(hints.contains { $0.hasPrefix("N: ") && $0.contains("may hold a secret") }, "\(report)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")),
          arguments: ["uwb2mqtt.service", "uwb2mqtt-fuse.service"])
    func theUnitVerifiesAndItsSandboxRatesOK(_ name: String) async throws {
        let work = try TemporaryDirectory(prefix: "unit")
        let unit = try String(contentsOfFile: "\(Self.repo)/deploy/\(name)", encoding: .utf8)
            .replacingOccurrences(of: "ExecStart=/usr/local/bin/uwb2mqtt", with: "ExecStart=\(Self.binary)")
        let path = try work.write(name, unit)
        // verify runs man for the unit's man: pages: those the binary makes, as installed.
        for (page, section) in [("uwb2mqtt", 1), ("uwb2mqtt.yaml", 5)] {
            try FileManager.default.createDirectory(atPath: work.file("man/man\(section)"), withIntermediateDirectories: true)
            let (_, text) = try await run(Self.binary, ["man", page], in: work)
            _ = try work.write("man/man\(section)/\(page).\(section)", text)
        }
        let (verify, verifyOutput) = try await run("/usr/bin/systemd-analyze", ["verify", path], in: work,
                                                   environment: ["MANPATH": work.file("man")])
        #expect(verify == 0, "\(verifyOutput)")
        let (_, security) = try await run("/usr/bin/systemd-analyze", ["security", "--offline=yes", path], in: work)
        let line = try #require(security.split(separator: "\n").first { $0.contains("Overall exposure level") })
        #expect(line.contains(" OK") || line.contains("SAFE"), "\(line)")
    }

    @Test func theAgentsUnitBoundsItsMemoryAndTasks() throws {
        let unit = try String(contentsOfFile: "\(Self.repo)/deploy/uwb2mqtt.service", encoding: .utf8)
        for limit in ["MemoryMax=64M", "TasksMax=16"] { #expect(unit.contains("\n\(limit)\n"), "\(limit)") }
    }
}
