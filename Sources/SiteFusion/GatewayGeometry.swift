/// How the gateways are spread over the dimensions being solved: the basis for refusing geometries
/// that cannot determine a position, and for finding the mirror image a nearly degenerate layout
/// cannot tell apart from the true position.
///
/// The spread along a direction is the standard deviation of the gateway positions along it
/// (square root of an eigenvalue of their scatter matrix). Gateways on a line (2-D) or in a plane
/// (3-D with free z) have no spread across it, and ranges cannot tell which side the tag is on.
struct GatewayGeometry: Sendable {
    /// Over the solved dimensions; the rest is zero.
    let centroid: SIMD3<Double>
    /// Standard deviations along the principal directions, largest first.
    let spreads: [Double]
    /// Unit normal of the best-fitting line (2-D) or plane (3-D): the direction of least spread.
    let normal: SIMD3<Double>
    let dimensions: Int

    /// `points` over the first `dimensions` components (2: x, y; 3: x, y, z).
    init(points: [SIMD3<Double>], dimensions n: Int) {
        let count = Double(points.count)
        var centroid = SIMD3<Double>()
        for p in points { for k in 0..<n { centroid[k] += p[k] / count } }
        var scatter = SmallMatrix(size: n)
        for p in points {
            for r in 0..<n { for c in 0..<n { scatter[r, c] += (p[r] - centroid[r]) * (p[c] - centroid[c]) / count } }
        }
        let eigen = scatter.symmetricEigen()
        self.centroid = centroid
        spreads = eigen.values.map { max(0, $0).squareRoot() }
        normal = eigen.vectors.last ?? SIMD3()
        dimensions = n
    }

    /// The reason these gateways cannot determine a position, or nil when they can.
    /// - Parameters:
    ///   - minimumSpread: metres; a spread below it counts as none (gateways within this of one
    ///     point, line or plane).
    ///   - minimumRatio: the least spread relative to the largest below which the layout counts as
    ///     a line or plane; layouts just above it are accepted, and the ambiguity check makes their
    ///     accuracy large.
    func degeneracy(minimumSpread: Double, minimumRatio: Double) -> MultilaterationError.Degeneracy? {
        guard let largest = spreads.first, let least = spreads.last, largest >= minimumSpread else {
            return .coincidentGateways
        }
        if least < minimumSpread || least < minimumRatio * largest {
            return spreads.count == 2 ? .collinearGateways : .coplanarGateways
        }
        return nil
    }

    /// `point` reflected across the best-fitting line or plane: where a position's mirror image
    /// lies, the second minimum of a nearly collinear or coplanar layout.
    func mirrored(_ point: SIMD3<Double>) -> SIMD3<Double> {
        var along = 0.0
        for k in 0..<dimensions { along += (point[k] - centroid[k]) * normal[k] }
        var image = point
        for k in 0..<dimensions { image[k] = point[k] - 2 * along * normal[k] }
        return image
    }
}
