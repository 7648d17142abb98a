/// Why the solver gave no position. A fix is never guessed: each of these means "no point".
public enum MultilaterationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The geometry needs `need` gateways (3 with a fixed tag height, 4 with free z); only `have`
    /// usable ranges were given.
    case tooFewGateways(have: Int, need: Int)
    /// The gateways' positions cannot determine the position (see ``Degeneracy``).
    case degenerateGeometry(Degeneracy)
    /// The iteration did not settle within the allowed steps, or produced a non-finite value.
    case noConvergence(iterations: Int)
    /// A range or gateway position is not a finite number, or a range is negative.
    case invalidObservation(gatewayID: String)
    /// The same gateway was given twice: two ranges from one place are not two gateways.
    case duplicateGateway(String)
    /// The `gateways` ranges disagree beyond their noise, and no subset that leaves out as many
    /// outliers as the solver may reject agrees either: any point would be a guess.
    case inconsistentRanges(gateways: Int)

    public enum Degeneracy: String, Hashable, Sendable {
        /// All gateways (nearly) at one point.
        case coincidentGateways = "coincident_gateways"
        /// 2-D: the gateways lie on a line, so a tag and its mirror image fit equally well.
        case collinearGateways = "collinear_gateways"
        /// 3-D with free z: the gateways lie in one plane (for example all at ceiling height), so z
        /// above and below that plane fit equally well. Give a tag height, or mount gateways at
        /// different heights.
        case coplanarGateways = "coplanar_gateways"
        /// The fit's normal matrix is singular at the solution (the tag sits where the ranges
        /// constrain a direction not at all).
        case undeterminedAtSolution = "undetermined_at_solution"
    }

    /// A short machine-readable name, for a `cause` field or a metric.
    public var cause: String {
        switch self {
        case .tooFewGateways: "too_few_gateways"
        case .degenerateGeometry: "degenerate_geometry"
        case .noConvergence: "no_convergence"
        case .invalidObservation: "invalid_observation"
        case .duplicateGateway: "duplicate_gateway"
        case .inconsistentRanges: "inconsistent_ranges"
        }
    }

    public var description: String {
        switch self {
        case .tooFewGateways(let have, let need): "too few gateways: \(have) in range, \(need) needed"
        case .degenerateGeometry(let d): "degenerate gateway geometry: \(d.rawValue)"
        case .noConvergence(let n): "no convergence after \(n) iterations"
        case .invalidObservation(let id): "invalid range or position from gateway \(id)"
        case .duplicateGateway(let id): "gateway \(id) given twice"
        case .inconsistentRanges(let n): "the ranges of \(n) gateways disagree, and no subset of them agrees"
        }
    }
}
