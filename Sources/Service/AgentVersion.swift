import CLibSerialPort
import CMosquitto

/// The agent's version and those of the C libraries it runs on, for `uwb2mqtt version` and the
/// retained `status` topic.
public enum AgentVersion {
    public static let agent = "0.1.0"

    public static var libserialport: String { String(cString: sp_get_package_version_string()) }

    public static var libmosquitto: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
