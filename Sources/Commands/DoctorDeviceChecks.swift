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

/// doctor's device checks, one after the other since each needs the one before: the port
/// there (or found, for `auto`), openable by the service user, and answering UCI as the agent
/// brings it up.
extension DoctorCommand {
    enum DeviceChecks {
        static func run(_ configuration: AgentConfiguration, timeout: Duration) -> [Check] {
            let port = configuration.device.port
            let options = TransportOptions(baudRate: configuration.device.baud)
            if port.lowercased() == "auto" {
                let candidates: [SerialPortInfo]
                do {
                    candidates = try autoCandidates()
                } catch {
                    return [Check("device port", .fail, "cannot list serial ports: \(error.message)", area: .device),
                            Check("device UCI", .skip, "not checked: no port", area: .device)]
                }
                guard !candidates.isEmpty else {
                    return [Check("device port", .fail, "auto: no serial port with the DWM3001C's USB id 1915:520F",
                                  hint: "plug the DWM3001CDK in by its J20 USB socket (J9 is the J-Link); `uwb2mqtt ports` lists the ports there are",
                                  area: .device),
                            Check("device UCI", .skip, "not checked: no port", area: .device)]
                }
                var checks = [Check("device port", .ok, "auto: " + candidates.map { describe($0) }.joined(separator: ", "), area: .device)]
                // The CLI firmware has the same USB id: try each candidate until one answers UCI.
                var last: [Check] = []
                for candidate in candidates {
                    last = [accessCheck(path: candidate.path)]
                    if last[0].verdict == .fail { continue }
                    last.append(uciCheck(port: candidate.path, options: options, timeout: timeout))
                    if last[1].verdict == .ok { break }
                }
                checks += last
                if last.count == 1 { checks.append(Check("device UCI", .skip, "not checked: the port cannot be opened", area: .device)) }
                return checks
            }
            if port.lowercased().hasPrefix("tcp:") {
                return [Check("device port", .ok, "\(port) (a network bridge; reached by the UCI probe)", area: .device),
                        uciCheck(port: port, options: options, timeout: timeout)]
            }

            // A device path, often a udev link (/dev/dwm3001c, /dev/serial/by-id/…).
            guard let resolved = realpath(port, nil) else {
                let code = errno
                var status = stat()
                let dangling = lstat(port, &status) == 0
                let detail = dangling ? "\(port) is a link to a device that does not exist (unplugged?)"
                                      : "\(port): \(code == ENOENT ? "no such device" : String(cString: strerror(code)))"
                return [Check("device port", .fail, detail,
                              hint: "plug the board in by its J20 USB socket; `uwb2mqtt ports` lists the ports there are; /dev/dwm3001c needs udev/99-uwb2mqtt.rules; or set device.port: auto",
                              area: .device),
                        Check("device UCI", .skip, "not checked: no port", area: .device)]
            }
            let node = String(cString: resolved)
            free(resolved)
            var checks = [Check("device port", .ok, node == port ? port : "\(port) → \(node)", area: .device)]
            let access = accessCheck(path: port)
            checks.append(access)
            if access.verdict == .fail {
                checks.append(Check("device UCI", .skip, "not checked: the port cannot be opened", area: .device))
            } else {
                checks.append(uciCheck(port: port, options: options, timeout: timeout))
            }
            return checks
        }

        static func describe(_ port: SerialPortInfo) -> String {
            port.path + (port.serialNumber.map { " (serial \($0))" } ?? "")
        }

        /// May this process open the port, and will the service (user uwb2mqtt with group dialout)?
        static func accessCheck(path: String) -> Check {
            var status = stat()
            guard stat(path, &status) == 0 else {
                return Check("device access", .fail, "\(path): \(String(cString: strerror(errno)))", area: .device)
            }
            let mode = status.st_mode & 0o777
            let group = Accounts.groupName(status.st_gid)
            let owner = Accounts.userName(status.st_uid)
            let shown = "\(PasswordFile.octal(mode)) \(owner):\(group)"
            let user = currentUserName()
            let isPseudoTerminal = (realpath(path, nil).map { pointer -> Bool in
                defer { free(pointer) }
                return String(cString: pointer).hasPrefix("/dev/pts/")
            }) ?? false

            if Glibc.access(path, R_OK | W_OK) != 0 {
                let inSessionGroups = Accounts.processGroups().contains(status.st_gid)
                let listedInGroup = Accounts.groupMembers(status.st_gid).contains(user)
                let hint: String
                if listedInGroup && !inSessionGroups {
                    hint = "\(user) was added to group \(group) after this login: log out and in again (or run `newgrp \(group)`)"
                } else if mode & 0o060 != 0o060 {
                    hint = "the group may not read and write it: install udev/99-uwb2mqtt.rules (GROUP=\"dialout\", MODE=\"0660\") and replug"
                } else {
                    hint = "sudo usermod -aG \(group) \(user), then log in again; or install udev/99-uwb2mqtt.rules (group dialout, mode 0660)"
                }
                return Check("device access", .fail, "\(path): permission denied for \(user) (\(shown))", hint: hint, area: .device)
            }
            // This user may; will the service? It runs as uwb2mqtt with SupplementaryGroups=dialout.
            if !isPseudoTerminal, mode & 0o006 != 0o006, !(group == "dialout" && mode & 0o060 == 0o060),
               !(owner == "uwb2mqtt" && mode & 0o600 == 0o600) {
                return Check("device access", .warn, "\(path) opens for \(user), but the service (user uwb2mqtt, group dialout) may not (\(shown))",
                             hint: "install udev/99-uwb2mqtt.rules (GROUP=\"dialout\", MODE=\"0660\") and replug", area: .device)
            }
            return Check("device access", .ok, "\(path) opens for \(user) (\(shown))", area: .device)
        }

