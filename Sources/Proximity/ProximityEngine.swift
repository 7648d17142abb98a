import Vocabulary
import UCI

/// The proximity core: measurements and timestamps in, state, feedback, events, positions and
/// rankings out (spec/rules.md, spec/mqtt-api.md).
///
/// A value type with no clock, I/O or globals: the agent's core owns one, feeds it each ranging
/// round (``ingestWithinRound(peer:sample:at:into:)`` for every measurement, then
/// ``endRound(at:into:)``; ``ingest(peer:sample:at:)`` is a round of one), calls ``tick(at:)`` at
/// ``nextDeadline`` so that silence is noticed, ``linkLost(peer:cause:at:)`` when the device link
/// reports a stopped session or a missing device, and publishes what comes back. Time is seconds
/// since the epoch, passed in, so runs replay exactly.
///
/// ```swift
/// var engine = ProximityEngine(rules: try RulesFile.load(text: yaml, file: "rules.yaml"),
///                              peers: [PeerIdentity(address: .short(1), name: "tool-cart")],
///                              gateway: nil, deviceHasAoA: true)
/// for output in engine.ingest(peer: cart, sample: RangingSample(m, deviceHasAoA: true), at: now) { publish(output) }
/// ```
public struct ProximityEngine: Sendable {
    public private(set) var rules: Rules {
        didSet { inUse = RulesInUse(rules) }
    }
    /// What of ``rules`` the engine reads after every measurement and round, read out of the
    /// rules once per change of them.
    private var inUse: RulesInUse
    public let gateway: GatewayPose?
    /// Whether the device measures angles (its capabilities), learned once the device is identified.
    public var deviceHasAoA: Bool
    /// A measurement outputs its peer's state when the state changed, and also unchanged once
    /// this many seconds have passed since it was last output (`mqtt.state_interval`: the
    /// distance moves on in it); never by default.
    public var stateRepeatInterval = Double.infinity
    /// Each peer's tracker, with its ``PeerTracker/nextDeadline(_:)`` kept beside it:
    /// `nextDeadline` is read twice a round, and reading it from the trackers themselves would
    /// copy each.
    private var trackers = TrackerTable()
    /// Peers in configuration order, then in order of first measurement: the order of outputs.
    private var order: [MacAddress] = []
    /// The last published membership and order of each ranking rule, by its index in
    /// `rules.rankings` (nil: never published): looked at after every round.
    private var published: [[PeerIdentity]?] = []
    /// Reused storage for ranking the candidates after every round (see ``rankingChanges(at:into:)``).
    private var rankingScratch: [Ranking.Entry] = []
    /// The configured peers' first states are still to be published: by the first tick.
    private var initialStatesDue: Bool

    public init(rules: Rules, peers: [PeerIdentity], gateway: GatewayPose? = nil, deviceHasAoA: Bool) {
        self.rules = rules
        inUse = RulesInUse(rules)
        self.gateway = gateway
        self.deviceHasAoA = deviceHasAoA
        published = Array(repeating: nil, count: rules.rankings.count)
        initialStatesDue = !peers.isEmpty
        for peer in peers where !trackers.contains(peer.address) {
            trackers.insert(PeerTracker(identity: peer, rules: rules), timeouts: inUse.timeouts)
            order.append(peer.address)
        }
    }

    // MARK: - Inputs

    /// Feeds one UCI ranging result of `peer`; its outputs are appended to `outputs`.
    public mutating func ingest(peer: PeerIdentity, measurement: TwoWayRangingMeasurement, at time: Double,
                                into outputs: inout [ProximityOutput]) {
        ingest(peer: peer, sample: RangingSample(measurement, deviceHasAoA: deviceHasAoA), at: time, into: &outputs)
    }

    /// Feeds one UCI ranging result of a round of several, as ``ingestWithinRound(peer:sample:at:into:)``.
    @discardableResult
    public mutating func ingestWithinRound(peer: PeerIdentity, measurement: TwoWayRangingMeasurement, at time: Double,
                                           into outputs: inout [ProximityOutput]) -> Double? {
        ingestWithinRound(peer: peer, sample: RangingSample(measurement, deviceHasAoA: deviceHasAoA), at: time, into: &outputs)
    }

