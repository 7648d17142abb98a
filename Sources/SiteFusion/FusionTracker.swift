import Vocabulary

/// The site's view of every peer: ranges from many gateways in, positions, retained states and
/// events out. The pure core of `uwb2mqtt fuse`.
///
/// Deterministic: time arrives with each range (when the service received it, by its own clock)
/// and with ``tick(at:)``; the tracker never reads a clock. The service feeds it every gateway status and every successful
/// range, calls `tick` periodically (a few times a second, so that losses and dwells end on time
/// even when ranges stop), and publishes what comes back.
///
/// ```swift
/// var tracker = FusionTracker(settings: FusionSettings(tagHeight: 1.0), zones: [checkout])
/// tracker.updateGateway("gw-a", position: SitePoint(x: 0, y: 0, z: 2.5), online: true)
/// // … the other gateways …
/// for output in tracker.ingest(GatewayRange(peer: "cart", gateway: "gw-a", distanceM: 3.1, time: t)) {
///     switch output {
///     case .position(let p): publish(p)        // <base>/site/<site>/peer/cart/position
///     case .state(let s): publishRetained(s)   // …/state
///     case .event(let e): publishEvent(e)      // …/event
///     }
/// }
/// ```
public struct FusionTracker: Sendable {
    public let settings: FusionSettings
    public let zones: [PolygonZone]
    /// Seconds: ranges within this of each other make one fix (`settings.window`, or following
    /// the gateways' ranging interval).
    public private(set) var window: Double
    public private(set) var gateways = GatewayRegistry()
    private var peers: [String: PeerTrack] = [:]
    private let solver: MultilaterationSolver

    public init(settings: FusionSettings, zones: [PolygonZone] = []) {
        self.settings = settings
        self.zones = zones
        window = settings.window
        solver = MultilaterationSolver(tagHeight: settings.tagHeight, options: settings.solverOptions)
    }

    /// One peer's fusion state.
    private struct PeerTrack: Sendable {
        var window = RangeWindow()
        var motion = TagMotion()
        /// The current fix, while the position counts as available.
        var position: SiteFix?
        /// The time of the last fix (kept after a loss, for `last_seen`).
        var lastFix: Double?
        /// Why the latest attempt gave no fix, since the last fix.
        var lastFailure: PositionLostCause?
        var lost = false
        var presence: [ZonePresence]
        var gatewaysInRange = 0
        var published: SitePeerState?
    }

    /// Records a gateway's retained status. Offline or unplaced gateways stop contributing at once.
    /// With `windowFollowsGateways`, the window follows the slowest interval reported.
    public mutating func updateGateway(_ id: String, position: SitePoint?, online: Bool, rangingInterval: Double? = nil) {
        gateways.update(id, position: position, online: online, rangingInterval: rangingInterval)
        if settings.windowFollowsGateways, let slowest = gateways.slowestRangingInterval {
            window = slowest * FuseConfiguration.windowPerRangingInterval
        }
    }

    /// Forgets a gateway whose retained status was cleared.
    public mutating func removeGateway(_ id: String) {
        gateways.remove(id)
    }

    /// The peers seen so far, sorted.
    public var peerNames: [String] { peers.keys.sorted() }

    /// The current retained state of `peer`, or nil if it never ranged.
    public func state(of peer: String) -> SitePeerState? {
        guard let track = peers[peer] else { return nil }
        return snapshot(peer, track, at: max(track.published?.ts ?? 0, track.window.latestTime ?? 0))
    }

    /// Feeds one successful range. A range that is not a finite, non-negative distance is ignored.
    public mutating func ingest(_ range: GatewayRange) -> [FusionOutput] {
        guard range.distanceM.isFinite, range.distanceM >= 0, range.time.isFinite else { return [] }
        var track = peers[range.peer] ?? PeerTrack(presence: Array(repeating: ZonePresence(), count: zones.count))
        track.window.insert(range)
        let now = track.window.latestTime ?? range.time
        var outputs = expire(range.peer, &track, at: now)

        let combined = track.window.combined(endingAt: now, window: window)
        // An older range measured the tag where it was then: move its gateway by the tag's
        // displacement since, so that every range speaks of the tag's position now.
        let velocity = track.motion.velocity(at: now)
        let observations: [RangeObservation] = combined.compactMap { r in
            gateways.usablePosition(of: r.gateway).map { g in
                let age = now - r.time
                let moved = velocity.map { SitePoint(x: g.x + $0.x * age, y: g.y + $0.y * age,
                                                     z: g.z + (settings.tagHeight == nil ? $0.z * age : 0)) } ?? g
                return RangeObservation(gatewayID: r.gateway, gateway: moved, distanceM: r.distanceM, nlos: r.nlos)
            }
        }
        track.gatewaysInRange = observations.count
        do throws(MultilaterationError) {
            let fix = try solver.solve(observations)
            let position = SiteFix(ts: now, peer: range.peer, fix: fix)
            if track.lost, let lastFix = track.lastFix {
                outputs.append(.event(SiteEvent(ts: now, peer: range.peer, type: .positionRegained, from: "lost",
                                                to: "available", reason: SiteEventReason(lastSeen: lastFix))))
            }
            track.lost = false
            track.motion.record(fix.point, accuracy: fix.accuracyM, at: now)
            track.position = position
            track.lastFix = now
            track.lastFailure = nil
            outputs.append(.position(position))
            outputs += evaluateZones(range.peer, &track, at: now, point: PlanarPoint(x: fix.x, y: fix.y))
        } catch {
            track.lastFailure = switch error {
            case .tooFewGateways: .tooFewGateways
            case .degenerateGeometry: .degenerateGeometry
            case .inconsistentRanges: .inconsistentRanges
            case .noConvergence, .invalidObservation, .duplicateGateway: .noFix
            }
        }
        outputs += publishIfChanged(range.peer, &track, at: now)
        peers[range.peer] = track
        return outputs
    }

