/// Direction of one peer, decided in this one place from its two sources: the device's angle of
/// arrival, where the device has one, and the angle the phone reports it sees the gateway at.
/// The device's own angle is used while it has a good one; a fresh phone angle takes over when it
/// has none. Available only while the angle in use is fresh (`max_age`) and good enough: an
/// angle is never carried forward, and one source's gap is never filled with a guess.
extension PeerTracker {
    /// Takes the angle of a valid measurement. Without AoA capability, or with an azimuth FOM below
    /// `min_fom`, the device gives no angle at once — the previous angle is never carried forward —
    /// and the phone's reported angle is used if it is fresh.
    /// A device's measurement has its angles only where the device reported them (UCI decides);
    /// the checks here hold the rule's `min_fom` and the same terms for samples given directly.
    mutating func takeAngle(_ sample: RangingSample, at time: Double, rules: Rules, deviceHasAoA: Bool) -> [ProximityEvent] {
        let minFOM = rules.direction.minFOM
        var measured: Bearing? = nil
        if deviceHasAoA, let az = sample.azimuthDeg, az.isFinite, sample.azimuthFOM >= minFOM, sample.azimuthFOM > 0 {
            let elevationOK = sample.elevationDeg?.isFinite == true && sample.elevationFOM >= minFOM && sample.elevationFOM > 0
            measured = Bearing(azimuthDeg: az, azimuthFOM: sample.azimuthFOM,
                               elevationDeg: elevationOK ? sample.elevationDeg : nil, elevationFOM: sample.elevationFOM, at: time)
        }
        let wasPhone = bearing?.source == .phone
        return settle(measured ?? freshPhoneBearing(at: time, rules: rules), at: time,
                      unavailableBecause: wasPhone ? .because(.stale) : EventReason(cause: EventReason.Cause.lowFOM.rawValue, fom: sample.azimuthFOM))
    }

    /// The phone's report: the angle at which it saw the gateway at `measuredAt` (nil azimuth: it
    /// has none now). Used at once unless the device's own angle is in use; kept otherwise, to take
    /// over when that one goes. A report dated ahead of `time` ages from `time`, so a phone's
    /// clock cannot keep an angle alive.
    mutating func takePhoneAngle(azimuthDeg: Double?, elevationDeg: Double?, measuredAt: Double, at time: Double,
                                 rules: Rules) -> [ProximityEvent] {
        phoneBearing = azimuthDeg.map {
            Bearing(azimuthDeg: $0, azimuthFOM: 0, elevationDeg: elevationDeg, elevationFOM: 0, at: min(measuredAt, time), source: .phone)
        }
        guard link == .ranging, bearing?.source != .gateway else { return [] }
        return settle(freshPhoneBearing(at: time, rules: rules), at: time,
                      unavailableBecause: .because(azimuthDeg == nil ? .noAngle : .stale))
    }

    /// On a tick: an angle older than `max_age` goes; a device's angle gives way to a fresh phone angle.
    mutating func expireAngle(at time: Double, rules: Rules) -> [ProximityEvent] {
        guard let bearing, time - bearing.at > rules.direction.maxAge + Self.timeSlack else { return [] }
        let next = bearing.source == .gateway ? freshPhoneBearing(at: time, rules: rules) : nil
        return settle(next, at: time, unavailableBecause: .because(.stale))
    }

    /// The phone's last angle while it is no older than `max_age`.
    private func freshPhoneBearing(at time: Double, rules: Rules) -> Bearing? {
        guard let phoneBearing, time - phoneBearing.at <= rules.direction.maxAge + Self.timeSlack else { return nil }
        return phoneBearing
    }

    /// Puts `next` in use, with `direction_available` or `direction_unavailable` when that changes.
    /// A change of source alone is no event: `state` says it. `why` is worked out only for an
    /// event: this runs with every measurement.
    private mutating func settle(_ next: Bearing?, at time: Double,
                                 unavailableBecause why: @autoclosure () -> EventReason) -> [ProximityEvent] {
        let was = bearing
        bearing = next
        if was == nil, let next {
            return [event(.directionAvailable, at: time, from: "unavailable", to: "available",
                          reason: EventReason(fom: next.source == .gateway ? next.azimuthFOM : nil, directionSource: next.source))]
        }
        if let was, next == nil {
            var reason = why()
            reason.directionSource = was.source
            return [event(.directionUnavailable, at: time, from: "available", to: "unavailable", reason: reason)]
        }
        return []
    }
}
