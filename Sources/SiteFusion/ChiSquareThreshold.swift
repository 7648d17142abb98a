/// The consistency test of a fit: the sum of squared standardised residuals of ranges that carry
/// only noise follows a chi-square distribution with as many degrees of freedom as there are
/// ranges beyond the unknowns. A sum above the distribution's upper quantile means that a range
/// carries more than noise.
///
/// The quantile comes from the Wilson–Hilferty approximation (the cube root of a chi-square
/// variable is nearly normal), which is within a few percent from one degree of freedom up and
/// needs no special functions: the core imports nothing but the standard library.
enum ChiSquareThreshold {
    /// The upper quantile of a chi-square variable with `degrees` degrees of freedom at the normal
    /// quantile `z` (3.09: exceeded by noise alone once in 1,000).
    static func quantile(degrees: Int, z: Double) -> Double {
        guard degrees > 0 else { return 0 }
        let k = Double(degrees)
        let spread = (2 / (9 * k)).squareRoot()
        let root = max(0, 1 - 2 / (9 * k) + z * spread)
        return k * root * root * root
    }
}
