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
    func metrics(at moment: AgentMoment) -> [JSONMember] {
        [JSONMember(.ts, .string(Timestamp.rfc3339(moment.time))), JSONMember(.uptimeS, .int(Int64(uptime(at: moment)))),
         JSONMember(.framesRx, .int(Int64(status.framesReceived))), JSONMember(.framesInvalid, .int(Int64(status.framesInvalid))),
         JSONMember(.measurements, .int(Int64(measurements))), JSONMember(.events, .int(Int64(events))),
         JSONMember(.publishQueue, .int(Int64(status.publisher.queued))),
         JSONMember(.spooled, .int(Int64(status.publisher.spooled))), JSONMember(.dropped, .int(Int64(status.publisher.dropped))),
         JSONMember(.publishesRefused, .int(Int64(status.publisher.refusedByBroker))),
         JSONMember(.deviceReconnects, .int(Int64(status.deviceReconnects))),
         JSONMember(.brokerReconnects, .int(Int64(status.brokerReconnects))),
         JSONMember(.requestsDropped, .int(Int64(status.requestsDropped))), JSONMember(.eventsDropped, .int(Int64(eventsDropped))),
         JSONMember(.phoneReports, .int(Int64(status.phoneReports))),
         JSONMember(.phoneReportsDropped, .int(Int64(status.phoneReportsDropped)))]
    }
}
