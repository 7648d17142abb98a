/// What `watch` shows of one gateway above its peers: its `status`, `device`, `rules` and
/// `metrics`, and its peers and rankings.
public struct GatewayHeader: Sendable, Equatable {
    public var id: String
    /// `online` or `offline`; nil until a `status` arrived.
    public var status: String?
    public var version: String?
    /// `absent`, `opening`, `initializing`, `ranging`, `idle` or `error`.
    public var deviceState: String?
    public var firmware: String?
    public var deviceError: String?
    public var rulesOK: Bool?
    /// The active rules' distances, from the retained `rules` (an older agent gives none).
    public var thresholds: [RuleThreshold] = []
    public var rulesSHA: String?
    /// `line:column: message` of a failed rules load.
    public var rulesError: String?
    /// Measurements per second between the last two `metrics` (over the uptime for the first).
    public var measurementRate: Double?
    public var dropped: Int?
    /// By topic segment.
    public var peers: [String: PeerRow] = [:]
    /// Each ranking rule's peers, best first.
    public var rankings: [String: [String]] = [:]
    /// Where it stands in the site frame (`status.position`), for the site map.
    public var position: MapPoint?
    /// The newest message of this gateway that `watch` could not read, as `--plain` prints it
    /// without the gateway (`12:03:04 device: not a JSON object: …`), and how many there were:
    /// the drawn view shows it under the header rather than hiding it.
    public var problem: String?
    public var problemCount = 0

    /// The previous `metrics`' uptime and measurement count, for the rate.
    var lastMetrics: (uptime: Double, measurements: Double)?

    public static func == (a: GatewayHeader, b: GatewayHeader) -> Bool {
        a.id == b.id && a.status == b.status && a.version == b.version && a.deviceState == b.deviceState && a.firmware == b.firmware
            && a.deviceError == b.deviceError && a.rulesOK == b.rulesOK && a.rulesSHA == b.rulesSHA && a.rulesError == b.rulesError
            && a.measurementRate == b.measurementRate && a.dropped == b.dropped && a.peers == b.peers && a.rankings == b.rankings
            && a.position == b.position && a.problem == b.problem && a.problemCount == b.problemCount
    }
}
