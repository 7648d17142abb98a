import UCI

/// A status notification the device sends because of a command: DEVICE_STATUS_NTF with a device
/// state, or SESSION_STATUS_NTF with a session state (for one session handle, or any while the
/// handle is not known yet, as for SESSION_INIT before its response).
package struct ExpectedStatus: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case device(DeviceState)
        case session(SessionState, handle: UInt32?)
    }

    let kind: Kind

    static func device(_ state: DeviceState) -> ExpectedStatus { ExpectedStatus(kind: .device(state)) }
    static func session(_ state: SessionState, handle: UInt32?) -> ExpectedStatus { ExpectedStatus(kind: .session(state, handle: handle)) }

    /// True when `notification` is this status. A session status counts only as a consequence of
    /// our own command when `managementOnly` is false or its reason says so (0x00): a late stale
    /// notification carries 0x00, a stop by the device carries its cause.
    package func matches(_ notification: UCINotification, managementOnly: Bool = false) -> Bool {
        switch (kind, notification) {
        case let (.device(wanted), .coreDeviceStatus(state)):
            return wanted == state
        case let (.session(wanted, handle), .sessionStatus(sessionHandle, state, reason)):
            return wanted == state && (handle == nil || handle == sessionHandle)
                && (!managementOnly || reason == .stateChangeWithSessionManagementCommands)
        default:
            return false
        }
    }

    package var description: String {
        switch kind {
        case let .device(state): "DEVICE_STATUS_NTF(\(state))"
        case let .session(state, _): "SESSION_STATUS_NTF(\(state))"
        }
    }
}

/// What a command promises (uci.md §3.3, Q3): the status notifications the session waits for
/// before it moves on (`awaited`), and the ones that may come with it and mean nothing more
/// (`incidental`: the second READY of a reset, the device going ACTIVE or READY with the session).
///
/// Real firmware does not promise that these come after the response, or in the same read: they
/// may come before it, or milliseconds after the next command's response.
package struct StatusPromise: Sendable {
    package var awaited: [ExpectedStatus] = []
    var incidental: [ExpectedStatus] = []

    package init(for command: UCICommand) {
        switch command {
        case .coreDeviceReset:
            awaited = [.device(.ready)]
            incidental = [.device(.ready)]
        case .sessionInit:
            awaited = [.session(.initialized, handle: nil)]
        case let .sessionSetAppConfig(handle, _):
            awaited = [.session(.idle, handle: handle)]
        case let .sessionStart(handle):
            awaited = [.session(.active, handle: handle)]
            incidental = [.device(.active)]
        case let .sessionStop(handle):
            awaited = [.session(.idle, handle: handle)]
            incidental = [.device(.ready)]
        case let .sessionDeinit(handle):
            awaited = [.session(.deinitialized, handle: handle)]
            incidental = [.device(.ready)]
        default:
            break
        }
    }
}
