/// The figures the bar is stated in, over many fixes against known true positions: the
/// error distribution, how often the error stays within 2 × `accuracy_m`, and the fixes that are
/// confidently wrong (far off while claiming to be close).
struct FixStatistics: CustomStringConvertible {
    var errors: [Double] = []
    var accuracies: [Double] = []
    /// Trials that gave no fix.
    var refusals = 0

    mutating func record(error: Double, accuracy: Double) {
        errors.append(error)
        accuracies.append(accuracy)
    }

    var fixes: Int { errors.count }
    var median: Double { Self.percentile(errors, 0.5) }
    var p95: Double { Self.percentile(errors, 0.95) }
    var maximum: Double { errors.max() ?? 0 }

    /// The fraction of fixes whose error is at most 2 × accuracy_m.
    var withinTwiceAccuracy: Double {
        Double(zip(errors, accuracies).filter { $0 <= 2 * $1 }.count) / Double(max(fixes, 1))
    }

    /// Fixes more than `error` off while claiming an accuracy below `claim`.
    func confident(errorAbove error: Double, claimBelow claim: Double) -> [(error: Double, accuracy: Double)] {
        zip(errors, accuracies).filter { $0 > error && $1 < claim }.map { ($0, $1) }
    }

    /// Fixes more than `error` off while claiming better than a third of their error.
    func claimingAThird(errorAbove error: Double) -> [(error: Double, accuracy: Double)] {
        zip(errors, accuracies).filter { $0 > error && $1 < $0 / 3 }.map { ($0, $1) }
    }

    static func percentile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * q).rounded(.up)) - 1))]
    }

    var description: String {
        let mm = { (v: Double) in String(Int((v * 1000).rounded())) + " mm" }
        let accuracy = accuracies.isEmpty ? "" : " accuracy_m p5 \(mm(Self.percentile(accuracies, 0.05))) p95 \(mm(Self.percentile(accuracies, 0.95)))"
        return "\(fixes) fixes, \(refusals) refused; error median \(mm(median)) p95 \(mm(p95)) max \(mm(maximum));"
            + "\(accuracy); within 2 × accuracy_m \(Int((withinTwiceAccuracy * 1000).rounded()) / 10)%"
    }
}