    /// Feeds one measurement of `peer` and returns its outputs.
    public mutating func ingest(peer: PeerIdentity, sample: RangingSample, at time: Double) -> [ProximityOutput] {
        var outputs: [ProximityOutput] = []
        ingest(peer: peer, sample: sample, at: time, into: &outputs)
        return outputs
    }

    /// Feeds one measurement of `peer`, a round of its own: its outputs, then the rankings it
    /// changed, are appended to `outputs`.
    public mutating func ingest(peer: PeerIdentity, sample: RangingSample, at time: Double, into outputs: inout [ProximityOutput]) {
        ingestWithinRound(peer: peer, sample: sample, at: time, into: &outputs)
        endRound(at: time, into: &outputs)
    }

    /// Feeds one measurement of a ranging round (one notification's measurements, all taken at
    /// `time`). A failed one moves only the link timer (and may lose the link with cause
    /// `measurement_errors`); a valid one is filtered and runs every rule. The outputs are
    /// appended to `outputs`: the agent passes the same storage every time, so that the usual
    /// outputs of a measurement (its feedback) need no array of their own. Rankings are not looked
    /// at: the caller ends the round with ``endRound(at:into:)``. Returns the peer's filtered
    /// distance while it ranges (the `distanceM` of ``state(of:at:)``, for the `range` payload of
    /// every measurement), nil otherwise.
    @discardableResult
    public mutating func ingestWithinRound(peer: PeerIdentity, sample: RangingSample, at time: Double,
                                           into outputs: inout [ProximityOutput]) -> Double? {
        // Changed where it lives: every field the step reads is a stored property beside it.
        trackers[slot(for: peer), timeouts: inUse.timeouts]
            .measure(sample, at: time, rules: rules, inUse: inUse, gateway: gateway, deviceHasAoA: deviceHasAoA,
                     stateRepeat: stateRepeatInterval, into: &outputs)
    }

    /// The slot of `peer`'s tracker: a new tracker's for a peer first seen, which joins the
    /// output order.
    private mutating func slot(for peer: PeerIdentity) -> TrackerTable.Slot {
        if let slot = trackers.slot(of: peer.address) { return slot }
        order.append(peer.address)
        return trackers.insert(PeerTracker(identity: peer, rules: rules), timeouts: inUse.timeouts)
    }

    /// A round's measurements are in: the rankings they changed, judged once on the whole round —
    /// an order that held only halfway through it, because of the order in which the device
    /// listed the peers, is never published.
    public mutating func endRound(at time: Double, into outputs: inout [ProximityOutput]) {
        rankingChanges(at: time, into: &outputs)
    }

    /// The earliest time at which `tick` changes something — a link lost to silence, an angle
    /// older than `max_age`, a zone's dwell completed — or nil while no peer ranges. The agent
    /// sleeps until then rather than ticking at a fixed rate; it ticks the engine at every round
    /// too, so while measurements flow the deadline keeps moving on.
    public var nextDeadline: Double? {
        trackers.earliestDeadline
    }

    /// Notices silence: links lost after `signal_lost_after` without a valid measurement (cause
    /// `measurement_errors` when failed measurements arrived meanwhile, else `timeout`), angles older
    /// than `max_age`, and zone dwells whose time has come (the event's `ts` is then the tick's time).
    public mutating func tick(at time: Double) -> [ProximityOutput] {
        // Besides the first states, every change a tick makes has a deadline (see `nextDeadline`),
        // and its test passes at most a slack before it: before the earliest, which is nearly
        // every round's tick while measurements flow, there is nothing to look at.
        guard initialStatesDue || nextDeadline.map({ time >= $0 - 2 * PeerTracker.timeSlack }) == true else {
            assert({ var every = self; return every.tickEveryPeer(at: time).isEmpty }(), "a tick before the deadline changed something")
            return []
        }
        return tickEveryPeer(at: time)
    }

    private mutating func tickEveryPeer(at time: Double) -> [ProximityOutput] {
        var outputs: [ProximityOutput] = []
        for address in order {
            guard let slot = trackers.slot(of: address) else { continue }
            trackers[slot, timeouts: inUse.timeouts].tick(at: time, rules: rules, into: &outputs)
        }
        initialStatesDue = false
        rankingChanges(at: time, into: &outputs)
        return outputs
    }