        /// Opens the port and talks to the device as the agent's bring-up does: CORE_DEVICE_RESET and
        /// the READY it promises, CORE_GET_DEVICE_INFO, CORE_GET_CAPS_INFO; ok with the versions and
        /// capabilities the device reports. A failure says what the device did send, if anything.
        static func uciCheck(port: String, options: TransportOptions, timeout: Duration) -> Check {
            let transport: any ByteTransport
            do {
                transport = try openTransport(port: port, options: options)
            } catch {
                let hint: String? = switch error {
                case .busy: "stop the agent first (sudo systemctl stop uwb2mqtt); ModemManager also grabs new ports (udev rule sets ID_MM_DEVICE_IGNORE)"
                case .permissionDenied: "sudo usermod -aG dialout \(currentUserName()), then log in again; or install udev/99-uwb2mqtt.rules"
                case .unreachable, .timedOut: "is the serial bridge (ser2net) running and listening there?"
                default: nil
                }
                return Check("device UCI", .fail, "cannot open: \(error.message)", hint: hint, area: .device)
            }
            var probe = DeviceProbe(transport: transport, timeout: timeout)
            defer {
                probe.settle()
                transport.close()
            }
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            let waited = seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
            let replug = "replug the board; check `dmesg` for USB disconnects (cable, power)"

            /// The check when `command` did not get the answer it asks for: something malformed
            /// or unexpected, silence, or a read that failed.
            func failed(_ outcome: DeviceProbe.Outcome, asking command: String, afterReset: Bool) -> Check {
                switch outcome {
                case let .answered(response): malformed(response.raw)
                case let .malformed(raw): malformed(raw)
                case let .silent(bytes): unanswered(command, bytes: bytes, afterReset: afterReset)
                case let .readFailed(error): Check("device UCI", .fail, "\(port): \(error.message)", hint: replug, area: .device)
                }
            }

            func malformed(_ raw: RawMessage) -> Check {
                Check("device UCI", .fail, "malformed \(raw.name): \(raw.payload.count) bytes", area: .device)
            }

            func unanswered(_ command: String, bytes: Int, afterReset: Bool) -> Check {
                if let seen = probe.seenSummary {
                    return Check("device UCI", .fail, "\(port) sent \(seen) but did not answer \(command) within \(waited)",
                                 hint: afterReset ? replug : "the device speaks UCI but does not take a reset: replug (power-cycle) the board", area: .device)
                }
                if bytes > 0 {
                    return Check("device UCI", .fail, "\(port) sent \(bytes) bytes but no UCI message within \(waited)",
                                 hint: "the board may run Qorvo's CLI firmware (same USB id) or another program; flash the UCI build", area: .device)
                }
                return Check("device UCI", .fail, "no answer to \(command) from \(port) within \(waited)",
                             hint: "replug the board; is this the J20 (nRF52833 USB) port and the UCI firmware? on battery-only power the UCI build may not start", area: .device)
            }

            do {
                switch try probe.ask(.coreDeviceReset(resetConfig: 0)) {
                case let .answered(response) where response.status != .ok:
                    let seen = probe.seenSummary.map { " (it also sent \($0))" } ?? ""
                    return Check("device UCI", .fail, "the device refused CORE_DEVICE_RESET with status \(response.status ?? .unknown)\(seen)",
                                 hint: replug, area: .device)
                case .answered:
                    break
                case let outcome:
                    return failed(outcome, asking: "CORE_DEVICE_RESET", afterReset: false)
                }
                switch try probe.ask(.coreGetDeviceInfo) {
                case let .answered(.coreGetDeviceInfo(status, info)):
                    guard status == .ok, let info else {
                        let seen = probe.seenSummary.map { " (it also sent \($0))" } ?? ""
                        return Check("device UCI", .fail, "after a reset the device answered CORE_GET_DEVICE_INFO with status \(status)\(seen)",
                                     hint: replug, area: .device)
                    }
                    var text = "UCI \(info.uciVersion), MAC \(info.macVersion), PHY \(info.phyVersion)"
                    if let qorvo = info.qorvo {
                        text += ", firmware \(qorvo.firmwareVersionString), device id 0x\(String(qorvo.deviceID, radix: 16, uppercase: true))"
                    }
                    // The agent ranges without capabilities too: their absence is said, not failed.
                    switch try probe.ask(.coreGetCapsInfo) {
                    case let .answered(.coreGetCapsInfo(.ok, tlvs)):
                        let capabilities = DeviceCapabilities(tlvs: tlvs, uciVersion: info.uciVersion)
                        text += "; capabilities: angle of arrival \(capabilities.hasAoA ? "yes" : "no"), "
                            + "extended MAC addresses \(capabilities.hasExtendedMACAddress ? "yes" : "no")"
                    case let .answered(response):
                        text += "; CORE_GET_CAPS_INFO failed (\(response.status ?? .unknown)): the agent ranges without capabilities"
                    default:
                        text += "; no capabilities (CORE_GET_CAPS_INFO unanswered): the agent ranges without them"
                    }
                    return Check("device UCI", .ok, text + "; reset ok", area: .device)
                case let outcome:
                    return failed(outcome, asking: "CORE_GET_DEVICE_INFO", afterReset: true)
                }
            } catch {
                return Check("device UCI", .fail, "cannot write to \(port): \(error.message)", area: .device)
            }
        }
    }
}
