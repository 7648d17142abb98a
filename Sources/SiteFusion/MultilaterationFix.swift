import Vocabulary

/// A solved tag position with the figures a consumer needs to judge it.
///
/// `accuracyM` is a one-sigma radius (the square root of the trace of the position covariance,
/// scaled up by residuals that exceed the noise model): horizontal for a fixed-height (2-D) fix,
/// spatial for a free-z (3-D) fix, widened to reach every other position the ranges cannot rule
/// out (another choice of outlier, the fix without any one range, a mirror image). It grows with
/// range noise, with residuals that disagree, with poor geometry (tag outside the gateways' hull,
/// nearly collinear or coplanar gateways) and with a doubtful choice of outlier.
public struct MultilaterationFix: Hashable, Sendable {
    public var x: Double
    public var y: Double
    /// The fixed tag height for a 2-D fix, else the solved height.
    public var z: Double
    public var accuracyM: Double
    /// Root mean square of the range residuals (measured minus fitted distance) of the gateways
    /// that were used, in metres.
    public var residualRMS: Double
    /// Gateways whose ranges took part (an outlier the robust fit rejected outright is not listed).
    public var usedGateways: [String]
    /// Levenberg–Marquardt steps taken, over all reweighting rounds.
    public var iterations: Int
    /// True when z was solved (3-D), false when it was fixed by the tag height (2-D).
    public var solvedZ: Bool

    public init(x: Double, y: Double, z: Double, accuracyM: Double, residualRMS: Double, usedGateways: [String],
                iterations: Int, solvedZ: Bool) {
        self.x = x
        self.y = y
        self.z = z
        self.accuracyM = accuracyM
        self.residualRMS = residualRMS
        self.usedGateways = usedGateways
        self.iterations = iterations
        self.solvedZ = solvedZ
    }

    public var point: SitePoint { SitePoint(x: x, y: y, z: z) }
}