    /// The phone `peer` saw the gateway at this angle at `measuredAt` (its report's `ts`; nil
    /// azimuth: it has no angle now), reported at `time`. Its direction, facing and rankings
    /// change at once; its distance stays the gateway's own measurement. Nothing for a peer the
    /// engine does not track.
    public mutating func phoneAngle(peer: PeerIdentity, azimuthDeg: Double?, elevationDeg: Double?, measuredAt: Double,
                                    at time: Double) -> [ProximityOutput] {
        guard let slot = trackers.slot(of: peer.address) else { return [] }
        var outputs: [ProximityOutput] = []
        trackers[slot, timeouts: inUse.timeouts]
            .phoneAngle(azimuthDeg: azimuthDeg, elevationDeg: elevationDeg, measuredAt: measuredAt, at: time, rules: rules,
                        into: &outputs)
        rankingChanges(at: time, into: &outputs)
        return outputs
    }

    /// The agent did not run (or its clock stepped) until `time`: what seemed silence of the
    /// tags until then was the agent's own, and counts towards no signal loss. Their next
    /// measurements (read late, in a burst) continue the link as if nothing happened.
    public mutating func excuseSilence(until time: Double) {
        for address in order {
            guard let slot = trackers.slot(of: address) else { continue }
            if trackers[slot, timeouts: inUse.timeouts].link == .ranging {
                trackers[slot, timeouts: inUse.timeouts].excusedUntil = time
            }
        }
    }

    /// The device link reports that ranging stopped: for one peer, or for all when `peer` is nil.
    /// Ranging peers lose their link with `cause`; peers not ranging are left as they are, but
    /// for `endsConnecting`: a peer still connecting is lost too (its session is gone).
    public mutating func linkLost(peer: PeerIdentity?, cause: LossCause, at time: Double, endsConnecting: Bool = false) -> [ProximityOutput] {
        var outputs: [ProximityOutput] = []
        for address in order where peer == nil || peer?.address == address {
            guard let slot = trackers.slot(of: address) else { continue }
            trackers[slot, timeouts: inUse.timeouts].loseLink(cause, at: time, endsConnecting: endsConnecting, into: &outputs)
        }
        rankingChanges(at: time, into: &outputs)
        return outputs
    }

    /// Peers that left the configuration, or are named anew: their trackers go, with no event (the
    /// agent clears their topics instead), and a later measurement of the address starts afresh
    /// under the identity it then has. Rankings they were in are published without them.
    public mutating func forget(_ addresses: [MacAddress], at time: Double) -> [ProximityOutput] {
        guard !addresses.isEmpty else { return [] }
        for address in addresses { trackers.remove(address) }
        order.removeAll { addresses.contains($0) }
        var outputs: [ProximityOutput] = []
        rankingChanges(at: time, into: &outputs)
        return outputs
    }

    /// A peer ranges on at a new address under the same name (an iPhone's new NISession run):
    /// its tracker, place and ranking memberships move with it, so that its state, stage, zones
    /// and approaches carry on without an event. No-op unless `old` is tracked and `new` is not.
    public mutating func readdress(_ old: MacAddress, to new: MacAddress) {
        guard old != new, !trackers.contains(new), var tracker = trackers.remove(old) else { return }
        let moved = PeerIdentity(address: new, name: tracker.identity.name)
        let previous = tracker.identity
        tracker.identity = moved
        trackers.insert(tracker, timeouts: inUse.timeouts)
        if let index = order.firstIndex(of: old) { order[index] = new }
        for index in published.indices {
            published[index] = published[index]?.map { $0 == previous ? moved : $0 }
        }
    }

    /// Every peer the engine tracks (configured, or seen on air), in output order.
    public var peers: [PeerIdentity] {
        order.compactMap { trackers.read($0) { $0.identity } }
    }

