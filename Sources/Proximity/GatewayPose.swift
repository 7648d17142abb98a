import Vocabulary

/// Where the gateway stands in the site frame (config `gateway.position` and `heading_deg`).
///
/// `headingDeg` is the site-frame direction of the antenna boresight (azimuth 0), measured
/// counter-clockwise from the site x axis seen from above, like the azimuth. Positions are in the site
/// frame only when both are given; otherwise in the gateway frame.
public struct GatewayPose: Hashable, Sendable {
    public var position: SitePoint?
    public var headingDeg: Double?

    public init(position: SitePoint? = nil, headingDeg: Double? = nil) {
        self.position = position
        self.headingDeg = headingDeg
    }

    /// Position and heading, when both are configured.
    var site: (position: SitePoint, heading: Double)? {
        guard let position, let headingDeg else { return nil }
        return (position, headingDeg)
    }
}
