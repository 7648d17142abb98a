/// Where the gateway stands in the site frame (config `gateway.position` and `heading_deg`).
///
/// `headingDeg` is the site-frame direction of the antenna boresight (azimuth 0), measured
/// counter-clockwise from the site x axis seen from above, like the azimuth. Positions are in the site
/// frame only when both are given; otherwise in the gateway frame.
public struct GatewayPose: Hashable, Sendable {
    public var x: Double?
    public var y: Double?
    public var z: Double?
    public var headingDeg: Double?

    public init(x: Double? = nil, y: Double? = nil, z: Double? = nil, headingDeg: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.headingDeg = headingDeg
    }

    /// Position and heading, when both are configured.
    var site: (x: Double, y: Double, z: Double, heading: Double)? {
        guard let x, let y, let z, let headingDeg else { return nil }
        return (x, y, z, headingDeg)
    }
}