    /// Swaps in new rules between two measurements.
    ///
    /// Kept: each peer's link, filter (restarted from the current estimate when `filter.kind` or
    /// `max_speed` changed) and direction. Carried by name: zone membership, the stage, approach
    /// phases. A zone the peer was in or an approach that was ready that no longer exists (or no longer
    /// selects the peer) ends with its exit or cancel event, cause `rules_changed`. Then every ranging
    /// peer is evaluated at `time` against the new thresholds from its current filtered distance: a
    /// zone whose thresholds moved past the peer changes through its normal dwell, a stage band that
    /// vanished or moved gives a `stage_change` from the old name. Ranking rules that were removed are
    /// published once with no peers, so that their retained topic is emptied.
    public mutating func replaceRules(_ new: Rules, at time: Double) -> [ProximityOutput] {
        let old = rules
        rules = new
        var outputs: [ProximityOutput] = []
        for address in order {
            guard let slot = trackers.slot(of: address) else { continue }
            trackers[slot, timeouts: inUse.timeouts].adopt(new, at: time, into: &outputs)
        }
        // Rankings carry over by name; one that went is published once, empty.
        let before = published
        published = new.rankings.map { rule in old.rankings.firstIndex { $0.name == rule.name }.flatMap { before[$0] } }
        for (index, rule) in old.rankings.enumerated() where !new.rankings.contains(where: { $0.name == rule.name }) {
            if before[index] != nil {
                outputs.append(.ranking(Ranking(ts: time, rule: rule.name, peers: [])))
            }
        }
        rankingChanges(at: time, into: &outputs)
        return outputs
    }

    // MARK: - Snapshots

    /// The current state of a peer (configured or seen), nil for an unknown peer.
    public func state(of peer: PeerIdentity, at time: Double) -> PeerState? {
        trackers.read(peer.address) { $0.state(at: time) }
    }

    /// Every known peer's state, in configuration order: the `state` request's answer.
    public func states(at time: Double) -> [PeerState] {
        order.compactMap { trackers.read($0) { $0.state(at: time) } }
    }

    /// Every ranking rule's current ranking, for the retained topics after a (re)start.
    public func rankings(at time: Double) -> [Ranking] {
        rules.rankings.indices.map { ranking(at: $0, time: time) }
    }

    // MARK: - Outputs

    /// The ranking of `rules.rankings[index]`; which peers the rule selects, and their base scores,
    /// come from each tracker's ``PeerTracker/rankings``.
    private func ranking(at index: Int, time: Double) -> Ranking {
        var entries: [Ranking.Entry] = []
        rank(index, into: &entries)
        return Ranking(ts: time, rule: inUse.rankings[index].name, peers: entries)
    }

    /// The entries of `rules.rankings[index]`, best first, into `entries` (emptied first).
    private func rank(_ index: Int, into entries: inout [Ranking.Entry]) {
        // The rule's numbers, not the rule: a copy of it retains its name and patterns.
        let within = inUse.rankings[index].within, nearbyWithin = inUse.rankings[index].nearbyWithin
        let nearbyBonus = inUse.rankings[index].nearbyBonus, facingBonus = inUse.rankings[index].facingBonus
        entries.removeAll(keepingCapacity: true)
        entries.reserveCapacity(order.count)
        // Every tracker, without a lookup per peer (this runs after every round); the sort
        // below is a total order, so the order they are visited in does not matter.
        trackers.forEachRanked(in: index) { peer, d, base, facing in
            if let within, d > within { return }
            var score = base
            if let nearbyWithin, d <= nearbyWithin { score += nearbyBonus }
            if facing == true { score += facingBonus }
            entries.append(Ranking.Entry(peer: peer, score: score, distanceM: d, facing: facing))
        }
        entries.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.distanceM != b.distanceM { return a.distanceM < b.distanceM }
            if a.peer.displayName != b.peer.displayName { return a.peer.displayName < b.peer.displayName }
            return Self.order(of: a.peer.address) < Self.order(of: b.peer.address)
        }
    }

    /// Addresses in a fixed order: short before extended, then by value.
    private static func order(of address: MacAddress) -> (Int, UInt64) {
        switch address {
        case let .short(value): (0, UInt64(value))
        case let .extended(value): (1, value)
        }
    }

    /// The rankings whose membership or order changed since last published. Runs after every
    /// round and nearly always finds no change: the entries are ranked in ``rankingScratch``,
    /// whose buffer is reused, and a `Ranking` (with its own copy) is made only for a change.
    private mutating func rankingChanges(at time: Double, into outputs: inout [ProximityOutput]) {
        var entries = rankingScratch
        rankingScratch = []
        for index in inUse.rankings.indices {
            rank(index, into: &entries)
            let rule = inUse.rankings[index].name
            if !entries.elementsEqual(published[index] ?? [], by: { $0.peer == $1 }) {
                outputs.append(.ranking(Ranking(ts: time, rule: rule, peers: entries)))
                // Rewritten in place: the order changes with many measurements while peers move.
                if published[index] == nil { published[index] = [] }
                published[index]!.removeAll(keepingCapacity: true)
                published[index]!.append(contentsOf: entries.lazy.map(\.peer))
            }
        }
        rankingScratch = entries
    }
}

