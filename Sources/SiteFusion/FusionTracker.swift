import Vocabulary

/// The site's view of every peer: ranges from many gateways in, positions, retained states and
/// events out. The pure core of `uwb2mqtt fuse`.
///
/// One fix per tag per ranging round: the ranges of a round are gathered, and the round closes —
/// one solve, one position — once every gateway that ranges the tag has reported, when one of them
/// reports again (its next round has begun), or `window` after the round's first range. So the
/// work and the traffic follow the rounds, not the gateways: a tag ranged by 8 gateways costs one
/// fix per round, not 8, and its position comes with the round's last range.
///
/// Deterministic: time arrives with each range and with ``tick(at:)``; the tracker never reads a
/// clock. The service feeds it every gateway status and every successful range, dated by its own
/// clock when it received them, calls `tick` at ``nextDeadline`` (so that losses and dwells end on
/// time even when ranges stop, and an idle service sleeps), and publishes what comes back.
///
/// Peer names come from the network: a peer not seen for `forgetAfter` is forgotten
/// (``FusionOutput/forgotten(_:)``) and its memory released, so that a stream of new names costs
/// nothing once it stops. `tick` visits only the peers that are due, never all of them.
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
///     case .forgotten(let peer): clear(peer)   // …/state, an empty retained message
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
    /// Every tracked peer's `due`, earliest first; its first entry is always current (see `settle`).
    private var deadlines = PeerDeadlineQueue()
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
        /// The time of the newest range of this peer (counting one its window ignored as older
        /// than its gateway's newest): forgetting counts from here.
        var lastSeen: Double
        /// The earliest moment something can change without a new range — the loss, the gateways
        /// in range dropping to 0, a dwell running out, forgetting — as queued in `deadlines`;
        /// infinity while it has no entry there.
        var due = Double.infinity
        /// The round being gathered, nil between rounds.
        var round: Round?
    }

    /// The gateways (usable ones) whose range of a peer arrived since its last fix attempt, and
    /// when the first of them did.
    private struct Round: Sendable {
        var start: Double
        var gateways: [String]
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

    /// The peers tracked, sorted: those seen within `forgetAfter`.
    public var peerNames: [String] { peers.keys.sorted() }

    /// How many peers are tracked.
    public var peerCount: Int { peers.count }

    /// Whether `peer` is tracked (ranged within `forgetAfter`).
    public func tracks(_ peer: String) -> Bool { peers[peer] != nil }

    /// The most gateways one fix uses: the nearest, by their ranges. The solver tries the fit
    /// leaving out every one or two of its ranges, fits that grow with the square of the gateways,
    /// each over all of them: 8 take 149 µs a fix (`make bench`), 300 ranging one tag (anyone on
    /// the broker can announce them) held a core for 47 s. Farther gateways add least: a range's error grows
    /// with its distance, and the nearest surround a tag inside the site.
    public static let maximumGatewaysPerFix = 8

    /// The earliest moment at which ``tick(at:)`` has something to do (a loss, a dwell, forgetting
    /// a peer); nil when no peer is tracked. A service calls `tick` then, not before.
    public var nextDeadline: Double? { deadlines.first?.time }

    /// The current retained state of `peer`, or nil if it never ranged.
    public func state(of peer: String) -> SitePeerState? {
        guard let track = peers[peer] else { return nil }
        return snapshot(peer, track, at: max(track.published?.ts ?? 0, track.window.latestTime ?? 0))
    }

    /// Feeds one successful range. A range that is not a finite, non-negative distance is ignored.
    public mutating func ingest(_ range: GatewayRange) -> [FusionOutput] {
        guard range.distanceM.isFinite, range.distanceM >= 0, range.time.isFinite else { return [] }
        let peer = range.peer
        var track = peers[peer] ?? PeerTrack(presence: Array(repeating: ZonePresence(), count: zones.count), lastSeen: range.time)
        track.lastSeen = max(track.lastSeen, range.time)
        var outputs: [FusionOutput] = []
        let usable = gateways.usablePosition(of: range.gateway) != nil
        // A round whose window ran out before this range (no tick came between) closes first, and
        // so does one this gateway already reported in: its next round has begun. Either closes
        // without the new range.
        if let round = track.round, let latest = track.window.latestTime,
           range.time >= round.start + window || (usable && round.gateways.contains(range.gateway)) {
            outputs += close(peer, &track, at: latest)
        }
        track.window.insert(range)
        let now = track.window.latestTime ?? range.time
        outputs += expire(peer, &track, at: now)
        if usable {
            if track.round == nil { track.round = Round(start: now, gateways: []) }
            track.round?.gateways.append(range.gateway)
            // Every gateway that ranged the tag within the window has reported: the round is whole.
            // Fewer than a fix needs wait for the window (a new tag's first ranges, a gateway that
            // joins): a fix is not to be had from them anyway.
            let expected = track.window.combined(endingAt: now, window: window).count { gateways.usablePosition(of: $0.gateway) != nil }
            if let round = track.round, round.gateways.count >= max(expected, solver.requiredGateways) {
                outputs += close(peer, &track, at: now)
            }
        }
        outputs += publishIfChanged(peer, &track, at: now)
        store(peer, track)
        settle()
        return outputs
    }

    /// Closes the round gathered for `peer`: one fix from the window that ends at `now` (the
    /// round's newest range), with its position, zone changes and regained position.
    private func close(_ peer: String, _ track: inout PeerTrack, at now: Double) -> [FusionOutput] {
        track.round = nil
        var outputs: [FusionOutput] = []
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
            let fix = try solver.solve(Self.nearest(observations))
            let position = SiteFix(ts: now, peer: peer, fix: fix)
            if track.lost, let lastFix = track.lastFix {
                outputs.append(.event(SiteEvent(ts: now, peer: peer, type: .positionRegained, from: "lost",
                                                to: "available", reason: SiteEventReason(lastSeen: lastFix))))
            }
            track.lost = false
            track.motion.record(fix.point, accuracy: fix.accuracyM, at: now)
            track.position = position
            track.lastFix = now
            track.lastFailure = nil
            outputs.append(.position(position))
            outputs += evaluateZones(peer, &track, at: now, point: PlanarPoint(x: fix.x, y: fix.y))
        } catch {
            track.lastFailure = switch error {
            case .tooFewGateways: .tooFewGateways
            case .degenerateGeometry: .degenerateGeometry
            case .inconsistentRanges: .inconsistentRanges
            case .noConvergence, .invalidObservation, .duplicateGateway: .noFix
            }
        }
        return outputs
    }

    /// The `maximumGatewaysPerFix` observations with the shortest ranges (ties by gateway, so
    /// that the same ranges always make the same fix), in their order.
    static func nearest(_ observations: [RangeObservation]) -> [RangeObservation] {
        guard observations.count > maximumGatewaysPerFix else { return observations }
        let kept = Set(observations.indices.sorted {
            (observations[$0].distanceM, observations[$0].gatewayID) < (observations[$1].distanceM, observations[$1].gatewayID)
        }.prefix(maximumGatewaysPerFix))
        return observations.indices.filter(kept.contains).map { observations[$0] }
    }

    /// Advances time to `time` with no new range, for the peers due by then (``nextDeadline``):
    /// fires `position_lost` for peers without a fix for `position_lost_after`, completes zone
    /// changes whose dwell ran out, and forgets peers without a range for `forgetAfter`.
    public mutating func tick(at time: Double) -> [FusionOutput] {
        var outputs: [FusionOutput] = []
        var forgot = false
        // Each peer processed here leaves with a deadline after `time` (every condition that was
        // due is settled), so this ends.
        while let first = deadlines.first, first.time <= time {
            deadlines.removeFirst()
            let peer = first.peer
            guard var track = peers[peer], track.due == first.time else { continue }
            track.due = .infinity
            // A round whose window ran out without every gateway: the fix from those that came.
            if let round = track.round, time >= round.start + window - ZonePresence.timeSlack, let latest = track.window.latestTime {
                outputs += close(peer, &track, at: latest)
            }
            outputs += expire(peer, &track, at: time)
            if track.position != nil {
                for (i, zone) in zones.enumerated() {
                    if let change = track.presence[i].tick(at: time, zone: zone) {
                        outputs.append(.event(zoneEvent(peer, zone, change)))
                    }
                }
            }
            outputs += publishIfChanged(peer, &track, at: time)
            if time >= track.lastSeen + settings.forgetAfter {
                peers[peer] = nil
                forgot = true
                outputs.append(.forgotten(peer))
            } else {
                store(peer, track)
            }
        }
        settle()
        if forgot { releaseForgottenStorage() }
        return outputs
    }

    // MARK: steps

    /// The loss check: no fix for `position_lost_after` means the position is gone (with its
    /// zones, each left with its own event so that no consumer keeps a stale presence).
    ///
    /// Each check compares `time` with the very deadline `deadline(of:)` queues (less the slack),
    /// so that a tick at that deadline always settles it, whatever the magnitude of the times.
    private func expire(_ peer: String, _ track: inout PeerTrack, at time: Double) -> [FusionOutput] {
        if let latest = track.window.latestTime, time >= latest + settings.positionLostAfter - ZonePresence.timeSlack {
            track.gatewaysInRange = 0
        }
        guard track.position != nil, let lastFix = track.lastFix,
              time >= lastFix + settings.positionLostAfter - ZonePresence.timeSlack else { return [] }
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

    // MARK: deadlines

    /// When something can next change for `track` without a range: the least of its forgetting,
    /// its loss, its gateways in range dropping to 0 and its zones' dwells; infinity if none is
    /// finite.
    private func deadline(of track: PeerTrack) -> Double {
        var due = track.lastSeen + settings.forgetAfter
        func consider(_ candidate: Double) { if candidate < due { due = candidate } }
        if track.gatewaysInRange > 0, let latest = track.window.latestTime { consider(latest + settings.positionLostAfter) }
        if let round = track.round { consider(round.start + window) }
        if track.position != nil {
            if let lastFix = track.lastFix { consider(lastFix + settings.positionLostAfter) }
            for (i, zone) in zones.enumerated() {
                if let end = track.presence[i].dwellEnd(zone: zone) { consider(end) }
            }
        }
        return due.isNaN ? .infinity : due
    }

    /// Keeps `track` and queues its deadline when it moved.
    private mutating func store(_ peer: String, _ track: PeerTrack) {
        var track = track
        let due = deadline(of: track)
        if due != track.due {
            track.due = due
            if due < .infinity { deadlines.insert(PeerDeadlineQueue.Entry(time: due, peer: peer)) }
        }
        peers[peer] = track
    }

    /// Drops queued deadlines that no longer match their peer's from the top, so that
    /// `nextDeadline` is a real one; rebuilds the queue when stale entries outnumber live ones
    /// (each range of a tracked peer moves its deadline and leaves one behind).
    private mutating func settle() {
        while let first = deadlines.first, peers[first.peer]?.due != first.time { deadlines.removeFirst() }
        if deadlines.count > 2 * peers.count + 64 {
            deadlines.rebuild(peers.compactMap { peer, track in
                track.due < .infinity ? PeerDeadlineQueue.Entry(time: track.due, peer: peer) : nil
            })
        }
    }

    /// A dictionary keeps its storage when entries are removed: after a crowd of peers was
    /// forgotten, the storage sized for the crowd is given back.
    private mutating func releaseForgottenStorage() {
        if peers.isEmpty {
            peers = [:]
        } else if peers.capacity > 4 * peers.count + 64 {
            peers = Dictionary(uniqueKeysWithValues: peers.map { ($0.key, $0.value) })
        }
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
