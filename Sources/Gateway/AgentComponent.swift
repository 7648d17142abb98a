import MQTTClient
import Proximity
import DeviceLink
import UCI

/// A feature of the agent on its core: it declares the MQTT topics it listens to and the requests
/// it answers, and hears of the moments it cares about. Like the core, it reads no clock and does
/// no I/O: it publishes and asks the shell for what it needs through the core it is handed
/// (`publishDurable`, `respond`, `act`, `log`). The agent lists its components once
/// (`Agent.makeComponents`); adding a feature adds a file and a line there and touches no other.
protocol AgentComponent {
    /// Topic filters to subscribe to (requests aside); the client subscribes again after every
    /// reconnect.
    var subscriptions: [String] { get }
    /// The requests it answers (`request/<name>`).
    var requests: [Request.Name] { get }
    /// When it wants to hear `timePassed` next (monotonic), nil while it waits for nothing.
    var nextDeadline: Double? { get }
    /// The agent starts: the first rules, the first timers.
    mutating func start(_ core: inout AgentCore, at moment: AgentMoment)
    /// A message on a subscribed topic. Returns whether it was this component's to handle.
    mutating func receive(_ message: MQTTMessage, _ core: inout AgentCore, at moment: AgentMoment) -> Bool
    /// A well-formed request of one of `requests`; it is answered with `core.respond`, now or later.
    mutating func answer(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment)
    /// The broker took the connection (after the agent published its status and the device).
    mutating func brokerConnected(_ core: inout AgentCore, at moment: AgentMoment)
    /// The rules file was read, for `trigger`.
    mutating func rulesLoaded(_ result: Result<Rules, RulesLoading.Failure>, path: String, trigger: RulesTrigger,
                              _ core: inout AgentCore, at moment: AgentMoment)
    /// New rules took effect.
    mutating func rulesChanged(_ core: inout AgentCore, at moment: AgentMoment)
    /// SIGHUP: the configuration was read again (peers and the rules path may differ).
    mutating func configurationReloaded(_ core: inout AgentCore, at moment: AgentMoment)
    /// A ranging round of any session the device runs.
    mutating func ranged(_ info: SessionInfo, _ core: inout AgentCore, at moment: AgentMoment)
    /// News of a session the agent requested from the device.
    mutating func deviceNews(sessionID: UInt32, _ news: RequestedSessionNews, _ core: inout AgentCore, at moment: AgentMoment)
    /// Time passed: `nextDeadline` may have come.
    mutating func timePassed(_ core: inout AgentCore, at moment: AgentMoment)
}

extension AgentComponent {
    var subscriptions: [String] { [] }
    var requests: [Request.Name] { [] }
    var nextDeadline: Double? { nil }
    mutating func start(_ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func receive(_ message: MQTTMessage, _ core: inout AgentCore, at moment: AgentMoment) -> Bool { false }
    mutating func answer(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func brokerConnected(_ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func rulesLoaded(_ result: Result<Rules, RulesLoading.Failure>, path: String, trigger: RulesTrigger,
                              _ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func rulesChanged(_ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func configurationReloaded(_ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func ranged(_ info: SessionInfo, _ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func deviceNews(sessionID: UInt32, _ news: RequestedSessionNews, _ core: inout AgentCore, at moment: AgentMoment) {}
    mutating func timePassed(_ core: inout AgentCore, at moment: AgentMoment) {}
}