// MARK: - A tracker's steps, taken where it lives in the table

/// What the engine does to one peer's tracker at each input. Each step appends the peer's
/// events, then its state when a discrete field changed, then what else it gives; the engine
/// runs them on the tracker in its slot (``TrackerTable/subscript(_:timeouts:)``), with what they
/// read of the engine handed in beside it.
private extension PeerTracker {
    /// A measurement of this peer: see ``ProximityEngine/ingestWithinRound(peer:sample:at:into:)``.
    mutating func measure(_ sample: RangingSample, at time: Double, rules: Rules, inUse: RulesInUse, gateway: GatewayPose?,
                          deviceHasAoA: Bool, stateRepeat: Double, into outputs: inout [ProximityOutput]) -> Double? {
        var events: [ProximityEvent] = []
        if !sample.isValid {
            lastFailure = time
            if link == .ranging, let silent = silentSince, time - silent >= rules.signalLostAfter - Self.timeSlack {
                lose(.measurementErrors, at: time, into: &events)
            }
        } else {
            if link == .lost {
                events.append(event(.signalRegained, at: time, from: "lost", to: "ranging",
                                    reason: EventReason(cause: lossCause?.rawValue, lastSeen: lastValid)))
                // Afresh: no filter memory across the gap, every rule from its initial state.
                let (reported, reportedAt) = (reported, reportedAt)
                self = PeerTracker(identity: identity, rules: rules)
                (self.reported, self.reportedAt) = (reported, reportedAt)
            }
            link = .ranging
            lossCause = nil
            lastValid = time
            let raw = max(0, sample.distanceMeters ?? 0)
            distance = filter.update(raw, at: time, nonLineOfSight: sample.nonLineOfSight == true)
            events.appendIfAny(takeAngle(sample, at: time, rules: rules, deviceHasAoA: deviceHasAoA))
            evaluate(at: time, measured: true, into: &events)
        }
        for event in events { outputs.append(.event(event)) }
        if let state = stateChange(at: time) { outputs.append(.state(state)) }
        // Made where they are appended (the state's check changes only `reported`), so that each
        // moves into `outputs` instead of being copied there from a variable.
        if sample.isValid {
            if let guidance = feedback(at: time, inUse: inUse) { outputs.append(.feedback(guidance)) }
            if let estimate = position(at: time, gateway: gateway) { outputs.append(.position(estimate)) }
        }
        if time - reportedAt >= stateRepeat {
            outputs.append(.state(state(at: time)))
            reportedAt = time
        }
        return link == .ranging ? distance : nil
    }

    /// A tick: the link lost to silence, or the angle aged out and the rules evaluated without
    /// a measurement (a zone's dwell completes).
    mutating func tick(at time: Double, rules: Rules, into outputs: inout [ProximityOutput]) {
        var events: [ProximityEvent] = []
        if link == .ranging, let last = lastValid, let silent = silentSince {
            if time - silent >= rules.signalLostAfter - Self.timeSlack {
                let errors = (lastFailure ?? -.infinity) > last
                lose(errors ? .measurementErrors : .timeout, at: time, into: &events)
            } else {
                let before = bearing
                events.appendIfAny(expireAngle(at: time, rules: rules))
                evaluate(at: time, measured: false, into: &events)
                if bearing != before { directionChanged(at: time, into: &events) }
            }
        }
        for event in events { outputs.append(.event(event)) }
        if let state = stateChange(at: time) { outputs.append(.state(state)) }
    }

    /// The phone's report of its angle: see ``ProximityEngine/phoneAngle(peer:azimuthDeg:elevationDeg:measuredAt:at:)``.
    mutating func phoneAngle(azimuthDeg: Double?, elevationDeg: Double?, measuredAt: Double, at time: Double,
                             rules: Rules, into outputs: inout [ProximityOutput]) {
        var events = takePhoneAngle(azimuthDeg: azimuthDeg, elevationDeg: elevationDeg, measuredAt: measuredAt,
                                    at: time, rules: rules)
        if link == .ranging { directionChanged(at: time, into: &events) }
        for event in events { outputs.append(.event(event)) }
        if let state = stateChange(at: time) { outputs.append(.state(state)) }
    }

