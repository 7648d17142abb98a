import Vocabulary

/// One UWB peer (a tag, a phone) and how it moves.
///
/// The path is a list of keyframes, linearly interpolated; before the first and after the last
/// the peer stays put. A path is given in one of two frames, never both:
///
/// - gateway frame (`distance`): how far the peer is from *this* gateway, whatever gateway that
///   is. Enough for proximity rules, and it needs no configuration.
/// - site frame (`x`, `y`, optional `z`): where the peer is on the site plan. The distance is
///   then computed from the simulated gateway's own position, so several simulated gateways
///   running the same scenario report ranges that agree on one position, as real ones do.
///
/// Angles are optional and only exist in the gateway frame: a keyframe without `azimuth` means
/// "no angle information here", and the device reports angles only where both neighbouring
/// keyframes have one and the module has AoA.
public struct PeerTrack: Hashable, Sendable, Decodable {
    /// Height of a site-frame keyframe that gives no `z`, metres: about where a phone or a badge
    /// is carried, which is what a scenario author usually means by a floor-plan point.
    public static let defaultKeyframeHeight = 1.0

    /// Short MAC address, as the host lists it in DST_MAC_ADDRESS.
    public var address: UInt16
    /// A human label (`phone-anna`); the device never transmits it.
    public var name: String?
    public var path: [Keyframe]
    /// While inside one of these the peer does not answer (status 0x21).
    public var outOfRange: [TimeWindow]
    public var nlos: [NLoSWindow]
    public var dropouts: [DropoutWindow]
    /// Set when the peer is an Android phone: it then answers only a gateway session that
    /// matches its own configuration, from `phone.startAt` on.
    public var phone: ScenarioPhone?
    /// Set when the peer is an iPhone: it answers nothing until its app starts it
    /// (`SimulatedDevice.startIPhone`), then only a gateway session that matches that NISession.
    public var iPhone: ScenarioIPhone?

    public init(address: UInt16, name: String? = nil, path: [Keyframe], outOfRange: [TimeWindow] = [],
                nlos: [NLoSWindow] = [], dropouts: [DropoutWindow] = [], phone: ScenarioPhone? = nil,
                iPhone: ScenarioIPhone? = nil) {
        self.address = address
        self.name = name
        self.path = path
        self.outOfRange = outOfRange
        self.nlos = nlos
        self.dropouts = dropouts
        self.phone = phone
        self.iPhone = iPhone
    }

    /// A point of the path: at `t` seconds the peer is at `place`, optionally seen at
    /// `azimuth` / `elevation` degrees (gateway frame only).
    public struct Keyframe: Hashable, Sendable, Decodable {
        public var t: Double
        public var place: Place
        public var azimuth: Double?
        public var elevation: Double?

        /// Where a keyframe puts the peer. An enum rather than optional fields so that a keyframe
        /// with both a distance and a site position cannot be built in code; the decoder rejects
        /// such a keyframe with a message.
        public enum Place: Hashable, Sendable {
            /// Metres from the gateway, whichever gateway simulates it.
            case distance(Double)
            /// A point in the site frame; each gateway measures its own distance to it.
            case site(SitePoint)
        }

        /// A gateway-frame keyframe: `distance` metres away.
        public init(t: Double, distance: Double, azimuth: Double? = nil, elevation: Double? = nil) {
            self.t = t
            place = .distance(distance)
            self.azimuth = azimuth
            self.elevation = elevation
        }

        /// A site-frame keyframe: at (`x`, `y`, `z`) metres; `z` defaults to 1.0 m.
        public init(t: Double, x: Double, y: Double, z: Double = PeerTrack.defaultKeyframeHeight) {
            self.t = t
            place = .site(SitePoint(x: x, y: y, z: z))
        }

        /// The distance of a gateway-frame keyframe, nil in the site frame.
        public var distance: Double? { if case let .distance(d) = place { d } else { nil } }
        /// The position of a site-frame keyframe, nil in the gateway frame.
        public var sitePosition: SitePoint? { if case let .site(p) = place { p } else { nil } }

