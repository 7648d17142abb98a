/// What `watch` shows of one peer of one gateway: the latest `state`, with the distance and time
/// of the newest `range` and the progress of the newest `feedback` on top, since those come more
/// often than `state`.
public struct PeerRow: Sendable, Equatable {
    /// One approach rule's phase, from `state.approaches`.
    public struct Approach: Sendable, Equatable {
        public var rule: String
        public var phase: String
        public var progress: Double?
    }

    /// The name as the payloads write it (the topic carries its sanitized form).
    public var name: String
    /// `connecting`, `ranging` or `lost`; nil until a `state` arrived.
    public var link: String?
    /// The filtered distance in metres.
    public var distance: Double?
    public var stage: String?
    public var zones: [String] = []
    public var approaches: [Approach] = []
    public var facing: Bool?
    /// Who measured the direction (`gateway`, `phone`), nil while it is unavailable; with the
    /// azimuth it gave.
    public var directionSource: String?
    public var azimuth: Double?
    /// Closeness within the current stage or approach, 0…1, from `feedback`.
    public var progress: Double?
    /// The `ts` of the newest measurement (`range`) or `state`.
    public var lastMeasurement: String?
    /// The address as `range` writes it (`0x0001`), for rules that name peers by address.
    public var mac: String?
}
