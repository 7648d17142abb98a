/// One UWB peer (a tag, a phone) and how it moves relative to the gateway.
///
/// The path is a list of keyframes, linearly interpolated; before the first and after the last
/// the peer stays put. Angles are optional: a keyframe without `azimuth` means "no angle
/// information here", and the device reports angles only where both neighbouring keyframes
/// have one and the module has AoA.
public struct PeerTrack: Hashable, Sendable, Decodable {
    /// Short MAC address, as the host lists it in DST_MAC_ADDRESS.
    public var address: UInt16
    /// A human label (`phone-anna`); the device never transmits it.
    public var name: String?
    public var path: [Keyframe]
    /// While inside one of these the peer does not answer (status 0x21).
    public var outOfRange: [TimeWindow]
    public var nlos: [NLoSWindow]
    public var dropouts: [DropoutWindow]

    public init(address: UInt16, name: String? = nil, path: [Keyframe], outOfRange: [TimeWindow] = [],
                nlos: [NLoSWindow] = [], dropouts: [DropoutWindow] = []) {
        self.address = address
        self.name = name
        self.path = path
        self.outOfRange = outOfRange
        self.nlos = nlos
        self.dropouts = dropouts
    }

    /// A point of the path: at `t` seconds the peer is `distance` metres away, optionally seen
    /// at `azimuth` / `elevation` degrees.
    public struct Keyframe: Hashable, Sendable, Decodable {
        public var t: Double
        public var distance: Double
        public var azimuth: Double?
        public var elevation: Double?

        public init(t: Double, distance: Double, azimuth: Double? = nil, elevation: Double? = nil) {
            self.t = t
            self.distance = distance
            self.azimuth = azimuth
            self.elevation = elevation
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case t, distance, azimuth, elevation }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            t = try c.decode(Double.self, forKey: .t)
            distance = try c.decode(Double.self, forKey: .distance)
            azimuth = try c.decodeIfPresent(Double.self, forKey: .azimuth)
            elevation = try c.decodeIfPresent(Double.self, forKey: .elevation)
        }
    }

    /// Where the peer truly is at scenario time `t` (before noise).
    public struct Pose: Hashable, Sendable {
        public var distance: Double
        public var azimuth: Double?
        public var elevation: Double?
    }

    /// The interpolated pose; `path` is non-empty and ordered once validated.
    public func pose(at t: Double) -> Pose {
        guard let first = path.first, let last = path.last else { return Pose(distance: 0) }
        if t <= first.t { return Pose(distance: first.distance, azimuth: first.azimuth, elevation: first.elevation) }
        if t >= last.t { return Pose(distance: last.distance, azimuth: last.azimuth, elevation: last.elevation) }
        var upper = 1
        while upper < path.count - 1 && path[upper].t <= t { upper += 1 }
        let a = path[upper - 1], b = path[upper]
        let f = (t - a.t) / (b.t - a.t)
        func lerp(_ x: Double?, _ y: Double?) -> Double? {
            guard let x, let y else { return nil }
            return x + (y - x) * f
        }
        return Pose(distance: a.distance + (b.distance - a.distance) * f,
                    azimuth: lerp(a.azimuth, b.azimuth), elevation: lerp(a.elevation, b.elevation))
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case address, name, path
        case outOfRange = "out_of_range"
        case nlos, dropouts
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        address = try ShortAddressDecoding.decode(c, forKey: .address)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        path = try c.decode([Keyframe].self, forKey: .path)
        outOfRange = try c.decodeIfPresent([TimeWindow].self, forKey: .outOfRange) ?? []
        nlos = try c.decodeIfPresent([NLoSWindow].self, forKey: .nlos) ?? []
        dropouts = try c.decodeIfPresent([DropoutWindow].self, forKey: .dropouts) ?? []
    }

    /// The peer's label for messages: its name, else its address.
    var label: String { name ?? shortAddressText(address) }

    func validate() throws(ScenarioError) {
        let p = "peers[\(label)]"
        guard !path.isEmpty else { throw .emptyPath(peer: label) }
        for (index, k) in path.enumerated() {
            for (field, value) in [("t", k.t), ("distance", k.distance)] where !value.isFinite {
                throw .notFinite(field: "\(p).path[\(index)].\(field)")
            }
            if let az = k.azimuth, !(az.isFinite && (-180...180).contains(az)) {
                throw .outOfRange(field: "\(p).path[\(index)].azimuth", value: az, expected: "-180…180 degrees")
            }
            if let el = k.elevation, !(el.isFinite && (-90...90).contains(el)) {
                throw .outOfRange(field: "\(p).path[\(index)].elevation", value: el, expected: "-90…90 degrees")
            }
            guard k.distance >= 0 else {
                throw .outOfRange(field: "\(p).path[\(index)].distance", value: k.distance, expected: "≥ 0 metres")
            }
            if index > 0 && k.t <= path[index - 1].t { throw .keyframesOutOfOrder(peer: label, index: index) }
        }
        for (i, w) in outOfRange.enumerated() { try w.validate("\(p).out_of_range[\(i)]") }
        for (i, w) in nlos.enumerated() {
            try w.window.validate("\(p).nlos[\(i)]")
            guard w.bias.isFinite, w.bias >= 0 else {
                throw .outOfRange(field: "\(p).nlos[\(i)].bias", value: w.bias, expected: "≥ 0 metres")
            }
        }
        for (i, w) in dropouts.enumerated() {
            try w.window.validate("\(p).dropouts[\(i)]")
            guard w.probability.isFinite, (0...1).contains(w.probability) else {
                throw .outOfRange(field: "\(p).dropouts[\(i)].probability", value: w.probability, expected: "0…1")
            }
        }
    }
}