        enum CodingKeys: String, CodingKey, CaseIterable { case t, distance, x, y, z, azimuth, elevation }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            t = try c.decode(Double.self, forKey: .t)
            let distance = try c.decodeIfPresent(Double.self, forKey: .distance)
            let x = try c.decodeIfPresent(Double.self, forKey: .x)
            let y = try c.decodeIfPresent(Double.self, forKey: .y)
            let z = try c.decodeIfPresent(Double.self, forKey: .z)
            switch (distance, x, y, z) {
            case let (distance?, nil, nil, nil):
                place = .distance(distance)
            case let (nil, x?, y?, z):
                place = .site(SitePoint(x: x, y: y, z: z ?? PeerTrack.defaultKeyframeHeight))
            default:
                // Both kinds, neither, or half a position: guessing which was meant would
                // simulate something the author did not write.
                let error = ScenarioError.keyframePlace(field: codingPathText(decoder.codingPath))
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
            }
            azimuth = try c.decodeIfPresent(Double.self, forKey: .azimuth)
            elevation = try c.decodeIfPresent(Double.self, forKey: .elevation)
        }
    }

    /// Where the peer truly is at scenario time `t` as one gateway sees it (before noise).
    public struct Pose: Hashable, Sendable {
        public var distance: Double
        public var azimuth: Double?
        public var elevation: Double?
    }

    /// True when the path is given in site coordinates (judged by its first keyframe; a
    /// validated path has one kind throughout).
    public var isSiteFrame: Bool { path.first?.sitePosition != nil }

    /// The interpolated site position at `t`; nil for a gateway-frame path.
    public func position(at t: Double) -> SitePoint? {
        guard let (a, b, f) = segment(at: t), let pa = a.sitePosition, let pb = b.sitePosition else { return nil }
        return pa.interpolated(to: pb, f)
    }

    /// The interpolated pose at `t` as seen from a gateway at `gateway`.
    ///
    /// A site-frame path is interpolated in the site frame first (a peer walks straight lines on
    /// the floor, not straight lines in distance) and then measured from `gateway`; such a path
    /// carries no angles. Returns nil only for a site-frame path without a gateway position,
    /// which `SimulatedDevice` refuses at creation, so a running device never sees nil.
    public func pose(at t: Double, from gateway: SitePoint? = nil) -> Pose? {
        guard let (a, b, f) = segment(at: t) else { return nil }
        switch (a.place, b.place) {
        case let (.distance(da), .distance(db)):
            func lerp(_ x: Double?, _ y: Double?) -> Double? {
                guard let x, let y else { return nil }
                return x + (y - x) * f
            }
            return Pose(distance: da + (db - da) * f,
                        azimuth: lerp(a.azimuth, b.azimuth), elevation: lerp(a.elevation, b.elevation))
        case let (.site(pa), .site(pb)):
            guard let gateway else { return nil }
            return Pose(distance: pa.interpolated(to: pb, f).distance(to: gateway))
        default:
            return nil  // mixed kinds: rejected by validation
        }
    }

    /// The keyframes around `t` and the fraction of the way from the first to the second;
    /// clamped to the first or last keyframe outside the path. Nil for an empty path.
    private func segment(at t: Double) -> (Keyframe, Keyframe, Double)? {
        guard let first = path.first, let last = path.last else { return nil }
        if t <= first.t { return (first, first, 0) }
        if t >= last.t { return (last, last, 0) }
        var upper = 1
        while upper < path.count - 1 && path[upper].t <= t { upper += 1 }
        let a = path[upper - 1], b = path[upper]
        return (a, b, (t - a.t) / (b.t - a.t))
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case address, name, path
        case outOfRange = "out_of_range"
        case nlos, dropouts, phone
        case iPhone = "iphone"
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
        phone = c.contains(.phone) ? try ScenarioPhone(from: c.superDecoder(forKey: .phone), peerAddress: address) : nil
        iPhone = c.contains(.iPhone) ? try ScenarioIPhone(from: c.superDecoder(forKey: .iPhone)) : nil
    }

    /// The peer's label for messages: its name, else its address.
    var label: String { name ?? shortAddressText(address) }

    func validate() throws(ScenarioError) {
        let p = "peers[\(label)]"
        guard !path.isEmpty else { throw .emptyPath(peer: label) }
        let siteFrame = isSiteFrame
        for (index, k) in path.enumerated() {
            let field = "\(p).path[\(index)]"
            guard k.t.isFinite else { throw .notFinite(field: field + ".t") }
            guard (k.sitePosition != nil) == siteFrame else { throw .mixedKeyframeKinds(peer: label, index: index) }
            switch k.place {
            case let .distance(distance):
                guard distance.isFinite else { throw .notFinite(field: field + ".distance") }
                guard distance >= 0 else {
                    throw .outOfRange(field: field + ".distance", value: distance, expected: "≥ 0 metres")
                }
            case let .site(position):
                for (axis, value) in [("x", position.x), ("y", position.y), ("z", position.z)] where !value.isFinite {
                    throw .notFinite(field: field + "." + axis)
                }
                // Angles depend on the gateway's heading, which one scenario shared by several
                // gateways cannot know: a site-frame keyframe with angles would be a lie.
                guard k.azimuth == nil, k.elevation == nil else { throw .siteKeyframeWithAngles(peer: label, index: index) }
            }
            if let az = k.azimuth, !(az.isFinite && (-180...180).contains(az)) {
                throw .outOfRange(field: field + ".azimuth", value: az, expected: "-180…180 degrees")
            }
            if let el = k.elevation, !(el.isFinite && (-90...90).contains(el)) {
                throw .outOfRange(field: field + ".elevation", value: el, expected: "-90…90 degrees")
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
        guard phone == nil || iPhone == nil else { throw .twoPhoneKinds(peer: label) }
        try iPhone?.validate(field: "\(p).iphone")
        if let phone {
            try phone.validate(field: "\(p).phone")
            let own = UWBAddress(shortAddress: address)
            guard phone.parameters.address == own else {
                throw .invalidValue(field: "\(p).phone.address", value: phone.parameters.address.description,
                                    expected: "the peer's address, \"\(own)\" in wire order")
            }
        }
    }
}
