import Vocabulary

/// The weighted least-squares fit of one set of ranges: the unknowns are x, y (and z), the
/// residuals fitted minus measured distance. The solver fits the full set and the subsets that
/// leave suspected outliers out, and compares them through ``chiSquare``.
///
/// The noise model: a line-of-sight range has the standard deviation `Options.rangeSigma`; a
/// NLoS-flagged range counts with the weight `Options.nlosWeight` (a larger sigma), except when it
/// is shorter than the fitted distance, since NLoS only makes ranges long: such a range is a
/// violated upper bound and regains full weight.
struct RangeSubsetFit {
    let observations: [RangeObservation]
    let tagHeight: Double?
    let options: MultilaterationSolver.Options
    let p: Int
    /// Gateway coordinates over the solved dimensions (z is zero when it is not solved).
    let anchors: [SIMD3<Double>]
    var iterations = 0

    init(observations: [RangeObservation], tagHeight: Double?, options: MultilaterationSolver.Options) {
        self.observations = observations
        self.tagHeight = tagHeight
        self.options = options
        p = tagHeight == nil ? 3 : 2
        anchors = observations.map { o in SIMD3(o.gateway.x, o.gateway.y, tagHeight == nil ? o.gateway.z : 0) }
    }

    /// The result of one fit: the solution, the base weights at it, and its misfit.
    /// Unknowns are x, y (and z) in a vector whose unused component stays zero, so that the
    /// fit allocates nothing per step.
    struct Solution {
        var q: SIMD3<Double>
        var weights: [Double]
        /// Σ weight × residual² / rangeSigma²: chi-square distributed with `degrees` degrees of
        /// freedom when the ranges carry only noise of the modelled size.
        var chiSquare: Double
        var degrees: Int
    }

    func point(_ q: SIMD3<Double>) -> SitePoint {
        SitePoint(x: q[0], y: q[1], z: tagHeight ?? q[2])
    }

    func residuals(_ q: SIMD3<Double>) -> [Double] {
        let tag = point(q)
        return observations.map { tag.distance(to: $0.gateway) - $0.distanceM }
    }

    func cost(_ q: SIMD3<Double>, weights: [Double]) -> Double {
        let tag = point(q)
        var total = 0.0
        // Index loops rather than `zip`: the solver runs these a few hundred times a fix, and
        // `zip` costs a generic iterator per call in the debug build the tests run.
        for i in observations.indices {
            let r = tag.distance(to: observations[i].gateway) - observations[i].distanceM
            total += weights[i] * r * r
        }
        return total
    }

    /// The normal matrix JᵀWJ and the gradient JᵀWr at `q`, in one pass over the ranges (the
    /// descent needs both at every step). A row of J is the unit vector from its gateway to the
    /// tag over the solved dimensions; where the tag sits on a gateway the direction is undefined
    /// and the row is zero.
    func normalEquations(_ q: SIMD3<Double>, weights: [Double]) -> (h: SmallMatrix, g: SIMD3<Double>) {
        let tag = point(q)
        var h = SmallMatrix(size: p)
        var g = SIMD3<Double>()
        for i in observations.indices {
            let o = observations[i], w = weights[i]
            let d = tag.distance(to: o.gateway)
            guard d > 1e-9 else { continue }
            let row = SIMD3((tag.x - o.gateway.x) / d, (tag.y - o.gateway.y) / d, (tag.z - o.gateway.z) / d)
            let residual = d - o.distanceM
            for a in 0..<p {
                for b in 0..<p { h[a, b] += w * row[a] * row[b] }
                g[a] += w * row[a] * residual
            }
        }
        return (h, g)
    }

    /// The noise model's weights at `q` (see the type's documentation).
    func weights(at q: SIMD3<Double>) -> [Double] {
        zip(observations, residuals(q)).map { o, r in
            o.nlos && !(options.nlosUpperBound && r > 0) ? options.nlosWeight : 1
        }
    }

    // MARK: start

