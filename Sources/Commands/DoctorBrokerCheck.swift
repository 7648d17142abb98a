import Service
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Gateway
import EventLoop
import DeviceLink
import FoundationEssentials
import MQTTClient
import UCI

/// doctor's broker check: a connection with the configured URL, credentials and TLS files.
extension DoctorCommand {
    enum BrokerCheck {
        enum Outcome: Sendable {
            case connected
            case failed(MQTTError)
            case timedOut
        }

        static func run(_ configuration: AgentConfiguration, password: String?, timeout: Duration) async -> Check {
            let url = configuration.mqtt.broker.url
            var settings: MQTTConfiguration
            do {
                // A client id of its own: reusing the agent's would make the broker disconnect the agent.
                settings = try MQTTConfiguration(url: url, clientID: String((configuration.clientID + "-doctor").prefix(64)))
            } catch {
                return Check("broker", .fail, error.description, area: .configuration)
            }
            settings.username = configuration.mqtt.broker.username
            settings.password = password
            settings.caFile = configuration.mqtt.broker.caFile
            settings.certFile = configuration.mqtt.broker.certFile
            settings.keyFile = configuration.mqtt.broker.keyFile
            settings.keepaliveSeconds = Int(configuration.mqtt.broker.keepalive.seconds)
            let who = configuration.mqtt.broker.username.map { "as \($0)" } ?? "anonymously"

            let fixed = settings
            let outcome = await onDedicatedThread { brokerOutcome(fixed, timeout: timeout) }
            return verdict(for: outcome, url: url, who: who, configuration: configuration, timeout: timeout)
        }

        /// Connects once on an event loop of its own and reports how the first attempt ended.
        static func brokerOutcome(_ settings: MQTTConfiguration, timeout: Duration) -> Outcome {
            let loop: EventLoop
            do {
                loop = try EventLoop()
            } catch {
                return .failed(.invalidConfiguration("\(error)"))
            }
            var outcome: Outcome?
            let client: MQTTClient
            do {
                client = try MQTTClient(configuration: settings, loop: loop) { event in
                    switch event {
                    case .connected: outcome = outcome ?? .connected
                    case let .disconnected(.failed(error)): outcome = outcome ?? .failed(error)
                    default: break
                    }
                }
                try client.start()
            } catch {
                return .failed(error)
            }
            // The deadline of the check, not a synchronisation: the connect outcome ends the wait.
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            loop.run(until: { outcome != nil }, deadline: Clocks.monotonic() + seconds)
            client.disconnect(timeout: .milliseconds(500))
            return outcome ?? .timedOut
        }

        static func verdict(for outcome: Outcome, url: String, who: String, configuration: AgentConfiguration,
                            timeout: Duration = .seconds(5)) -> Check {
            switch outcome {
            case .connected:
                return Check("broker", .ok, "\(url) accepted the connection \(who)", area: .broker)
            case .timedOut:
                return Check("broker", .fail, "\(url): no answer within \(timeout.components.seconds) s",
                             hint: "a firewall dropping packets, or a TLS port given as mqtt:// (use mqtts://)", area: .broker)
            case .failed(let error):
                switch error {
                case .notAuthorized:
                    return Check("broker", .fail, "\(url) refused the credentials \(who) (not authorized)",
                                 hint: configuration.mqtt.broker.username == nil
                                     ? "the broker does not allow anonymous clients: set mqtt.username and mqtt.password_file"
                                     : "check mqtt.username and the password file; on the broker: sudo mosquitto_passwd /etc/mosquitto/passwd \(configuration.mqtt.broker.username!)",
                                 area: .broker)
                case .tls(let reason, _, _):
                    return Check("broker", .fail, "\(url): TLS failed: \(reason)",
                                 hint: "mqtt.ca_file must be the CA that signed the broker's certificate, the certificate must name the host in mqtt.url, and the clock must be right",
                                 area: .broker)
                case .connectionRefused(let reason):
                    return Check("broker", .fail, "\(url) unreachable: \(reason)",
                                 hint: "is the broker running and listening there? (systemctl status mosquitto; mosquitto 2 listens on localhost only unless a listener is configured)",
                                 area: .broker)
                case .fileNotReadable, .invalidConfiguration, .invalidURL:
                    return Check("broker", .fail, error.description, area: .configuration)
                default:
                    return Check("broker", .fail, "\(url): \(error.description)", area: .broker)
                }
            }
        }
    }
}
