import YAMLCoding

/// Approach-to-confirm: moving in confirms, moving away cancels — no button.
///
/// Inside ``startWithin`` the approach is ready and its progress runs 0 → 1 towards ``confirmWithin``;
/// at or below ``confirmWithin`` it completes (once, until the peer leaves beyond ``startWithin``);
/// beyond ``cancelBeyond`` before completion it cancels. All three thresholds are required, with
/// `cancel_beyond > start_within > confirm_within` so that a ready peer has room to hesitate.
public struct ApproachRule: Hashable, Sendable {
    public var name: String
    public var peers: [PeerPattern]
    public var startWithin: Double
    public var confirmWithin: Double
    public var cancelBeyond: Double
    public var mark: SourceMark?
    var nameMark: SourceMark?

    public init(name: String, peers: [PeerPattern] = PeerPattern.all, startWithin: Double, confirmWithin: Double,
                cancelBeyond: Double, mark: SourceMark? = nil) {
        self.name = name
        self.peers = peers
        self.startWithin = startWithin
        self.confirmWithin = confirmWithin
        self.cancelBeyond = cancelBeyond
        self.mark = mark
    }

    /// 0 at `start_within`, 1 at `confirm_within`, clamped.
    public func progress(at distance: Double) -> Double {
        let span = startWithin - confirmWithin
        guard span > 0 else { return distance <= confirmWithin ? 1 : 0 }
        return min(1, max(0, (startWithin - distance) / span))
    }
}

extension ApproachRule: Decodable {
    enum CodingKeys: String, CodingKey {
        case name, peers, startWithin = "start_within", confirmWithin = "confirm_within", cancelBeyond = "cancel_beyond"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mark = YAMLDecoder.mark(of: decoder)
        (name, nameMark) = try RulesDecoding.name(c, .name)
        peers = try decodePeers(c, .peers)
        let start = try c.decode(Located<Distance>.self, forKey: .startWithin)
        let confirm = try c.decode(Located<Distance>.self, forKey: .confirmWithin)
        let cancel = try c.decode(Located<Distance>.self, forKey: .cancelBeyond)
        guard start.value > confirm.value else {
            throw YAMLError(at: confirm.mark, "confirm_within (\(confirm.value)) must be less than start_within (\(start.value))")
        }
        guard cancel.value > start.value else {
            throw YAMLError(at: cancel.mark, "cancel_beyond (\(cancel.value)) must be greater than start_within (\(start.value))")
        }
        startWithin = start.value.meters
        confirmWithin = confirm.value.meters
        cancelBeyond = cancel.value.meters
    }
}
