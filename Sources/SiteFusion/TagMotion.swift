import Vocabulary

/// A tag's recent velocity, from its recent fixes: what lets ranges measured at different moments
/// make one position.
///
/// Gateways range independently, so when a range arrives the other gateways' newest ranges are up
/// to one ranging interval old: 16 cm of walking at 0.8 m/s and 200 ms. Each old range measured
/// the tag where it was then, so the tracker moves the gateway by the tag's displacement since
/// (`velocity × age`, the same relative geometry) instead of treating the range as current.
///
/// The velocity is a weighted straight-line fit through the fixes of the last `span` seconds,
/// each weighted by 1 / accuracy², so that a doubtful fix (one whose accuracy covers a rival
/// reading) hardly counts; it is capped at `maximumSpeed`, and nil (no compensation) until the
/// fixes cover a third of the span.
public struct TagMotion: Hashable, Sendable {
    public var span: Double
    public var maximumSpeed: Double
    private var fixes: [Sample] = []

    struct Sample: Hashable, Sendable {
        var time: Double
        var point: SitePoint
        var weight: Double
    }

    public init(span: Double = 0.8, maximumSpeed: Double = 3) {
        self.span = span
        self.maximumSpeed = maximumSpeed
    }

    /// Records a fix (times must not go backwards; an older one is ignored).
    public mutating func record(_ point: SitePoint, accuracy: Double, at time: Double) {
        if let last = fixes.last, time < last.time { return }
        fixes.append(Sample(time: time, point: point, weight: 1 / max(accuracy * accuracy, 1e-6)))
        fixes.removeAll { time - $0.time > span }
    }

    /// Forgets the track (after a loss the tag may be anywhere, moving any way).
    public mutating func reset() { fixes.removeAll() }

    /// Metres per second in x, y, z at `time`, or nil while there is too little track.
    public func velocity(at time: Double) -> SitePoint? {
        let recent = fixes.filter { time - $0.time <= span }
        guard recent.count >= 3, let first = recent.first, let last = recent.last, last.time - first.time >= span / 3 else { return nil }
        let total = recent.reduce(0) { $0 + $1.weight }
        let meanTime = recent.reduce(0) { $0 + $1.weight * $1.time } / total
        let variance = recent.reduce(0) { $0 + $1.weight * ($1.time - meanTime) * ($1.time - meanTime) }
        guard variance > 0 else { return nil }
        func slope(_ coordinate: (SitePoint) -> Double) -> Double {
            let mean = recent.reduce(0) { $0 + $1.weight * coordinate($1.point) } / total
            return recent.reduce(0) { $0 + $1.weight * ($1.time - meanTime) * (coordinate($1.point) - mean) } / variance
        }
        var v = SitePoint(x: slope(\.x), y: slope(\.y), z: slope(\.z))
        let speed = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
        guard speed.isFinite else { return nil }
        if speed > maximumSpeed {
            let scale = maximumSpeed / speed
            v = SitePoint(x: v.x * scale, y: v.y * scale, z: v.z * scale)
        }
        return v
    }
}
