import DeviceLink
import MQTTClient
import Proximity

/// What happens to the agent, as its core hears of it (with the moment passed beside it).
///
/// The shell turns everything it reads — the device, the broker, signals, files, timers — into
/// these; what needs I/O (reading the rules or the configuration file) the shell does first, and
/// the input carries the outcome.
public enum AgentInput: Sendable {
    /// The loop runs and the publisher exists, before the broker is connected.
    case started
    /// Something from the device link: a state change, the device's identity, a ranging round,
    /// a session that stopped, news of a requested session, a frame, a log line.
    case device(DeviceReport)
    /// The broker took the connection; the agent's status and the journal went out already.
    case brokerConnected
    /// The connection ended; `largestPublished` is the largest message sent on it (a broker
    /// closes the connection of a client whose packet is over its limit, and says nothing).
    case brokerDisconnected(MQTTDisconnectReason, largestPublished: PublishedPacket? = nil)
    /// A message on a subscribed topic.
    case message(MQTTMessage)
    /// The rules file was read (for `trigger`); its rules, or why they were refused.
    case rulesLoaded(Result<Rules, RulesLoading.Failure>, path: String, trigger: RulesTrigger)
    /// SIGHUP: the configuration file read again, or why it could not be.
    case configurationReloaded(Result<AgentConfiguration, any Error>)
    /// The core's next deadline came (`AgentCore.nextWake`); `publisher` is the publishing
    /// side's figures at this moment, for `metrics`.
    case timePassed(publisher: PublisherFigures)
    /// The loop woke this many seconds late: the agent did not run meanwhile.
    case stalled(seconds: Double)
    /// The system clock stepped forward (the agent's time followed it).
    case clockSteppedForward
}

/// The publishing side's figures that `metrics` reports.
public struct PublisherFigures: Sendable {
    var queued = 0
    var spooled = 0
    var dropped = 0
    /// Messages the broker refused with a reason code (`publishes_refused`).
    var refusedByBroker = 0

    public init(queued: Int = 0, spooled: Int = 0, dropped: Int = 0, refusedByBroker: Int = 0) {
        self.queued = queued
        self.spooled = spooled
        self.dropped = dropped
        self.refusedByBroker = refusedByBroker
    }
}
