import Vocabulary

/// The rules applied to one peer, kind by kind in table order: each kind's own steps are in its
/// file (``RuleTracking``); here is only when they run.
extension PeerTracker {
    /// Evaluates every rule against the current filtered distance and direction.
    /// - Parameter measured: false on a tick, where only pending dwells may complete (the distance is
    ///   the last measured one, which still satisfied the pending change).
    mutating func evaluate(at time: Double, measured: Bool, into events: inout [ProximityEvent]) {
        guard link == .ranging, distance != nil else { return }
        eachTracking { tracking, peer in tracking.evaluate(&peer, at: time, measured: measured, into: &events) }
    }

    /// The direction changed outside a measurement (an angle aged out, a phone's report).
    mutating func directionChanged(at time: Double, into events: inout [ProximityEvent]) {
        eachTracking { tracking, peer in tracking.directionChanged(&peer, at: time, into: &events) }
    }

    /// Takes the link down and clears every rule, each with its event and `reason.cause`.
    /// `endsConnecting`: a peer whose session ends before its first good round (a phone let go
    /// for never ranging) is lost too, so that its retained state does not say `connecting` for
    /// good; otherwise a peer that never ranged has nothing to clear.
    mutating func lose(_ cause: LossCause, at time: Double, endsConnecting: Bool = false, into events: inout [ProximityEvent]) {
        guard link == .ranging || (endsConnecting && link == .connecting) else { return }
        let reason = EventReason.loss(cause)
        events.append(event(.signalLost, at: time, from: .string(link.rawValue), to: "lost", reason: .loss(cause, lastSeen: lastValid)))
        link = .lost
        lossCause = cause
        eachTracking { tracking, peer in tracking.lose(&peer, reason: reason, at: time, into: &events) }
        phoneBearing = nil
        if let lost = bearing {
            bearing = nil
            var why = reason
            why.directionSource = lost.source
            events.append(event(.directionUnavailable, at: time, from: "available", to: "unavailable", reason: why))
        }
        distance = nil
    }

    /// The rules were replaced by `rules`: every kind carried over, then, while the peer ranges,
    /// every rule evaluated against the new thresholds from the current filtered distance.
    mutating func carryOver(to rules: Rules, at time: Double, into events: inout [ProximityEvent]) {
        eachTracking { tracking, peer in tracking = tracking.carriedOver(to: rules, &peer, at: time, into: &events) }
        evaluate(at: time, measured: true, into: &events)
    }
}
