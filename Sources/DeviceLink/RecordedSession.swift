import UCI
import Vocabulary

/// The configured session as a recording shows it: which rounds are its own and when it
/// stopped, read as `DeviceSession` reads the device (`DeviceNews`) with what a recording lacks
/// taken into account — it holds what the device sent, not the host's commands.
///
/// The configured session is the first SESSION_INIT after a reset (the agent opens it before any
/// session a phone asks for); a recording without the bring-up adopts the first session that
/// ranges. Rounds of other sessions are phones': they count for the addresses in `phones`, the
/// phones ranging at that point of the recording (its agent inputs say when each joined and
/// left), and for no one else. An IDLE or DEINIT of the session is a stop by the device only
/// with a reason: the host's own STOP and DEINIT carry none.
public struct RecordedSession: Sendable {
    public private(set) var handle: UInt32?
    public private(set) var ranging = false
    private var expectingInit = false
    /// The addresses of the phones that range in sessions of their own, as the replay learns them.
    public var phones: Set<MacAddress> = []

    public init() {}

    /// A round of the configured session, or its stop; nothing for any other message.
    public mutating func read(_ message: UCIMessage) -> [DeviceIntake.Reading] {
        switch message {
        case .response(.coreDeviceReset):
            expectingInit = true
            ranging = false
        case let .response(.sessionInit(status, sessionHandle)) where expectingInit && status == .ok:
            expectingInit = false
            handle = sessionHandle
        case let .notification(.sessionInfo(info)):
            if handle == nil { handle = info.sessionHandle }
            guard info.sessionHandle == handle else { return phoneRounds(info) }
            ranging = true
            return [.rounds(info)]
        case let .notification(notification):
            guard let news = DeviceNews(notification, ranging: ranging), news.endsSession(handle) else { return [] }
            if case let .sessionEnded(_, _, reason) = news, reason == .stateChangeWithSessionManagementCommands {
                ranging = false
                return []
            }
            defer { ranging = false }
            guard ranging else { return [] }
            if case let .sessionEnded(_, _, reason) = news { return [.stopped(reason)] }
            return [.stopped(nil)]
        default:
            break
        }
        return []
    }

    /// A round of another session, with the measurements of `phones` only.
    private func phoneRounds(_ info: SessionInfo) -> [DeviceIntake.Reading] {
        guard !phones.isEmpty, case let .twoWay(all) = info.measurements else { return [] }
        let theirs = all.filter { phones.contains($0.macAddress) }
        guard !theirs.isEmpty else { return [] }
        var round = info
        round.measurements = .twoWay(theirs)
        return [.rounds(round)]
    }
}
