import UCI

/// How many events each peer may publish: at most ``perSecond`` a second on average, in bursts of
/// up to ``burst`` (a token bucket per peer). Events are journaled while the broker is away, and
/// rules whose thresholds a noisy distance crosses at every measurement (a zone 1 mm wide, with
/// no dwell) would otherwise fill the journal in seconds; the peer's retained `state`, published
/// on every change whatever this decides, still says where it is.
///
/// What is dropped never leaves a consumer with guidance that ended: an event that ends what a
/// published event began — `zone_exit` after its `zone_enter`, `approach_completed` or
/// `approach_canceled` after `approach_ready`, `facing_lost` after `facing_gained`,
/// `direction_unavailable` after `direction_available`, `signal_regained` after `signal_lost`, a
/// `stage_change` to no stage after one into a stage — is always admitted (and charged, so that
/// the bucket stays the bound); an end whose beginning was dropped is dropped too, so that no
/// consumer sees an end of something it never saw begin.
public struct EventBudget: Sendable {
    public static let perSecond = 10.0
    public static let burst = 100.0

    private struct Bucket {
        var tokens = EventBudget.burst
        var filledAt: Double
        /// What a published event began and no published event has ended yet.
        var open: Set<Span> = []
        /// What began with a dropped event: its end is dropped too.
        var unseen: Set<Span> = []
    }

    /// What an event begins or ends: one rule of a kind (a zone, an approach), a kind's one
    /// state (the stage, facing), the direction, the link's loss.
    private struct Span: Hashable {
        /// The rule kind's key, or the engine's own: `direction`, `signal`.
        var group: String
        /// The rule's name; empty for a kind's or the engine's one state.
        var rule: String
    }

    private enum Role {
        case begins(Span)
        case ends(Span)
    }

    private var buckets: [MacAddress: Bucket] = [:]

    public init() {}

    /// Whether `event` is to be published; counts it against its peer's budget either way.
    public mutating func admit(_ event: ProximityEvent) -> Bool {
        let address = event.peer.address
        var bucket = buckets[address] ?? Bucket(filledAt: event.ts)
        defer { buckets[address] = bucket }
        if event.ts > bucket.filledAt {
            bucket.tokens = min(Self.burst, bucket.tokens + (event.ts - bucket.filledAt) * Self.perSecond)
            bucket.filledAt = event.ts
        }
        let role = Self.role(of: event)
        if case let .ends(span)? = role {
            if bucket.open.remove(span) != nil {
                bucket.tokens -= 1
                return true
            }
            if bucket.unseen.remove(span) != nil { return false }
        }
        guard bucket.tokens >= 1 else {
            if case let .begins(span)? = role, !bucket.open.contains(span) { bucket.unseen.insert(span) }
            return false
        }
        bucket.tokens -= 1
        if case let .begins(span)? = role {
            bucket.open.insert(span)
            bucket.unseen.remove(span)
        }
        return true
    }

    /// A peer the engine forgot (it left the configuration): its next events start afresh.
    public mutating func forget(_ address: MacAddress) {
        buckets[address] = nil
    }

    /// Each rule kind's events by type, with their kind's key and tone.
    private static let declared: [EventType: (group: String, tone: EventDeclaration.Tone)] = {
        var declared: [EventType: (group: String, tone: EventDeclaration.Tone)] = [:]
        for kind in RuleKinds.all {
            for declaration in kind.events { declared[declaration.type] = (kind.key, declaration.tone) }
        }
        return declared
    }()

    /// What `event` begins or ends, from its kind's declaration: what begins begins a span, what
    /// ends or completes ends it, and a change (`stage_change`) begins one unless it changes to
    /// nothing. The engine's own: a direction available begins one, a signal lost too (what
    /// ends it is `signal_regained`).
    private static func role(of event: ProximityEvent) -> Role? {
        switch event.type {
        case .directionAvailable: return .begins(Span(group: "direction", rule: ""))
        case .directionUnavailable: return .ends(Span(group: "direction", rule: ""))
        case .signalLost: return .begins(Span(group: "signal", rule: ""))
        case .signalRegained: return .ends(Span(group: "signal", rule: ""))
        default: break
        }
        guard let (group, tone) = declared[event.type] else { return nil }
        let span = Span(group: group, rule: event.rule ?? "")
        switch tone {
        case .begins: return .begins(span)
        case .ends, .completes: return .ends(span)
        case .changes: return event.to == .null ? .ends(span) : .begins(span)
        }
    }
}
