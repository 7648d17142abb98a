/// A dense square matrix of at most three rows: the normal equations and covariances of a
/// 2- or 3-unknown fit, and the scatter of gateway positions.
///
/// Hand-written because the core imports nothing but the standard library, and because every
/// operation that can fail (a singular matrix) must say so instead of producing NaN. Its entries
/// live in the value itself, not on the heap: the solver makes and inverts a few thousand of
/// these a fix, and an array each would cost more than the arithmetic.
struct SmallMatrix: Hashable, Sendable {
    let n: Int
    /// Row-major, `n` × `n` of them; the rest stay zero. Stored properties, not a tuple read
    /// through a pointer, which the compiler copies whole at every access.
    private var e0 = 0.0, e1 = 0.0, e2 = 0.0, e3 = 0.0, e4 = 0.0, e5 = 0.0, e6 = 0.0, e7 = 0.0, e8 = 0.0

    init(size n: Int) {
        precondition((1...3).contains(n), "SmallMatrix holds 1×1 to 3×3")
        self.n = n
    }

    subscript(row: Int, column: Int) -> Double {
        get { self[entry: row * n + column] }
        set { self[entry: row * n + column] = newValue }
    }

    /// Entry `k` in row-major order.
    private subscript(entry k: Int) -> Double {
        get {
            switch k {
            case 0: e0
            case 1: e1
            case 2: e2
            case 3: e3
            case 4: e4
            case 5: e5
            case 6: e6
            case 7: e7
            case 8: e8
            default: preconditionFailure("entry \(k) of a \(n)×\(n) matrix")
            }
        }
        set {
            switch k {
            case 0: e0 = newValue
            case 1: e1 = newValue
            case 2: e2 = newValue
            case 3: e3 = newValue
            case 4: e4 = newValue
            case 5: e5 = newValue
            case 6: e6 = newValue
            case 7: e7 = newValue
            case 8: e8 = newValue
            default: preconditionFailure("entry \(k) of a \(n)×\(n) matrix")
            }
        }
    }

    static func == (a: SmallMatrix, b: SmallMatrix) -> Bool {
        a.n == b.n && (0..<(a.n * a.n)).allSatisfy { a[entry: $0] == b[entry: $0] }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(n)
        for k in 0..<(n * n) { hasher.combine(self[entry: k]) }
    }

    var trace: Double {
        var sum = 0.0
        for k in 0..<n { sum += self[k, k] }
        return sum
    }

    /// Every entry multiplied by `factor`.
    mutating func scale(by factor: Double) {
        for k in 0..<(n * n) { self[entry: k] *= factor }
    }

    /// The inverse by Gauss–Jordan elimination with partial pivoting, or nil when a pivot is not
    /// clearly above rounding noise relative to the matrix's largest entry (singular or so badly
    /// conditioned that the inverse would be meaningless).
    func inverse(relativeTolerance: Double = 1e-12) -> SmallMatrix? {
        var scale = 0.0
        for k in 0..<(n * n) { scale = max(scale, abs(self[entry: k])) }
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
                    (a[pivotRow, c], a[col, c]) = (a[col, c], a[pivotRow, c])
                    (inv[pivotRow, c], inv[col, c]) = (inv[col, c], inv[pivotRow, c])
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
        for k in 0..<(n * n) where !inv[entry: k].isFinite { return nil }
        return inv
    }

    /// The product with a vector of the first `n` components (the rest are ignored and come out zero).
    func multiplied(by vector: SIMD3<Double>) -> SIMD3<Double> {
        var product = SIMD3<Double>()
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
    func symmetricEigen() -> (values: [Double], vectors: [SIMD3<Double>]) {
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
        return (order.map { a[$0, $0] }, order.map { col in
            var vector = SIMD3<Double>()
            for k in 0..<n { vector[k] = v[k, col] }
            return vector
        })
    }
}
