import Service
import FoundationEssentials
import Gateway
import SiteFusion
import Vocabulary
import Watch
import WebServer
import YAMLCoding
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt watch [--config FILE] [--broker URL] [--gateway ID[,ID…]] [--site NAME] [--fuse-config FILE]
/// [--plain]`: follows the gateways' v1 trees (and a fuse site's) and draws them on the terminal,
/// or prints one readable line per event or state change (`--plain`, or stdout not a terminal).
public struct WatchCommand: Command {
    static let config = Option.value("--config", "FILE",
                                     help: "an agent configuration whose mqtt section (broker, base_topic, credentials, TLS) to use")
    static let broker = Option.value("--broker", "URL", .text,
                                     help: "the broker (mqtt://HOST[:PORT] or mqtts://…); instead of the config's mqtt.url, default mqtt://127.0.0.1:1883")
    static let gateway = Option.value("--gateway", "ID[,ID…]", .text, help: "follow only these gateways (default: every gateway under the base topic)")
    static let site = Option.value("--site", "NAME", .text,
                                   help: "also follow this site of uwb2mqtt fuse: a map of its gateways and tags")
    static let fuseConfig = Option.value("--fuse-config", "FILE",
                                         help: "the fuse's config: its site (as --site), its zones for the map, its mqtt section")
    static let plain = Option.flag("--plain", help: "one line per event or state change, also on a terminal (the default when stdout is not one)")
    static let http = Option.value("--http", "[ADDRESS:]PORT", .text,
                                   help: "also serve the live view as a web page on ADDRESS:PORT (PORT alone: 127.0.0.1, this machine only; 0: a free port)")
    static let httpUser = Option.value("--http-user", "NAME", .text, help: "the user name the page asks for with --http-password-file (default watch)")
    static let httpPasswordFile = Option.value("--http-password-file", "FILE",
                                               help: "ask for a password (HTTP basic auth), read from FILE; required for an ADDRESS beyond loopback")
    static let httpCert = Option.value("--http-cert", "FILE", help: "serve HTTPS with this PEM certificate (with --http-key)")
    static let httpKey = Option.value("--http-key", "FILE", help: "the PEM private key of --http-cert")

