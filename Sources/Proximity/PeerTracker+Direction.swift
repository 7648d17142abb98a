/// Direction of one peer: available only while the last angle is fresh and good enough.
extension PeerTracker {
    /// Takes the angle of a valid measurement. Without AoA capability, or with an azimuth FOM below
    /// `min_fom`, the direction is unavailable at once — the previous angle is never carried forward.
    /// A device's measurement has its angles only where the device reported them (UCI decides);
    /// the checks here hold the rule's `min_fom` and the same terms for samples given directly.
    mutating func takeAngle(_ sample: RangingSample, at time: Double, rules: Rules, deviceHasAoA: Bool) -> [ProximityEvent] {
        let minFOM = rules.direction.minFOM
        var next: Bearing? = nil
        if deviceHasAoA, let az = sample.azimuthDeg, az.isFinite, sample.azimuthFOM >= minFOM, sample.azimuthFOM > 0 {
            let elevationOK = sample.elevationDeg?.isFinite == true && sample.elevationFOM >= minFOM && sample.elevationFOM > 0
            next = Bearing(azimuthDeg: az, azimuthFOM: sample.azimuthFOM,
                           elevationDeg: elevationOK ? sample.elevationDeg : nil, elevationFOM: sample.elevationFOM, at: time)
        }
        let was = bearing != nil
        bearing = next
        if !was, let next {
            return [event(.directionAvailable, at: time, from: "unavailable", to: "available",
                          reason: EventReason(fom: next.azimuthFOM))]
        }
        if was, next == nil {
            return [event(.directionUnavailable, at: time, from: "available", to: "unavailable",
                          reason: EventReason(cause: EventReason.Cause.lowFOM.rawValue, fom: sample.azimuthFOM))]
        }
        return []
    }

    /// On a tick: an angle older than `max_age` becomes unavailable.
    mutating func expireAngle(at time: Double, rules: Rules) -> [ProximityEvent] {
        guard let bearing, time - bearing.at > rules.direction.maxAge + Self.timeSlack else { return [] }
        self.bearing = nil
        return [event(.directionUnavailable, at: time, from: "available", to: "unavailable", reason: .because(.stale))]
    }
}
