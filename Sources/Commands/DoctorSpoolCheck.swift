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

/// doctor's spool check: the journal's directory there and writable by the service user.
extension DoctorCommand {
    enum SpoolCheck {
        /// The spool must take a file: events and retained state are journaled there while the broker is away.
        static func run(_ directory: String) -> Check {
            var status = stat()
            guard stat(directory, &status) == 0 else {
                return Check("spool dir", .warn, "\(directory) does not exist yet",
                             hint: "systemd creates /var/lib/uwb2mqtt (StateDirectory=uwb2mqtt) and install.sh does too; for another path: sudo install -d -o uwb2mqtt -m 0750 \(directory)",
                             area: .configuration)
            }
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                return Check("spool dir", .fail, "\(directory) is not a directory", area: .configuration)
            }
            var template = Array("\(directory)/.uwb2mqtt-doctor-XXXXXX".utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if descriptor >= 0 {
                close(descriptor)
                template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
                return Check("spool dir", .ok, "\(directory) is writable", area: .configuration)
            }
            let reason = String(cString: strerror(errno))
            let owner = Accounts.userName(status.st_uid)
            if status.st_uid != geteuid() && owner == "uwb2mqtt" {
                return Check("spool dir", .warn, "\(directory) is not writable by \(currentUserName()) (\(reason)); it belongs to \(owner)",
                             hint: "run doctor as the service user: sudo -u uwb2mqtt uwb2mqtt doctor", area: .configuration)
            }
            return Check("spool dir", .fail, "\(directory) is not writable by \(currentUserName()) (\(reason))",
                         hint: "sudo chown uwb2mqtt \(directory); chmod 0750 \(directory)", area: .configuration)
        }
    }
}
