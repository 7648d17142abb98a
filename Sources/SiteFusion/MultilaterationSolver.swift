import Vocabulary

/// Solves one tag's position from its ranges to several gateways, robust to ranges that are far
/// too long without being flagged (a blocked direct path the firmware cannot tell from a clear
/// one).
///
/// With a `tagHeight` the tag is assumed at that z and only x, y are solved (2-D, at least 3
/// gateways, not collinear); without one x, y, z are solved (3-D, at least 4 gateways, not
/// coplanar).
///
/// **Outliers by consensus.** Every set of ranges is fitted by weighted least squares
/// (Levenberg–Marquardt from the linearised closed form of that set) and tested against the noise
/// model: its chi-square must not exceed what noise alone reaches once in 1,000. The full set is
/// one hypothesis, and so is every subset that leaves out up to `maxRejectedRanges` ranges while
/// keeping one range more than the unknowns (so that it can still disagree): it holds when the
/// subset is consistent and every range it leaves out is clearly too long for its fit (a blocked
/// direct path lengthens a range; nothing shortens one). Each unflagged range left out costs the
/// score the one-degree chi-square quantile, so a range is rejected only when that buys more fit
/// than noise could; the fix comes from the best-scoring hypothesis. Comparing the subsets
/// themselves, rather than following one fit's residuals, keeps an outlier from dragging the fit
/// so that a good range looks like the bad one. When no hypothesis holds there is no fix
/// (``MultilaterationError/inconsistentRanges(gateways:)``).
///
/// **Accuracy.** `accuracyM` is a one-sigma radius: the root of the trace of the chosen fit's
/// covariance (the noise model through the geometry), scaled up by the fit's own residuals when
/// they exceed the model, then widened to reach every other reading the ranges cannot rule out:
/// rival hypotheses scoring within `ambiguityChiSquare` plus one rejection's penalty, the fix
/// without any one of the chosen ranges (where one range has leverage the others cannot check, an
/// outlier on it would move the fix unnoticed), and a mirror image that fits about as well. So it
/// grows with poor geometry, with fewer ranges kept, with residuals that disagree, and with a
/// doubtful choice of outlier.
///
/// NLoS-flagged ranges keep a small weight (see ``RangeSubsetFit``).
///
/// ```swift
/// let solver = MultilaterationSolver(tagHeight: 1.0)
/// let fix = try solver.solve([
///     RangeObservation(gatewayID: "a", gateway: SitePoint(x: 0, y: 0, z: 2.5), distanceM: 3.02),
///     RangeObservation(gatewayID: "b", gateway: SitePoint(x: 6, y: 0, z: 2.5), distanceM: 4.51),
///     RangeObservation(gatewayID: "c", gateway: SitePoint(x: 6, y: 6, z: 2.5), distanceM: 5.70, nlos: true),
/// ])
/// ```
public struct MultilaterationSolver: Sendable {
    /// Tuning of the fit. The defaults suit a DWM3001C (about ±10 cm line-of-sight ranges).
    public struct Options: Hashable, Sendable {
        /// Metres: the standard deviation of a line-of-sight range in the noise model.
        public var rangeSigma = 0.1
        /// Weight of a NLoS range (0.1 means it counts like a range with √10 × the sigma).
        public var nlosWeight = 0.1
        /// Treat a NLoS range as an upper bound: when the fitted distance exceeds it, full weight.
        public var nlosUpperBound = true
        /// The most ranges one fix may leave out as outliers (never so many that the rest could
        /// not disagree).
        public var maxRejectedRanges = 2
        /// The consistency test's normal quantile: 3.09 rejects ranges that carry only modelled
        /// noise once in 1,000 fits.
        public var consistencyQuantile = 3.09
        /// Sigmas: a range a hypothesis leaves out must be at least this far off its fit.
        public var outlierSigmas = 3.0
        /// Levenberg–Marquardt steps allowed for one descent.
        public var maxIterations = 100
        /// Metres: a step shorter than this ends the iteration.
        public var tolerance = 1e-7
        /// Metres: gateways spread less than this along a direction count as not spread along it.
        public var minimumSpread = 0.01
        /// The least spread as a fraction of the largest below which the layout counts as a line
        /// (2-D) or plane (3-D).
        public var minimumSpreadRatio = 0.01
        /// A mirror solution whose chi-square is within this of the best fit is considered as
        /// plausible, and the accuracy widens to cover it (9 ≈ three sigma).
        public var ambiguityChiSquare = 9.0

        public init() {}
    }

    /// Metres in the site frame: the fixed tag height for 2-D fixes, or nil to solve z.
    public var tagHeight: Double?
    public var options: Options

    public init(tagHeight: Double? = nil, options: Options = Options()) {
        self.tagHeight = tagHeight
        self.options = options
    }

    /// The number of gateways this geometry needs at least: one more than the unknowns, so that
    /// every fix has a residual that can disagree.
    public var requiredGateways: Int { unknowns + 1 }

    var unknowns: Int { tagHeight == nil ? 3 : 2 }

