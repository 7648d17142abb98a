import Vocabulary

/// `metrics` every `mqtt.metrics_interval`, and the systemd watchdog when systemd asks for one:
/// both at deadlines of the core, which only come while the loop runs — if it stalls, the
/// watchdog is not fed and systemd restarts the agent.
struct MetricsComponent: AgentComponent {
    private let interval: Double
    private let watchdogInterval: Double?
    private var metricsDue = Double.infinity
    private var watchdogDue = Double.infinity

    init(interval: Double, watchdogInterval: Double?) {
        self.interval = interval
        self.watchdogInterval = watchdogInterval
    }

    var nextDeadline: Double? { min(metricsDue, watchdogDue) }

    mutating func start(_ core: inout AgentCore, at moment: AgentMoment) {
        metricsDue = moment.monotonic + interval
        if let watchdogInterval {
            core.act(.feedWatchdog)
            watchdogDue = moment.monotonic + watchdogInterval
        }
    }

    mutating func timePassed(_ core: inout AgentCore, at moment: AgentMoment) {
        if moment.monotonic >= metricsDue {
            core.publishLive(core.topics.metrics, core.metrics(at: moment), qos: 0)
            metricsDue = moment.monotonic + interval
        }
        if let watchdogInterval, moment.monotonic >= watchdogDue {
            core.act(.feedWatchdog)
            watchdogDue = moment.monotonic + watchdogInterval
        }
    }
}

extension AgentCore {
    /// The `metrics` payload.
    func metrics(at moment: AgentMoment) -> [JSONMember] { Self.metricsFields.members(MetricsSource(core: self, moment: moment)) }

    struct MetricsSource {
        let core: AgentCore
        let moment: AgentMoment
    }

    /// `metrics`: `publish_queue` and `spooled` are levels now, the rest counters since the start.
    static let metricsFields = PayloadFields<MetricsSource>([
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.moment.time)) },
        .init(.uptimeS, JSONSchema.count.described("seconds since the agent started")) { .int(Int64($0.core.uptime(at: $0.moment))) },
        .init(.framesRx, JSONSchema.count.described("UCI packets read from the device")) { .int(Int64($0.core.status.framesReceived)) },
        .init(.framesInvalid, JSONSchema.count.described("packets from the device that did not decode")) {
            .int(Int64($0.core.status.framesInvalid))
        },
        .init(.measurements, JSONSchema.count.described("ranging measurements")) { .int(Int64($0.core.measurements)) },
        .init(.events, JSONSchema.count.described("events published")) { .int(Int64($0.core.events)) },
        .init(.publishQueue, JSONSchema.count.described("messages waiting for the broker now")) { .int(Int64($0.core.status.publisher.queued)) },
        .init(.spooled, JSONSchema.count.described("messages in the journal now")) { .int(Int64($0.core.status.publisher.spooled)) },
        .init(.dropped, JSONSchema.count.described("messages given up: live data replaced while the broker was away, the journal's oldest at its bound")) {
            .int(Int64($0.core.status.publisher.dropped))
        },
        .init(.publishesRefused, JSONSchema.count.described("messages the broker refused with a reason code (MQTT 5), e.g. not authorised by its ACL")) {
            .int(Int64($0.core.status.publisher.refusedByBroker))
        },
        .init(.deviceReconnects, .count) { .int(Int64($0.core.status.deviceReconnects)) },
        .init(.brokerReconnects, .count) { .int(Int64($0.core.status.brokerReconnects)) },
        .init(.requestsDropped, JSONSchema.count.described("requests refused by the request limits")) { .int(Int64($0.core.status.requestsDropped)) },
        .init(.eventsDropped, JSONSchema.count.described("events over a peer's event budget")) { .int(Int64($0.core.eventsDropped)) },
        .init(.phoneReports, JSONSchema.count.described("phones' reports taken")) { .int(Int64($0.core.status.phoneReports)) },
        .init(.phoneReportsDropped, JSONSchema.count.described("phones' reports refused")) { .int(Int64($0.core.status.phoneReportsDropped)) },
    ])
}
