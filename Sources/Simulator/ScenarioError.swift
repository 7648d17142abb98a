/// Why a scenario cannot be run. Thrown by `Scenario.validate()` and by `SimulatedDevice.init`,
/// and wrapped into a `DecodingError` when a scenario file is decoded, so a bad file is a
/// message naming the field, never a trap or a silently odd simulation.
public enum ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A number that must be finite is NaN or infinite.
    case notFinite(field: String)
    /// A number that must be ≥ 0 (or > 0 where `strictlyPositive`) is not.
    case outOfRange(field: String, value: Double, expected: String)
    /// A peer has no keyframes.
    case emptyPath(peer: String)
    /// Keyframe times must strictly increase.
    case keyframesOutOfOrder(peer: String, index: Int)
    /// A window or fault ends before it starts.
    case invalidWindow(field: String, from: Double, to: Double)
    /// Two peers share an address.
    case duplicatePeer(address: UInt16)
    /// A looping scenario has a fault at or after its duration: it would never fire.
    case faultBeyondDuration(kind: String, at: Double, duration: Double)
    /// A keyframe in a file gives both a distance and a site position, neither, or only half a
    /// position (`x` without `y`).
    case keyframePlace(field: String)
    /// A path mixes distance keyframes and site-frame keyframes; `index` is the first odd one.
    case mixedKeyframeKinds(peer: String, index: Int)
    /// A site-frame keyframe gives angles, which only make sense as seen from one gateway.
    case siteKeyframeWithAngles(peer: String, index: Int)
    /// The scenario places peers in site coordinates but the device was given no gateway
    /// position to measure distances from.
    case gatewayPositionRequired(peer: String)
    /// `clock: wall` without a duration, or with `at_end: stop`.
    case wallClockNeedsLoop
    /// A text field that does not say what it must (a key of the wrong length, an address
    /// that is not `AB:CD`).
    case invalidValue(field: String, value: String, expected: String)
    /// A phone is started for an address no scenario peer has: it would have no place.
    case phoneWithoutPeer(address: UInt16)
    /// An iPhone is started for an address no scenario peer declared an iPhone (`iphone:`).
    case iPhoneWithoutPeer(address: UInt16)
    /// A peer is declared both an Android phone (`phone:`) and an iPhone (`iphone:`).
    case twoPhoneKinds(peer: String)

    public var description: String {
        switch self {
        case let .notFinite(field): "\(field): must be a finite number"
        case let .outOfRange(field, value, expected): "\(field): \(value) is out of range (expected \(expected))"
        case let .emptyPath(peer): "peer \(peer): path needs at least one keyframe"
        case let .keyframesOutOfOrder(peer, index): "peer \(peer): path[\(index)].t must be later than the keyframe before it"
        case let .invalidWindow(field, from, to): "\(field): window ends (\(to)) before it starts (\(from))"
        case let .duplicatePeer(address): "peers: address \(shortAddressText(address)) appears twice"
        case let .faultBeyondDuration(kind, at, duration):
            "faults: \(kind) at \(at) s never fires in a scenario that loops every \(duration) s"
        case let .keyframePlace(field):
            "\(field): a keyframe gives either distance, or x and y (z optional) in site coordinates, not both"
        case let .mixedKeyframeKinds(peer, index):
            "peer \(peer): path[\(index)] mixes distance and site (x, y) keyframes; all keyframes of a path use the same kind"
        case let .siteKeyframeWithAngles(peer, index):
            "peer \(peer): path[\(index)] is in site coordinates and cannot give azimuth or elevation (angles are seen from one gateway)"
        case let .gatewayPositionRequired(peer):
            "peer \(peer): this scenario places peers in site coordinates; give the gateway a position (gateway.position in the config)"
        case .wallClockNeedsLoop:
            "clock: wall needs a duration and at_end: loop (scene time is wall-clock seconds modulo the duration)"
        case let .invalidValue(field, value, expected): "\(field): '\(value)' is not valid (expected \(expected))"
        case let .phoneWithoutPeer(address):
            "phone \(shortAddressText(address)): no scenario peer has this address, so the phone has no path"
        case let .iPhoneWithoutPeer(address):
            "iPhone \(shortAddressText(address)): no scenario peer with this address is declared an iPhone (iphone: {})"
        case let .twoPhoneKinds(peer):
            "peer \(peer): an Android phone (phone:) or an iPhone (iphone:), not both"
        }
    }
}

/// `0x0001` notation, as the config and rules files write short addresses.
func shortAddressText(_ address: UInt16) -> String {
    let digits = String(address, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