    /// Solves the position from `observations` (one per gateway).
    public func solve(_ observations: [RangeObservation]) throws(MultilaterationError) -> MultilaterationFix {
        var seen = Set<String>()
        for o in observations {
            guard o.gateway.isFinite, o.distanceM.isFinite, o.distanceM >= 0 else {
                throw .invalidObservation(gatewayID: o.gatewayID)
            }
            guard seen.insert(o.gatewayID).inserted else { throw .duplicateGateway(o.gatewayID) }
        }
        if let tagHeight, !tagHeight.isFinite { throw .invalidObservation(gatewayID: "tag_height") }
        guard observations.count >= requiredGateways else {
            throw .tooFewGateways(have: observations.count, need: requiredGateways)
        }
        let geometry = GatewayGeometry(points: RangeSubsetFit(observations: observations, tagHeight: tagHeight, options: options).anchors, dimensions: unknowns)
        if let degeneracy = geometry.degeneracy(minimumSpread: options.minimumSpread, minimumRatio: options.minimumSpreadRatio) {
            throw .degenerateGeometry(degeneracy)
        }

        var hypotheses: [Hypothesis] = []
        var consistentFits: [[Int]: [SIMD3<Double>]] = [:]
        var iterations = 0
        var fullSetError: MultilaterationError?
        let deepest = max(0, min(options.maxRejectedRanges, observations.count - requiredGateways))
        for rejected in 0...deepest {
            for left in Self.combinations(of: rejected, from: observations.count) {
                do throws(MultilaterationError) {
                    let (held, consistent) = try test(observations, leavingOut: left, siteCentroid: geometry.centroid, iterations: &iterations)
                    hypotheses += held
                    if !consistent.isEmpty { consistentFits[left] = consistent }
                } catch {
                    if left.isEmpty { fullSetError = error }
                }
            }
        }
        guard let chosen = hypotheses.min(by: { $0.score < $1.score }) else {
            throw fullSetError.map { error in
                if case .noConvergence = error { return error }
                return .inconsistentRanges(gateways: observations.count)
            } ?? .inconsistentRanges(gateways: observations.count)
        }
        // A reading that needs one more outlier is less likely, not ruled out: rivals may score
        // worse by the ambiguity margin plus one rejection's penalty.
        let margin = options.ambiguityChiSquare + ChiSquareThreshold.quantile(degrees: 1, z: options.consistencyQuantile)
        // And a reading that fits the ranges it keeps about as well is a rival however many it
        // leaves out: outliers that happen to point at the tag's mirror image read as a clean fit
        // there, and only the count of outliers speaks against the true position.
        let rivals = hypotheses.filter {
            $0.left != chosen.left && ($0.score - chosen.score < margin
                                       || $0.solution.chiSquare - chosen.solution.chiSquare < options.ambiguityChiSquare)
        }
        // Where one range has more leverage than the others can check (an outlier there moves
        // the fix without raising the residuals), leaving it out moves the fix: that distance is
        // as far off as the fix may be without any test noticing.
        let separations = observations.indices.filter { !chosen.left.contains($0) }.compactMap { j in
            // Of a line's two mirror readings, the one on the chosen fix's side.
            consistentFits[(chosen.left + [j]).sorted()]?.min { chosen.fit.distance($0, chosen.solution.q) < chosen.fit.distance($1, chosen.solution.q) }
        }
        return try fix(chosen, rivals: rivals.map(\.solution.q) + separations, iterations: iterations)
    }

    /// One way of reading the ranges: all of them, or all but the ones `left` out as outliers.
    struct Hypothesis {
        var left: [Int]
        var fit: RangeSubsetFit
        var solution: RangeSubsetFit.Solution
        var geometry: GatewayGeometry
        /// The chi-square plus a penalty per range left out: a range is rejected only when that
        /// buys more fit than noise alone would (the one-degree test at the same quantile).
        var score: Double
        /// Its gateways lie on a line (plane): the mirror reading was tested as a hypothesis of
        /// its own, against the ranges left out.
        var mirrorTested = false
    }

