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

/// doctor's rules check: the file there, readable by the service, and valid as `check` judges it.
extension DoctorCommand {
    enum RulesCheck {
        static func run(_ configuration: AgentConfiguration) -> Check {
            let path = configuration.rules
            switch FileAccess.check(path) {
            case .missing:
                return Check("rules", .fail, "rules names \(path), which does not exist",
                             hint: "copy /usr/share/doc/uwb2mqtt/rules.yaml (or deploy/rules.yaml) there", area: .configuration)
            case .notAFile(let kind):
                return Check("rules", .fail, "rules names \(path), which is \(kind), not a file", hint: "correct the path", area: .configuration)
            case .unreadable(let reason):
                return Check("rules", .fail, "\(path): \(currentUserName()) cannot read it (\(reason))",
                             hint: "chgrp uwb2mqtt \(path); chmod g+r \(path)", area: .configuration)
            case .readable:
                let findings = CheckCommand.validateRules(path: path, configuration: configuration)
                if let error = findings.first(where: { $0.severity == .error }) {
                    return Check("rules", .fail, error.message, hint: "`uwb2mqtt check` lists every problem", area: .configuration)
                }
                if let warning = findings.first(where: { $0.severity == .warning }) {
                    return Check("rules", .warn, warning.message, area: .configuration)
                }
                let note = findings.first.map { " (" + $0.message.replacing("rules: ", with: "") + ")" } ?? " and valid"
                return Check("rules", .ok, "\(path) is present" + note, area: .configuration)
            }
        }
    }
}