    static let declaration = CommandDeclaration(
        name: "watch", abstract: "follow the gateways live: device, rules, peers and events in words",
        discussion: """
        Subscribes to <base>/+/# (or the given gateways). On a terminal it draws them: per gateway its
        status, device, measurement rate, dropped messages, rules and the newest message it could not
        read, a row per peer with its distance as a number and a bar, stage, zones, approaches and the
        age of its last measurement, the rankings, and the latest events below. With --site (or
        --fuse-config), above them a map of the site seen from above: the gateways where their status
        puts them, each tag where the fuse places it with its accuracy, and the zones' outlines as
        the fuse's status gives them. With --plain, or when stdout is not a terminal, it prints one line
        per event or state change: the gateway's status, device state and rules, each peer when first
        seen, every event with its reason in words (zone_enter counter at 0.81 m after 300 ms dwell),
        ranking changes, dropped messages and the site's status and events. Times are the payloads'
        ts, UTC. A message it cannot read is a line naming its topic. It never exits because the
        broker is unreachable: it says why once and keeps retrying. Keys on the drawn view: q quits;
        Up/Down, PageUp/PageDown and Home/End scroll the gateways' lines when they do not fit. Runs
        until q or Ctrl-C. With --http it also serves the same view as a read-only web page, live
        (a few frames a second), for a phone's browser: on loopback unless an address is given,
        and beyond loopback only with --http-password-file (and, so that the password does not
        cross the network in the clear, --http-cert and --http-key).
        """,
        arguments: [.option(config), .option(broker), .option(gateway), .option(site), .option(fuseConfig), .option(plain),
                    .option(http), .option(httpUser), .option(httpPasswordFile), .option(httpCert), .option(httpKey)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "after q or Ctrl-C"),
                       ExitStatus.Meaning(ExitStatus.failure, "for a bad configuration")])

    var configPath: String?
    var brokerURL: String?
    var gateways: [String]
    var site: String?
    var fuseConfigPath: String?
    var plain: Bool
    var httpAddress: ListenAddress?
    var httpUserName: String
    var httpPasswordPath: String?
    var httpCertPath: String?
    var httpKeyPath: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        configPath = arguments.value(Self.config)
        brokerURL = arguments.value(Self.broker)
        if let brokerURL, !(brokerURL.hasPrefix("mqtt://") || brokerURL.hasPrefix("mqtts://")) || brokerURL.hasSuffix("://") {
            throw UsageError("--broker must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], found '\(brokerURL)'")
        }
        gateways = arguments.value(Self.gateway).map { $0.split(separator: ",").map(String.init) } ?? []
        site = arguments.value(Self.site)
        if let site, site.isEmpty || site.contains(where: { "/+#".contains($0) }) {
            throw UsageError("--site must be a site name without '/', '+' or '#', found '\(site)'")
        }
        fuseConfigPath = arguments.value(Self.fuseConfig)
        plain = arguments.isSet(Self.plain)
        httpUserName = arguments.value(Self.httpUser) ?? "watch"
        httpPasswordPath = arguments.value(Self.httpPasswordFile)
        httpCertPath = arguments.value(Self.httpCert)
        httpKeyPath = arguments.value(Self.httpKey)
        if let text = arguments.value(Self.http) {
            do { httpAddress = try ListenAddress(parsing: text) } catch { throw UsageError("--http: \(error)") }
        } else if arguments.value(Self.httpUser) != nil || httpPasswordPath != nil || httpCertPath != nil || httpKeyPath != nil {
            throw UsageError("--http-user, --http-password-file, --http-cert and --http-key go with --http [ADDRESS:]PORT")
        }
        if (httpCertPath == nil) != (httpKeyPath == nil) { throw UsageError("--http-cert and --http-key go together") }
        if arguments.value(Self.httpUser) != nil, httpPasswordPath == nil { throw UsageError("--http-user goes with --http-password-file") }
        if let httpAddress, !httpAddress.isLoopback, httpPasswordPath == nil {
            throw UsageError("--http \(httpAddress) serves beyond this machine: give --http-password-file FILE (and --http-cert and --http-key for HTTPS)")
        }
    }

    func run(_ console: Console) -> Int32 {
        var settings = BrokerSettings()
        if let configPath {
            do {
                settings = try AgentConfiguration.load(path: configPath).mqtt.broker
            } catch {
                console.errors("uwb2mqtt: watch: \(error)")
                return ExitStatus.failure
            }
        }
        var siteView = site.map { SiteView(name: TopicSegment.sanitize($0)) }
        if let fuseConfigPath {
            let fuse: FuseConfiguration
            do {
                guard let data = FileManager.default.contents(atPath: fuseConfigPath) else { throw ConfigurationError("cannot read \(fuseConfigPath)") }
                fuse = try YAMLDecoder().decode(FuseConfiguration.self, from: data, file: fuseConfigPath)
                do { try fuse.validate() } catch { throw ConfigurationError("\(fuseConfigPath): \(error)") }
            } catch {
                console.errors("uwb2mqtt: watch: \(error)")
                return ExitStatus.failure
            }
            // Another site's outlines on this site's map would mislead.
            if let site, TopicSegment.sanitize(site) != TopicSegment.sanitize(fuse.site) {
                console.errors("uwb2mqtt: watch: --site \(site) but \(fuseConfigPath) is the configuration of site \(fuse.site)")
                return ExitStatus.failure
            }
            siteView = SiteView(name: TopicSegment.sanitize(fuse.site),
                                zones: fuse.zones.map { SiteZone(name: $0.name, polygon: $0.polygon.map { MapPoint(x: $0.x, y: $0.y) }) })
            if configPath == nil { settings = fuse.mqtt }
        }
        if let brokerURL { settings.url = brokerURL }
        var web: WatchWebPage.Settings?
        if let httpAddress {
            do { web = try webSettings(httpAddress, console: console) } catch {
                console.errors("uwb2mqtt: watch: \(error)")
                return ExitStatus.failure
            }
        }
        let drawn = !plain && TerminalScreen.isTerminal
        return WatchSession(broker: settings, gateways: gateways, site: siteView, console: console, terminal: drawn ? TerminalScreen() : nil,
                            color: drawn && TerminalScreen.wantsColor, web: web).run()
    }

    /// The page's settings: the password and the certificate and key read from their files (their
    /// contents never printed).
    func webSettings(_ address: ListenAddress, console: Console) throws(ConfigurationError) -> WatchWebPage.Settings {
        var settings = WatchWebPage.Settings(address: address)
        if let httpPasswordPath {
            let (password, warning) = try PasswordFile.read(path: httpPasswordPath, noun: "HTTP password file")
            if let warning { console.errors("uwb2mqtt: watch: warning: \(warning)") }
            settings.authentication = BasicAuthentication(user: httpUserName, password: password, realm: "uwb2mqtt watch")
        }
        if let httpCertPath, let httpKeyPath {
            settings.tls = TLSCredentials(certificatePEM: try Self.pem(httpCertPath, "certificate"), keyPEM: try Self.pem(httpKeyPath, "private key"))
        } else if !address.isLoopback {
            console.errors("uwb2mqtt: watch: warning: the page on \(address) is plain HTTP: its password crosses the network in the clear (give --http-cert and --http-key)")
        }
        return settings
    }

    /// A PEM file's bytes (at most 64 KiB: a certificate chain, not a log).
    static func pem(_ path: String, _ what: String) throws(ConfigurationError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ConfigurationError("cannot read the HTTPS \(what) \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while bytes.count <= 65_536 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ConfigurationError("cannot read the HTTPS \(what) \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        // The key's bytes are not left in a buffer that is freed.
        for index in buffer.indices { buffer[index] = 0 }
        guard !bytes.isEmpty else { throw ConfigurationError("the HTTPS \(what) \(path) is empty") }
        guard bytes.count <= 65_536 else { throw ConfigurationError("the HTTPS \(what) \(path) is larger than 64 KiB") }
        guard bytes.starts(with: Array("-----BEGIN ".utf8)) || String(decoding: bytes, as: UTF8.self).contains("-----BEGIN ") else {
            throw ConfigurationError("the HTTPS \(what) \(path) is not PEM text (-----BEGIN …)")
        }
        return bytes
    }
}