    /// The linearised closed form: differences of the squared range equations against their mean
    /// cancel the quadratic term, leaving a linear least-squares problem in x, y (and z). Exact for
    /// noise-free ranges; with noise a good start. Falls back to the gateways' centroid.
    func linearStart(weights: [Double], centroid: SIMD3<Double>) -> SIMD3<Double> {
        let squaredRanges: [Double] = observations.map { o in
            guard let tagHeight else { return o.distanceM * o.distanceM }
            let dz = tagHeight - o.gateway.z
            return max(0, o.distanceM * o.distanceM - dz * dz)
        }
        let norms = anchors.map { a in
            var norm = 0.0
            for k in 0..<p { norm += a[k] * a[k] }
            return norm
        }
        let totalWeight = weights.reduce(0, +)
        guard totalWeight > 0 else { return centroid }
        var meanAnchor = SIMD3<Double>()
        var meanNorm = 0.0, meanRange = 0.0
        for i in anchors.indices {
            for k in 0..<p { meanAnchor[k] += weights[i] * anchors[i][k] / totalWeight }
            meanNorm += weights[i] * norms[i] / totalWeight
            meanRange += weights[i] * squaredRanges[i] / totalWeight
        }
        var ata = SmallMatrix(size: p)
        var atb = SIMD3<Double>()
        for i in anchors.indices {
            var row = SIMD3<Double>()
            for k in 0..<p { row[k] = 2 * (anchors[i][k] - meanAnchor[k]) }
            let rhs = (norms[i] - meanNorm) - (squaredRanges[i] - meanRange)
            for r in 0..<p {
                atb[r] += weights[i] * row[r] * rhs
                for c in 0..<p { ata[r, c] += weights[i] * row[r] * row[c] }
            }
        }
        guard let inverse = ata.inverse() else { return centroid }
        let start = inverse.multiplied(by: atb)
        return (0..<p).allSatisfy { start[$0].isFinite } ? start : centroid
    }

    // MARK: iteration

    /// Levenberg–Marquardt with fixed weights from `start` to the nearest minimum.
    mutating func refine(from start: SIMD3<Double>, weights: [Double]) throws(MultilaterationError) -> SIMD3<Double> {
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
            let (h, g) = normalEquations(q, weights: weights)
            var damped = h
            for k in 0..<p { damped[k, k] += lambda * max(h[k, k], 1e-9) }
            guard let inverse = damped.inverse() else {
                lambda *= 10
                if lambda > 1e12 { return q }
                continue
            }
            let step = -inverse.multiplied(by: g)
            var candidate = q
            for k in 0..<p { candidate[k] += step[k] }
            let next = cost(candidate, weights: weights)
            if next.isFinite, next <= current {
                let decrease = current - next
                q = candidate
                current = next
                lambda = max(lambda / 10, 1e-12)
                // Converged when the step is below the tolerance (relative to how far from the
                // origin the site is, since coordinates carry rounding error in proportion), or the
                // cost no longer changes in its leading digits.
                if Self.length(step, p) < options.tolerance * max(1, Self.size(q, p))
                    || decrease <= 1e-14 * current { return q }
            } else {
                // No step downhill at any damping: q is a minimum to rounding precision.
                lambda *= 10
                if lambda > 1e12 { return q }
            }
        }
    }

    /// Refits until the NLoS weights (which depend on the sign of each NLoS residual) stop
    /// changing the solution.
    mutating func fit(from start: SIMD3<Double>) throws(MultilaterationError) -> Solution {
        var q = start
        var w = weights(at: q)
        // Rounds usually settle in one or two; a weight that flips at a boundary (a NLoS residual
        // near zero) can make them alternate between nearby minima, and the last one is kept.
        for _ in 0..<10 {
            let next = try refine(from: q, weights: w)
            let moved = Self.distance(next, q, p)
            q = next
            let nextWeights = weights(at: q)
            if nextWeights == w || moved < options.tolerance * 10 * max(1, Self.size(q, p)) {
                w = nextWeights
                break
            }
            w = nextWeights
        }
        return solution(at: q, weights: w)
    }

    func solution(at q: SIMD3<Double>, weights w: [Double]) -> Solution {
        let sigma = options.rangeSigma
        return Solution(q: q, weights: w, chiSquare: cost(q, weights: w) / (sigma * sigma), degrees: observations.count - p)
    }

    /// The covariance of the solution under the noise model (rangeSigma² × the inverse normal
    /// matrix), or nil where the ranges do not constrain every direction.
    func covariance(of solution: Solution) -> SmallMatrix? {
        guard var inverse = normalEquations(solution.q, weights: solution.weights).h.inverse(), inverse.trace >= 0 else { return nil }
        let variance = options.rangeSigma * options.rangeSigma
        inverse.scale(by: variance)
        return inverse
    }

    /// How far apart two solutions are.
    func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { Self.distance(a, b, p) }

    /// Over the first `dimensions` components, summed in order (as the arrays were).
    static func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ dimensions: Int) -> Double {
        var sum = 0.0
        for k in 0..<dimensions { sum += (a[k] - b[k]) * (a[k] - b[k]) }
        return sum.squareRoot()
    }

    static func length(_ v: SIMD3<Double>, _ dimensions: Int) -> Double {
        var sum = 0.0
        for k in 0..<dimensions { sum += v[k] * v[k] }
        return sum.squareRoot()
    }

    /// The largest coordinate's magnitude: rounding error grows with it.
    static func size(_ v: SIMD3<Double>, _ dimensions: Int) -> Double {
        var largest = 0.0
        for k in 0..<dimensions { largest = max(largest, abs(v[k])) }
        return largest
    }
}
