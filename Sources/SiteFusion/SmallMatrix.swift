/// A dense square matrix of at most a few rows: the normal equations and covariances of a
/// 2- or 3-unknown fit, and the scatter of gateway positions.
///
/// Hand-written because the core imports nothing but the standard library, and because every
/// operation that can fail (a singular matrix) must say so instead of producing NaN.
struct SmallMatrix: Hashable, Sendable {
    let n: Int
    /// Row-major.
    var values: [Double]

    init(size n: Int) {
        self.n = n
        values = Array(repeating: 0, count: n * n)
    }

    subscript(row: Int, column: Int) -> Double {
        get { values[row * n + column] }
        set { values[row * n + column] = newValue }
    }

    var trace: Double { (0..<n).reduce(0) { $0 + self[$1, $1] } }

    /// The inverse by Gauss–Jordan elimination with partial pivoting, or nil when a pivot is not
    /// clearly above rounding noise relative to the matrix's largest entry (singular or so badly
    /// conditioned that the inverse would be meaningless).
    func inverse(relativeTolerance: Double = 1e-12) -> SmallMatrix? {
        let scale = values.reduce(0) { max($0, abs($1)) }
        guard scale > 0, scale.isFinite else { return nil }
        var a = self
        var inv = SmallMatrix.identity(n)
        for col in 0..<n {
            var pivotRow = col
            for r in col..<n where abs(a[r, col]) > abs(a[pivotRow, col]) { pivotRow = r }
            let pivot = a[pivotRow, col]
            guard abs(pivot) > relativeTolerance * scale else { return nil }
            if pivotRow != col {
                for c in 0..<n {
                    a.values.swapAt(pivotRow * n + c, col * n + c)
                    inv.values.swapAt(pivotRow * n + c, col * n + c)
                }
            }
            for c in 0..<n {
                a[col, c] /= pivot
                inv[col, c] /= pivot
            }
            for r in 0..<n where r != col {
                let factor = a[r, col]
                guard factor != 0 else { continue }
                for c in 0..<n {
                    a[r, c] -= factor * a[col, c]
                    inv[r, c] -= factor * inv[col, c]
                }
            }
        }
        return inv.values.allSatisfy(\.isFinite) ? inv : nil
    }

    func multiplied(by vector: [Double]) -> [Double] {
        var product = Array(repeating: 0.0, count: n)
        for r in 0..<n {
            for c in 0..<n { product[r] += self[r, c] * vector[c] }
        }
        return product
    }

    static func identity(_ n: Int) -> SmallMatrix {
        var m = SmallMatrix(size: n)
        for i in 0..<n { m[i, i] = 1 }
        return m
    }

    /// Eigenvalues (descending) and unit eigenvectors of a symmetric matrix by cyclic Jacobi
    /// rotations: only square roots, no trigonometry, and exact enough for 2×2 and 3×3.
    func symmetricEigen() -> (values: [Double], vectors: [[Double]]) {
        var a = self
        var v = SmallMatrix.identity(n)
        for _ in 0..<50 {
            var offDiagonal = 0.0
            for p in 0..<n { for q in (p + 1)..<n { offDiagonal += a[p, q] * a[p, q] } }
            if offDiagonal < 1e-30 { break }
            for p in 0..<n {
                for q in (p + 1)..<n where a[p, q] != 0 {
                    let theta = (a[q, q] - a[p, p]) / (2 * a[p, q])
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot()
                    let s = t * c
                    for k in 0..<n {
                        let akp = a[k, p], akq = a[k, q]
                        a[k, p] = c * akp - s * akq
                        a[k, q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p, k], aqk = a[q, k]
                        a[p, k] = c * apk - s * aqk
                        a[q, k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k, p], vkq = v[k, q]
                        v[k, p] = c * vkp - s * vkq
                        v[k, q] = s * vkp + c * vkq
                    }
                }
            }
        }
        let order = (0..<n).sorted { a[$0, $0] > a[$1, $1] }
        return (order.map { a[$0, $0] }, order.map { col in (0..<n).map { v[$0, col] } })
    }
}
