import Vocabulary

/// The rule evaluation of one peer: zones with hysteresis and dwell, stages with hysteresis,
/// approaches, facing, and the clearing of all of them when the link is lost.
extension PeerTracker {
    /// Evaluates every rule against the current filtered distance and direction.
    /// - Parameter measured: false on a tick, where only pending dwells may complete (the distance is
    ///   the last measured one, which still satisfied the pending change).
    mutating func evaluate(at time: Double, rules: Rules, measured: Bool) -> [ProximityEvent] {
        guard link == .ranging, let d = distance else { return [] }
        var events: [ProximityEvent] = []
        for (i, rule) in rules.zones.enumerated() {
            guard var track = zones[i] else { continue }
            let changing = track.inside ? d > rule.exitBeyond : d <= rule.enterWithin
            if !changing {
                track.crossedAt = nil
            } else {
                let crossedAt = track.crossedAt ?? time
                if time - crossedAt >= rule.dwell - Self.timeSlack {
                    track.inside.toggle()
                    track.crossedAt = nil
                    events.append(event(track.inside ? .zoneEnter : .zoneExit, at: time, rule: rule.name,
                                        from: track.inside ? "outside" : "inside", to: track.inside ? "inside" : "outside",
                                        reason: EventReason(thresholdM: track.inside ? rule.enterWithin : rule.exitBeyond,
                                                            dwellMs: TimeSpan(seconds: rule.dwell).milliseconds,
                                                            crossedAt: crossedAt)))
                } else {
                    track.crossedAt = crossedAt
                }
            }
            zones[i] = track
        }
        guard measured else { return events }

        if let stages = rules.stages {
            events.appendIfAny(moveStage(to: stages.band(at: d, from: stage), at: time, rules: rules, reason: nil))
        }

        for (i, rule) in rules.approaches.enumerated() {
            guard let phase = approaches[i] else { continue }
            var next = phase
            if next == .idle, d <= rule.startWithin {
                next = .ready
                events.append(event(.approachReady, at: time, rule: rule.name, from: "idle", to: "ready",
                                    reason: EventReason(thresholdM: rule.startWithin, crossedAt: time)))
            }
            if next == .ready, d <= rule.confirmWithin {
                next = .completed
                events.append(event(.approachCompleted, at: time, rule: rule.name, from: "ready", to: "completed",
                                    reason: EventReason(thresholdM: rule.confirmWithin, crossedAt: time)))
            } else if next == .ready, d > rule.cancelBeyond {
                next = .idle
                events.append(event(.approachCanceled, at: time, rule: rule.name, from: "ready", to: "idle",
                                    reason: EventReason(thresholdM: rule.cancelBeyond, crossedAt: time)))
            } else if next == .completed, d > rule.startWithin {
                next = .idle  // re-armed: a new approach can complete
            }
            approaches[i] = next
        }

        events.appendIfAny(updateFacing(at: time, rules: rules))
        return events
    }

    /// Moves to stage band `next`, with its `stage_change`. `reason` overrides the crossed boundary.
    mutating func moveStage(to next: Int?, at time: Double, rules: Rules, reason: EventReason?,
                            fromName: String?? = nil) -> [ProximityEvent] {
        let bands = rules.stages?.bands ?? []
        let oldName = fromName ?? stage.flatMap { bands.indices.contains($0) ? bands[$0].name : nil }
        let newName = next.map { bands[$0].name }
        let old = stage
        stage = next
        guard oldName != newName else { return [] }
        var why = reason ?? EventReason(crossedAt: time)
        if reason == nil, let old, let next, old != next {
            // The boundary last crossed: the nearer band's upper bound when moving in, the new band's
            // lower bound when moving out.
            why.thresholdM = next > old ? bands[next - 1].beyond : bands[next].beyond
        }
        return [event(.stageChange, at: time, from: oldName.map(JSONValue.string) ?? .null,
                      to: newName.map(JSONValue.string) ?? .null, reason: why)]
    }

    /// Re-evaluates facing from the current direction and stage.
    mutating func updateFacing(at time: Double, rules: Rules, lossReason: EventReason? = nil) -> [ProximityEvent] {
        var next: Bool? = nil
        var tolerance: Double? = nil
        if link == .ranging, let bearing, let t = rules.facingTolerance(inStage: stage) {
            tolerance = t
            next = bearing.faces(within: t)
        }
        let old = facing
        facing = next
        let cues = rules.facing?.cues ?? FacingCues()
        let from: JSONValue = old.map(JSONValue.bool) ?? .null
        let to: JSONValue = next.map(JSONValue.bool) ?? .null
        if next == true, old != true {
            return [event(.facingGained, at: time, from: from, to: to,
                          reason: EventReason(toleranceDeg: tolerance, azimuthDeg: bearing?.azimuthDeg), cue: cues.gained)]
        }
        if old == true, next != true {
            let reason = next == false ? EventReason(toleranceDeg: tolerance, azimuthDeg: bearing?.azimuthDeg)
                                       : lossReason ?? .because(.directionUnavailable)
            return [event(.facingLost, at: time, from: from, to: to, reason: reason, cue: cues.lost)]
        }
        return []
    }

    /// Takes the link down and clears every rule, each with its event and `reason.cause`.
    /// `endsConnecting`: a peer whose session ends before its first good round (a phone let go
    /// for never ranging) is lost too, so that its retained state does not say `connecting` for
    /// good; otherwise a peer that never ranged has nothing to clear.
    mutating func lose(_ cause: LossCause, at time: Double, rules: Rules, endsConnecting: Bool = false) -> [ProximityEvent] {
        guard link == .ranging || (endsConnecting && link == .connecting) else { return [] }
        let reason = EventReason.loss(cause)
        var events = [event(.signalLost, at: time, from: .string(link.rawValue), to: "lost", reason: .loss(cause, lastSeen: lastValid))]
        link = .lost
        lossCause = cause
        for (i, rule) in rules.zones.enumerated() {
            guard var track = zones[i] else { continue }
            track.crossedAt = nil
            if track.inside {
                track.inside = false
                events.append(event(.zoneExit, at: time, rule: rule.name, from: "inside", to: "outside", reason: reason))
            }
            zones[i] = track
        }
        events.appendIfAny(moveStage(to: nil, at: time, rules: rules, reason: reason))
        for (i, rule) in rules.approaches.enumerated() {
            guard let phase = approaches[i] else { continue }
            if phase == .ready {
                events.append(event(.approachCanceled, at: time, rule: rule.name, from: "ready", to: "idle", reason: reason))
            }
            approaches[i] = .idle
        }
        events.appendIfAny(updateFacing(at: time, rules: rules, lossReason: reason))
        phoneBearing = nil
        if let lost = bearing {
            bearing = nil
            var why = reason
            why.directionSource = lost.source
            events.append(event(.directionUnavailable, at: time, from: "available", to: "unavailable", reason: why))
        }
        distance = nil
        return events
    }
}