    /// Advances time to `time` with no new range: fires `position_lost` for peers without a fix
    /// for `position_lost_after`, and completes zone changes whose dwell ran out.
    public mutating func tick(at time: Double) -> [FusionOutput] {
        var outputs: [FusionOutput] = []
        for peer in peers.keys.sorted() {
            guard var track = peers[peer] else { continue }
            outputs += expire(peer, &track, at: time)
            if track.position != nil {
                for (i, zone) in zones.enumerated() {
                    if let change = track.presence[i].tick(at: time, zone: zone) {
                        outputs.append(.event(zoneEvent(peer, zone, change)))
                    }
                }
            }
            outputs += publishIfChanged(peer, &track, at: time)
            peers[peer] = track
        }
        return outputs
    }

    // MARK: steps

    /// The loss check: no fix for `position_lost_after` means the position is gone (with its
    /// zones, each left with its own event so that no consumer keeps a stale presence).
    private func expire(_ peer: String, _ track: inout PeerTrack, at time: Double) -> [FusionOutput] {
        if let latest = track.window.latestTime, time - latest >= settings.positionLostAfter - ZonePresence.timeSlack {
            track.gatewaysInRange = 0
        }
        guard track.position != nil, let lastFix = track.lastFix,
              time - lastFix >= settings.positionLostAfter - ZonePresence.timeSlack else { return [] }
        let at = lastFix + settings.positionLostAfter
        track.position = nil
        track.motion.reset()
        track.lost = true
        let cause = track.lastFailure ?? .timeout
        var outputs: [FusionOutput] = [.event(SiteEvent(ts: at, peer: peer, type: .positionLost, from: "available", to: "lost",
                                                        reason: SiteEventReason(cause: cause.rawValue, lastSeen: lastFix)))]
        for (i, zone) in zones.enumerated() where track.presence[i].forceOutside() {
            outputs.append(.event(SiteEvent(ts: at, peer: peer, type: .zoneExit, zone: zone.name, from: "inside", to: "outside",
                                            reason: SiteEventReason(cause: "position_lost", lastSeen: lastFix))))
        }
        return outputs
    }

    private func evaluateZones(_ peer: String, _ track: inout PeerTrack, at time: Double, point: PlanarPoint) -> [FusionOutput] {
        var outputs: [FusionOutput] = []
        for (i, zone) in zones.enumerated() {
            if let change = track.presence[i].update(signedDistance: zone.signedDistance(to: point), at: time, zone: zone) {
                outputs.append(.event(zoneEvent(peer, zone, change)))
            }
        }
        return outputs
    }

    private func zoneEvent(_ peer: String, _ zone: PolygonZone, _ change: ZonePresence.Transition) -> SiteEvent {
        SiteEvent(ts: change.at, peer: peer, type: change.entered ? .zoneEnter : .zoneExit, zone: zone.name,
                  from: change.entered ? "outside" : "inside", to: change.entered ? "inside" : "outside",
                  reason: SiteEventReason(thresholdM: zone.hysteresis, dwellMs: Self.wholeMilliseconds(zone.dwell),
                                          crossedAt: change.crossedAt))
    }

    /// Seconds as whole milliseconds, saturating: a conversion that traps on a huge or non-finite
    /// value has no place on a path a configuration reaches.
    static func wholeMilliseconds(_ seconds: Double) -> Int {
        Int(exactly: (seconds * 1000).rounded()) ?? (seconds < 0 ? 0 : Int.max)
    }

    private func snapshot(_ peer: String, _ track: PeerTrack, at time: Double) -> SitePeerState {
        SitePeerState(ts: time, peer: peer, position: track.position,
                      zones: zones.indices.filter { track.presence[$0].inside }.map { zones[$0].name },
                      gatewaysInRange: track.gatewaysInRange)
    }

    /// A state output when a discrete field changed since the last one (not for every new fix: the
    /// position topic carries those, and the service refreshes the retained state at its interval).
    private func publishIfChanged(_ peer: String, _ track: inout PeerTrack, at time: Double) -> [FusionOutput] {
        let state = snapshot(peer, track, at: time)
        if let last = track.published, (last.position == nil) == (state.position == nil), last.zones == state.zones,
           last.gatewaysInRange == state.gatewaysInRange {
            return []
        }
        track.published = state
        return [.state(state)]
    }
}
