import Gateway
import Vocabulary

/// `uwb2mqtt watch [--config FILE] [--broker URL] [--gateway ID[,ID…]] [--plain]`: follows the
/// gateways' v1 trees and draws them on the terminal, or prints one readable line per event or
/// state change (`--plain`, or stdout not a terminal).
public struct WatchCommand: Command {
    static let config = Option.value("--config", "FILE",
                                     help: "an agent configuration whose mqtt section (broker, base_topic, credentials, TLS) to use")
    static let broker = Option.value("--broker", "URL", .text,
                                     help: "the broker (mqtt://HOST[:PORT] or mqtts://…); instead of the config's mqtt.url, default mqtt://127.0.0.1:1883")
    static let gateway = Option.value("--gateway", "ID[,ID…]", .text, help: "follow only these gateways (default: every gateway under the base topic)")
    static let plain = Option.flag("--plain", help: "one line per event or state change, also on a terminal (the default when stdout is not one)")

    static let declaration = CommandDeclaration(
        name: "watch", abstract: "follow the gateways live: device, rules, peers and events in words",
        discussion: """
        Subscribes to <base>/+/# (or the given gateways). On a terminal it draws them: per gateway its
        status, device, measurement rate, dropped messages and rules, a row per peer with its distance
        as a number and a bar, stage, zones, approaches and the age of its last measurement, and the
        latest events below. With --plain, or when stdout is not a terminal, it prints one line per
        event or state change:
        the gateway's status, device state and rules, each peer when first seen, every event with its
        reason in words (zone_enter counter at 0.81 m after 300 ms dwell), ranking changes and dropped
        messages. Times are the payloads' ts, UTC. A message it cannot read is a line naming its topic.
        It never exits because the broker is unreachable: it says why once and keeps retrying. Runs
        until Ctrl-C.
        """,
        arguments: [.option(config), .option(broker), .option(gateway), .option(plain)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "after Ctrl-C"),
                       ExitStatus.Meaning(ExitStatus.failure, "for a bad configuration")])

    var configPath: String?
    var brokerURL: String?
    var gateways: [String]
    var plain: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        configPath = arguments.value(Self.config)
        brokerURL = arguments.value(Self.broker)
        if let brokerURL, !(brokerURL.hasPrefix("mqtt://") || brokerURL.hasPrefix("mqtts://")) || brokerURL.hasSuffix("://") {
            throw UsageError("--broker must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], found '\(brokerURL)'")
        }
        gateways = arguments.value(Self.gateway).map { $0.split(separator: ",").map(String.init) } ?? []
        plain = arguments.isSet(Self.plain)
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
        if let brokerURL { settings.url = brokerURL }
        let drawn = !plain && TerminalScreen.isTerminal
        return WatchSession(broker: settings, gateways: gateways, console: console, terminal: drawn ? TerminalScreen() : nil,
                            color: drawn && TerminalScreen.wantsColor).run()
    }
}
