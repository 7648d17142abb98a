#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CMosquitto

/// Turns libmosquitto's numeric outcomes into `MQTTError`s with text an operator can act on.
struct MosquittoReasons {
    let configuration: MQTTConfiguration

    /// A refused CONNACK. MQTT 3.1.1 codes 1…5, or MQTT 5 reason codes ≥ 0x80.
    func connackRefusal(code: Int32) -> MQTTError {
        let text: String
        switch configuration.protocolVersion {
        case .v311: text = String(cString: mosquitto_connack_string(code))
        case .v5: text = String(cString: mosquitto_reason_string(code))
        }
        let credentials: Set<Int32> = configuration.protocolVersion == .v311
            ? [4, 5]                                  // bad user name or password, not authorized
            : [0x86, 0x87, 0x8C]                      // bad user name or password, not authorized, bad auth method
        if configuration.protocolVersion == .v5, code == MosquittoCode.unsupportedProtocolVersion {
            return .connectionRefused(reason: "the broker does not speak MQTT 5 (\(configuration.broker)); connecting with MQTT 3.1.1")
        }
        if credentials.contains(code) {
            return .notAuthorized(reason: "\(text) (user \(configuration.username.map { "'\($0)'" } ?? "none") at \(configuration.broker))")
        }
        return .connectionRefused(reason: "\(text) (\(configuration.broker))")
    }

    /// Why the connection ended or could not be made. `lastLogLine` is libmosquitto's last warning
    /// or error line, which holds OpenSSL's reason for a TLS failure.
    func disconnect(code: Int32, errno threadErrno: Int32, lastLogLine: String?) -> MQTTError {
        let broker = configuration.broker
        switch code {
        case MosquittoCode.errno:
            let text = String(cString: strerror(threadErrno))
            if threadErrno == ECONNREFUSED || threadErrno == EHOSTUNREACH || threadErrno == ENETUNREACH
                || threadErrno == ETIMEDOUT {
                return .connectionRefused(reason: "cannot connect to \(broker): \(text)")
            }
            return .connectionLost(reason: "\(text) (\(broker))")
        case MosquittoCode.connectionLost:
            return .connectionLost(reason: "the broker closed the connection (\(broker))")
        case MosquittoCode.keepalive:
            return .connectionLost(reason: "no answer within the keepalive interval (\(broker))")
        case MosquittoCode.lookup:
            return .connectionRefused(reason: "cannot resolve host '\(broker.host)'")
        case MosquittoCode.tls, MosquittoCode.tlsHandshake:
            return tlsFailure(detail: lastLogLine)
        case MosquittoCode.auth:
            return .notAuthorized(reason: "authentication failed (\(broker))")
        case MosquittoCode.connectionRefused:
            return .connectionRefused(reason: "the broker refused the connection (\(broker))")
        default:
            return .library(operation: "MQTT connection to \(broker)", code: code,
                            message: MosquittoLibrary.message(for: code))
        }
    }

    /// A TLS error naming the files involved; `detail` is OpenSSL's reason when known.
    func tlsFailure(detail: String?) -> MQTTError {
        .tls(reason: detail ?? "handshake with \(configuration.broker) failed",
             caFile: configuration.caFile, certFile: configuration.certFile)
    }

    /// An error returned directly by a libmosquitto call made from `operation`.
    func call(_ operation: String, code: Int32) -> MQTTError {
        switch code {
        case MosquittoCode.tls: return tlsFailure(detail: nil)
        default: return .library(operation: operation, code: code, message: MosquittoLibrary.message(for: code))
        }
    }
}
