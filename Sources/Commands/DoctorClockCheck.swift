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

/// doctor's clock check: a wall clock that is set (not in the past of this build).
extension DoctorCommand {
    enum ClockCheck {
        /// A Pi has no real-time clock: until NTP syncs it may think it is 1970 or its last shutdown,
        /// which breaks TLS certificate checks and every `ts` the agent publishes.
        static func run() -> Check {
            var now = time(nil)
            var parts = tm()
            gmtime_r(&now, &parts)
            let year = Int(parts.tm_year) + 1900
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let stamp = "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
            guard year >= 2024 else {
                return Check("clock", .fail, "the clock reads \(stamp)",
                             hint: "enable time synchronisation (sudo timedatectl set-ntp true) and check the network; TLS and timestamps need the right time",
                             area: .configuration)
            }
            switch KernelClock.synchronised() {
            case false?:
                return Check("clock", .warn, "\(stamp), not synchronised (the kernel reports no NTP discipline)",
                             hint: "sudo timedatectl set-ntp true (systemd-timesyncd) or install chrony", area: .configuration)
            case true?:
                return Check("clock", .ok, "\(stamp), synchronised", area: .configuration)
            case nil:
                return Check("clock", .ok, "\(stamp) (synchronisation not checked on this platform)", area: .configuration)
            }
        }
    }
}