    /// The device link's report that ranging stopped: see ``ProximityEngine/linkLost(peer:cause:at:endsConnecting:)``.
    mutating func loseLink(_ cause: LossCause, at time: Double, endsConnecting: Bool, into outputs: inout [ProximityOutput]) {
        var events: [ProximityEvent] = []
        lose(cause, at: time, endsConnecting: endsConnecting, into: &events)
        for event in events { outputs.append(.event(event)) }
        if let state = stateChange(at: time) { outputs.append(.state(state)) }
    }

    /// New rules: the filter restarted from the current estimate when its settings changed, and
    /// each kind's tracking carried over (see ``ProximityEngine/replaceRules(_:at:)``).
    mutating func adopt(_ new: Rules, at time: Double, into outputs: inout [ProximityOutput]) {
        if !filter.matches(new.filter) {
            var restarted = DistanceFilter(new.filter)
            if let d = distance, let t = lastValid { _ = restarted.update(d, at: t) }
            filter = restarted
        }
        var events: [ProximityEvent] = []
        carryOver(to: new, at: time, into: &events)
        for event in events { outputs.append(.event(event)) }
        if let state = stateChange(at: time) { outputs.append(.state(state)) }
    }

    /// The state when a discrete field changed since it was last reported. The check runs on
    /// every measurement and builds nothing; the state (with its name lists) only on change.
    mutating func stateChange(at time: Double) -> PeerState? {
        let unchanged = reported.map { discreteMatches($0) } ?? false
        assert(unchanged == (state(at: time).discrete == reported), "discreteMatches disagrees with PeerState.discrete")
        if unchanged { return nil }
        let state = state(at: time)
        reported = state.discrete
        reportedAt = time
        return state
    }

    // `feedback` and `position` are inlined into `measure`, their one caller: called, each was
    // handed a copy of the whole tracker (some 550 bytes), which `measure` changes in place.
    @inline(__always)
    func feedback(at time: Double, inUse: RulesInUse) -> Feedback? {
        guard let d = distance else { return nil }
        // What `state(at:)` would say, without building its zone and approach lists.
        let stages = inUse.stages
        let stageName = stage.flatMap { i in stages.flatMap { $0.bands.indices.contains(i) ? $0.bands[i].name : nil } }
        let activeApproach = approachProgress
        guard stageName != nil || activeApproach != nil || facing != nil else { return nil }
        var progress = activeApproach ?? 0
        var attributes = RulesInUse.noAttributes
        if let index = stage, let stages {
            attributes = stages.bands[index].attributes
            if activeApproach == nil, let outer = stages.bounds(of: index).outer {
                let inner = stages.bounds(of: index).inner
                progress = outer > inner ? min(1, max(0, (outer - d) / (outer - inner))) : 1
            }
        }
        return Feedback(ts: time, peer: identity, stage: stageName, attributes: attributes, progress: progress,
                        facing: facing, directionSource: bearing?.source,
                        cue: facing == true ? inUse.holdingCue : nil)
    }

    @inline(__always)
    func position(at time: Double, gateway: GatewayPose?) -> Position? {
        // A phone's angle is where it points, not where it is: no position from it.
        guard let d = distance, let bearing, bearing.source == .gateway, bearing.at == time,
              let elevation = bearing.elevationDeg else { return nil }
        return Position.estimate(ts: time, peer: identity, distance: d, azimuthDeg: bearing.azimuthDeg,
                                 azimuthFOM: bearing.azimuthFOM, elevationDeg: elevation, elevationFOM: bearing.elevationFOM,
                                 distanceSigma: filter.standardDeviation, gateway: gateway)
    }
}

/// What the engine reads of the rules after every measurement and round: `feedback` follows the
/// stage band and the facing cue, rankings their rules, each tracker's deadline the timeouts.
private struct RulesInUse: Sendable {
    var stages: StageRules?
    var holdingCue: JSONValue?
    var rankings: [RankingRule]
    var timeouts: PeerTracker.Timeouts

    /// A stage without attributes of its own says `{}`.
    static let noAttributes = RenderedJSON(.object([]))

    init(_ rules: Rules) {
        stages = rules.stages
        holdingCue = rules.facing?.cues.holding
        rankings = rules.rankings
        timeouts = PeerTracker.Timeouts(rules)
    }
}
