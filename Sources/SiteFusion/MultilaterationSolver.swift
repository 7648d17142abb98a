/// Solves one tag's position from its ranges to several gateways by robust least squares.
///
/// With a `tagHeight` the tag is assumed at that z and only x, y are solved (2-D, at least 3
/// gateways, not collinear); without one x, y, z are solved (3-D, at least 4 gateways, not
/// coplanar). The fit starts from the linearised closed-form solution, refines it with
/// Levenberg–Marquardt, and reweights iteratively: Huber weights first (robust and convex, so the
/// start cannot mislead it), then Tukey's biweight, which gives a clear outlier no weight at all,
/// when there are enough gateways that dropping one still leaves a determined, checkable fit.
/// NLoS ranges get a small base weight, and since NLoS biases ranges long, a NLoS range shorter than
/// the fitted distance is an upper bound that is violated and regains full weight.
///
/// The reported accuracy combines the range sigma (the larger of `Options.rangeSigma` and the
/// residuals' own estimate) with the geometry through the covariance of the linearised problem,
/// and a mirror solution that fits about as well widens it to cover both.
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
        /// Metres: the range noise assumed at least (a floor under the residuals' estimate), and the
        /// scale of the robust weights.
        public var rangeSigma = 0.1
        /// Base weight of a NLoS range (0.1 means it counts like a range with √10 × the sigma).
        public var nlosWeight = 0.1
        /// Treat a NLoS range as an upper bound: when the fitted distance exceeds it, full weight.
        public var nlosUpperBound = true
        /// Huber threshold in sigmas.
        public var huberK = 1.5
        /// Tukey biweight threshold in sigmas: a standardised residual beyond it gets no weight.
        public var tukeyC = 4.685
        /// Levenberg–Marquardt steps allowed for one descent (there is one per reweighting round).
        public var maxIterations = 100
        /// Metres: a step shorter than this ends the iteration.
        public var tolerance = 1e-7
        /// Metres: gateways spread less than this along a direction count as not spread along it.
        public var minimumSpread = 0.01
        /// The least spread as a fraction of the largest below which the layout counts as a line
        /// (2-D) or plane (3-D).
        public var minimumSpreadRatio = 0.01
        /// A mirror solution whose cost is within this many sigma² of the best fit is considered as
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
        var problem = Problem(observations: observations, tagHeight: tagHeight, options: options)
        let geometry = GatewayGeometry(points: problem.anchors)
        if let degeneracy = geometry.degeneracy(minimumSpread: options.minimumSpread,
                                                minimumRatio: options.minimumSpreadRatio) {
            throw .degenerateGeometry(degeneracy)
        }
        return try problem.solve(geometry: geometry)
    }
}

/// The working state of one solve: the unknowns are x, y (and z), the residuals measured minus
/// fitted distance. Kept apart from the public type so that the solver stays a plain value.
private struct Problem {
    let observations: [RangeObservation]
    let tagHeight: Double?
    let options: MultilaterationSolver.Options
    let p: Int
    /// Gateway coordinates over the solved dimensions.
    let anchors: [[Double]]
    var iterations = 0

    init(observations: [RangeObservation], tagHeight: Double?, options: MultilaterationSolver.Options) {
        self.observations = observations
        self.tagHeight = tagHeight
        self.options = options
        p = tagHeight == nil ? 3 : 2
        anchors = observations.map { o in
            tagHeight == nil ? [o.gateway.x, o.gateway.y, o.gateway.z] : [o.gateway.x, o.gateway.y]
        }
    }

    func point(_ q: [Double]) -> SitePoint {
        SitePoint(x: q[0], y: q[1], z: tagHeight ?? q[2])
    }

    func residuals(_ q: [Double]) -> [Double] {
        let tag = point(q)
        return observations.map { tag.distance(to: $0.gateway) - $0.distanceM }
    }

    func cost(_ q: [Double], weights: [Double]) -> Double {
        zip(residuals(q), weights).reduce(0) { $0 + $1.1 * $1.0 * $1.0 }
    }

    /// Jacobian rows: the unit vector from each gateway to the tag over the solved dimensions; a
    /// zero row where the tag sits on a gateway (the direction is undefined there).
    func jacobian(_ q: [Double]) -> [[Double]] {
        let tag = point(q)
        return observations.map { o in
            let d = tag.distance(to: o.gateway)
            guard d > 1e-9 else { return Array(repeating: 0, count: p) }
            let full = [(tag.x - o.gateway.x) / d, (tag.y - o.gateway.y) / d, (tag.z - o.gateway.z) / d]
            return Array(full.prefix(p))
        }
    }

