/// A fused fix: the position of one peer that several gateways' ranges give: the `position` payload of `<base>/site/<site>/peer/<peer>/position`
/// (frame `site`, method `multilateration`), with the solver's diagnostics.
public struct SiteFix: Hashable, Sendable {
    /// Seconds: the newest range that went into the fix.
    public var ts: Double
    public var peer: String
    public var x: Double
    public var y: Double
    public var z: Double
    public var accuracyM: Double
    /// Gateway ids whose ranges were used, sorted.
    public var gateways: [String]
    public var residualRMS: Double
    public var solvedZ: Bool

    /// The payload's `method`.
    public static let method = "multilateration"

    public init(ts: Double, peer: String, fix: MultilaterationFix) {
        self.ts = ts
        self.peer = peer
        x = fix.x
        y = fix.y
        z = fix.z
        accuracyM = fix.accuracyM
        gateways = fix.usedGateways.sorted()
        residualRMS = fix.residualRMS
        solvedZ = fix.solvedZ
    }
}