    /// Fits the ranges without those at `left`: the hypotheses that hold (the fit is consistent
    /// and every range left out is clearly off it), and the consistent solutions.
    ///
    /// Gateways on a line (a plane, solving z) cannot tell the tag from its mirror image across
    /// it, but the ranges left out can: both readings are fitted, from the site's side and from
    /// the other, and each must find the left-out ranges too long. With five gateways and two
    /// outliers, the three good ones are often on one wall.
    func test(_ observations: [RangeObservation], leavingOut left: [Int], siteCentroid: SIMD3<Double>,
              iterations: inout Int) throws(MultilaterationError) -> (hypotheses: [Hypothesis], consistent: [SIMD3<Double>]) {
        let kept = observations.indices.filter { !left.contains($0) }.map { observations[$0] }
        var fit = RangeSubsetFit(observations: kept, tagHeight: tagHeight, options: options)
        let geometry = GatewayGeometry(points: fit.anchors, dimensions: unknowns)
        defer { iterations += fit.iterations }
        var candidates: [RangeSubsetFit.Solution]
        var onALine = false
        if !left.isEmpty, let degeneracy = geometry.degeneracy(minimumSpread: options.minimumSpread, minimumRatio: options.minimumSpreadRatio) {
            guard degeneracy != .coincidentGateways else { return ([], []) }
            onALine = true
            var start = siteCentroid
            for k in 0..<unknowns where siteCentroid[k] == geometry.centroid[k] { start[k] += 0.5 }
            let near = try fit.fit(from: start)
            candidates = [near]
            if let far = try? fit.fit(from: geometry.mirrored(near.q)), fit.distance(far.q, near.q) > 1e-3 { candidates.append(far) }
        } else {
            let start = fit.linearStart(weights: kept.map { $0.nlos ? options.nlosWeight : 1 }, centroid: geometry.centroid)
            candidates = [try fit.fit(from: start)]
        }
        // The device's NLoS flag is evidence of its own: leaving out a flagged range costs nothing.
        let penalty = ChiSquareThreshold.quantile(degrees: 1, z: options.consistencyQuantile)
        let unflagged = left.filter { !observations[$0].nlos }.count
        var held: [Hypothesis] = []
        var consistent: [SIMD3<Double>] = []
        for solution in candidates {
            guard solution.chiSquare <= ChiSquareThreshold.quantile(degrees: solution.degrees, z: options.consistencyQuantile) else { continue }
            consistent.append(solution.q)
            let tag = fit.point(solution.q)
            // Only too long: a blocked direct path lengthens a range, nothing shortens one. A
            // NLoS-flagged range counts at full weight here: left out, it no longer pulls at all.
            let leftOutTooLong = left.allSatisfy { index in
                let o = observations[index]
                return tag.distance(to: o.gateway) - o.distanceM <= -options.outlierSigmas * options.rangeSigma
            }
            guard leftOutTooLong else { continue }
            held.append(Hypothesis(left: left, fit: fit, solution: solution, geometry: geometry,
                                   score: solution.chiSquare + penalty * Double(unflagged), mirrorTested: onALine))
        }
        return (held, consistent)
    }

    /// The fix of the chosen hypothesis, with its accuracy widened to reach `rivals` (the other
    /// readings of the ranges that the data cannot rule out).
    func fix(_ chosen: Hypothesis, rivals: [SIMD3<Double>], iterations: Int) throws(MultilaterationError) -> MultilaterationFix {
        var fit = chosen.fit
        var solution = chosen.solution
        let degrees = max(solution.degrees, 1)
        // The residuals' own variance factor when they exceed the model (never below it).
        let factor = max(1, (solution.chiSquare / Double(degrees)).squareRoot())

        // A mirror image across the gateways' best line or plane that fits about as well means the
        // ranges cannot tell the two apart: report the better one, with an accuracy covering both.
        var ambiguity = 0.0
        let mirror = chosen.geometry.mirrored(solution.q)
        if !chosen.mirrorTested, fit.distance(mirror, solution.q) > 1e-3, let other = try? fit.refine(from: mirror, weights: solution.weights) {
            let alternative = fit.solution(at: other, weights: solution.weights)
            if fit.distance(other, solution.q) > 1e-3,
               alternative.chiSquare - solution.chiSquare < options.ambiguityChiSquare * factor * factor {
                ambiguity = fit.distance(other, solution.q)
                if alternative.chiSquare < solution.chiSquare { solution = alternative }
            }
        }
        for other in rivals {
            ambiguity = max(ambiguity, fit.distance(other, solution.q))
        }

        guard let covariance = fit.covariance(of: solution) else {
            throw .degenerateGeometry(.undeterminedAtSolution)
        }
        let accuracy = max(factor * covariance.trace.squareRoot(), ambiguity)
        let residuals = fit.residuals(solution.q)
        let rms = (residuals.reduce(0) { $0 + $1 * $1 } / Double(max(residuals.count, 1))).squareRoot()
        let tag = fit.point(solution.q)
        guard tag.isFinite, accuracy.isFinite, rms.isFinite else { throw .noConvergence(iterations: iterations) }
        return MultilaterationFix(x: tag.x, y: tag.y, z: tag.z, accuracyM: accuracy, residualRMS: rms,
                                  usedGateways: fit.observations.map(\.gatewayID), iterations: iterations + fit.iterations - chosen.fit.iterations,
                                  solvedZ: tagHeight == nil)
    }

    /// Every choice of `k` indices out of 0..<n, in lexicographic order.
    static func combinations(of k: Int, from n: Int) -> [[Int]] {
        guard k > 0 else { return [[]] }
        guard k <= n else { return [] }
        var result: [[Int]] = []
        var current = Array(0..<k)
        while true {
            result.append(current)
            var i = k - 1
            while i >= 0, current[i] == n - k + i { i -= 1 }
            guard i >= 0 else { return result }
            current[i] += 1
            for j in (i + 1)..<k { current[j] = current[j - 1] + 1 }
        }
    }
}