    func normalMatrix(_ q: [Double], weights: [Double]) -> SmallMatrix {
        var h = SmallMatrix(size: p)
        for (row, w) in zip(jacobian(q), weights) {
            for r in 0..<p { for c in 0..<p { h[r, c] += w * row[r] * row[c] } }
        }
        return h
    }

    // MARK: start

    /// The linearised closed form: differences of the squared range equations against their mean
    /// cancel the quadratic term, leaving a linear least-squares problem in x, y (and z). Exact for
    /// noise-free ranges; with noise a good start. Falls back to the gateways' centroid.
    func linearStart(weights: [Double], centroid: [Double]) -> [Double] {
        let squaredRanges: [Double] = observations.map { o in
            guard let tagHeight else { return o.distanceM * o.distanceM }
            let dz = tagHeight - o.gateway.z
            return max(0, o.distanceM * o.distanceM - dz * dz)
        }
        let norms = anchors.map { a in a.reduce(0) { $0 + $1 * $1 } }
        let totalWeight = weights.reduce(0, +)
        guard totalWeight > 0 else { return centroid }
        var meanAnchor = Array(repeating: 0.0, count: p)
        var meanNorm = 0.0, meanRange = 0.0
        for i in anchors.indices {
            for k in 0..<p { meanAnchor[k] += weights[i] * anchors[i][k] / totalWeight }
            meanNorm += weights[i] * norms[i] / totalWeight
            meanRange += weights[i] * squaredRanges[i] / totalWeight
        }
        var ata = SmallMatrix(size: p)
        var atb = Array(repeating: 0.0, count: p)
        for i in anchors.indices {
            let row = (0..<p).map { 2 * (anchors[i][$0] - meanAnchor[$0]) }
            let rhs = (norms[i] - meanNorm) - (squaredRanges[i] - meanRange)
            for r in 0..<p {
                atb[r] += weights[i] * row[r] * rhs
                for c in 0..<p { ata[r, c] += weights[i] * row[r] * row[c] }
            }
        }
        guard let inverse = ata.inverse() else { return centroid }
        let start = inverse.multiplied(by: atb)
        return start.allSatisfy(\.isFinite) ? start : centroid
    }

    // MARK: iteration

    /// Levenberg–Marquardt with fixed weights from `start` to the nearest minimum.
    mutating func refine(from start: [Double], weights: [Double]) throws(MultilaterationError) -> [Double] {
        var q = start
        var current = cost(q, weights: weights)
        var lambda = 1e-3
        var steps = 0
        while true {
            iterations += 1
            steps += 1
            guard steps <= options.maxIterations, current.isFinite else {
                throw .noConvergence(iterations: iterations)
            }
            let h = normalMatrix(q, weights: weights)
            var g = Array(repeating: 0.0, count: p)
            for (row, (w, r)) in zip(jacobian(q), zip(weights, residuals(q))) {
                for k in 0..<p { g[k] += w * row[k] * r }
            }
            var damped = h
            for k in 0..<p { damped[k, k] += lambda * max(h[k, k], 1e-9) }
            guard let inverse = damped.inverse() else {
                lambda *= 10
                if lambda > 1e12 { return q }
                continue
            }
            let step = inverse.multiplied(by: g).map { -$0 }
            let candidate = zip(q, step).map { $0 + $1 }
            let next = cost(candidate, weights: weights)
            if next.isFinite, next <= current {
                let decrease = current - next
                q = candidate
                current = next
                lambda = max(lambda / 10, 1e-12)
                // Converged when the step is below the tolerance (relative to how far from the
                // origin the site is, since coordinates carry rounding error in proportion), or the
                // cost no longer changes in its leading digits.
                let size = q.reduce(0) { max($0, abs($1)) }
                if step.reduce(0, { $0 + $1 * $1 }).squareRoot() < options.tolerance * max(1, size)
                    || decrease <= 1e-14 * current { return q }
            } else {
                // No step downhill at any damping: q is a minimum to rounding precision.
                lambda *= 10
                if lambda > 1e12 { return q }
            }
        }
    }

    enum Weighting { case huber, tukey }

