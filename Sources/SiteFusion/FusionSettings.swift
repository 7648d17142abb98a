/// The tracker's settings: the core of a fuse configuration, in seconds and metres.
public struct FusionSettings: Hashable, Sendable {
    /// Seconds: ranges of one peer within this of each other count as one instant.
    public var window: Double
    /// Metres: the tag height for 2-D fixes (3 gateways), or nil to solve z (4 gateways).
    public var tagHeight: Double?
    /// Seconds without a fix after which `position_lost` fires.
    public var positionLostAfter: Double
    /// Seconds without any range after which a peer is forgotten (``FusionOutput/forgotten(_:)``):
    /// peer names come from the network, and one that is never seen again must not be kept, nor
    /// visited, for ever.
    public var forgetAfter: Double
    public var solverOptions: MultilaterationSolver.Options
    /// The window is 1.25 × the slowest ranging interval the online gateways report in their
    /// status, once one does (`window` until then).
    public var windowFollowsGateways: Bool

    /// The defaults agree with the agent's: a window of 1.25 × its default 200 ms ranging
    /// interval, so that every gateway's every round is part of a position.
    public init(window: Double = 0.25, tagHeight: Double? = nil, positionLostAfter: Double = 2, forgetAfter: Double = 60,
                solverOptions: MultilaterationSolver.Options = MultilaterationSolver.Options(), windowFollowsGateways: Bool = false) {
        self.window = window
        self.tagHeight = tagHeight
        self.positionLostAfter = positionLostAfter
        self.forgetAfter = forgetAfter
        self.solverOptions = solverOptions
        self.windowFollowsGateways = windowFollowsGateways
    }
}
