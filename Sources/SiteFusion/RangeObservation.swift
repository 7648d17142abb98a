import Vocabulary

/// One gateway's distance to the tag, as the solver sees it: where the gateway stands and how far
/// it measured, plus whether the device flagged the measurement as non-line-of-sight.
///
/// NLoS matters because a blocked direct path makes UWB measure a reflected, longer path: the range
/// is biased long, so the solver trusts it less and (optionally) only as an upper bound.
public struct RangeObservation: Hashable, Sendable {
    public var gatewayID: String
    public var gateway: SitePoint
    public var distanceM: Double
    public var nlos: Bool

    public init(gatewayID: String, gateway: SitePoint, distanceM: Double, nlos: Bool = false) {
        self.gatewayID = gatewayID
        self.gateway = gateway
        self.distanceM = distanceM
        self.nlos = nlos
    }
}