    /// Base weights (NLoS down-weighted unless it violates its upper bound) and robust weights from
    /// the standardised residuals at `q`.
    func weights(at q: [Double], _ weighting: Weighting) -> (base: [Double], robust: [Double]) {
        let r = residuals(q)
        var base: [Double] = [], robust: [Double] = []
        for (o, ri) in zip(observations, r) {
            let b = o.nlos && !(options.nlosUpperBound && ri > 0) ? options.nlosWeight : 1
            let u = abs(ri) * b.squareRoot() / options.rangeSigma
            base.append(b)
            switch weighting {
            case .huber: robust.append(u <= options.huberK ? 1 : options.huberK / u)
            case .tukey:
                let t = u / options.tukeyC
                robust.append(t < 1 ? (1 - t * t) * (1 - t * t) : 0)
            }
        }
        return (base, robust)
    }

    /// Reweighting rounds: refit with the weights of the previous solution until it stops moving.
    mutating func reweighted(from start: [Double], _ weighting: Weighting) throws(MultilaterationError) -> (q: [Double], base: [Double], robust: [Double]) {
        var q = start
        var w = weights(at: q, weighting)
        // Rounds usually settle in a handful; a weight that flips at a boundary (a NLoS residual
        // near zero) can make them alternate between nearby minima, and the last one is kept.
        for _ in 0..<20 {
            let next = try refine(from: q, weights: zip(w.base, w.robust).map(*))
            let moved = distance(next, q)
            q = next
            w = weights(at: q, weighting)
            if moved < options.tolerance * 10 * max(1, q.reduce(0) { max($0, abs($1)) }) { break }
        }
        return (q, w.base, w.robust)
    }

    // MARK: solve

    mutating func solve(geometry: GatewayGeometry) throws(MultilaterationError) -> MultilaterationFix {
        let required = p + 1
        let startWeights = observations.map { $0.nlos ? options.nlosWeight : 1 }
        let start = linearStart(weights: startWeights, centroid: geometry.centroid)
        var fit = try reweighted(from: start, .huber)
        if observations.count >= required + 1 {
            let tukey = try reweighted(from: fit.q, .tukey)
            // Never let rejection leave fewer gateways than the geometry needs.
            if tukey.robust.filter({ $0 > 0 }).count >= required { fit = tukey }
        }
        var q = fit.q
        let weights = zip(fit.base, fit.robust).map(*)
        let used = fit.robust.indices.filter { fit.robust[$0] > 0 }
        let sigma = scale(at: q, base: fit.base, used: used)

        // A mirror image across the gateways' best line or plane that fits about as well means the
        // ranges cannot tell the two apart: report the better one, with an accuracy covering both.
        var ambiguity = 0.0
        let mirror = geometry.mirrored(q)
        if distance(mirror, q) > 1e-3, let other = try? refine(from: mirror, weights: weights) {
            let best = cost(q, weights: weights), alternative = cost(other, weights: weights)
            if distance(other, q) > 1e-3, alternative - best < options.ambiguityChiSquare * sigma * sigma {
                ambiguity = distance(other, q)
                if alternative < best { q = other }
            }
        }

        guard let covariance = normalMatrix(q, weights: weights).inverse(), covariance.trace >= 0 else {
            throw .degenerateGeometry(.undeterminedAtSolution)
        }
        let accuracy = max(sigma * covariance.trace.squareRoot(), ambiguity)
        let finalResiduals = residuals(q)
        let rms = (used.reduce(0) { $0 + finalResiduals[$1] * finalResiduals[$1] } / Double(max(used.count, 1))).squareRoot()
        let tag = point(q)
        guard tag.isFinite, accuracy.isFinite, rms.isFinite else { throw .noConvergence(iterations: iterations) }
        return MultilaterationFix(x: tag.x, y: tag.y, z: tag.z, accuracyM: accuracy, residualRMS: rms,
                                  usedGateways: used.map { observations[$0].gatewayID }, iterations: iterations,
                                  solvedZ: tagHeight == nil)
    }

    /// The range sigma: the residuals' own estimate (standardised by the base weights, over the
    /// gateways used, with one degree of freedom per unknown taken out), never below the prior.
    func scale(at q: [Double], base: [Double], used: [Int]) -> Double {
        let r = residuals(q)
        let degrees = used.count - p
        guard degrees > 0 else { return options.rangeSigma }
        let sum = used.reduce(0) { $0 + base[$1] * r[$1] * r[$1] }
        return max(options.rangeSigma, (sum / Double(degrees)).squareRoot())
    }

    func distance(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }
}
