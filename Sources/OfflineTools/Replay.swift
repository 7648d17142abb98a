import DeviceLink
import Vocabulary
import Gateway
import Proximity
import Recording
import UCI

/// Recorded UCI packets through the same code the agent runs — the device intake (the
/// reassembler and the typed decoder, `DeviceIntake`, with the recording's `RecordedSession`)
/// and the agent's core (`AgentCore`: the proximity engine and every payload) —
/// producing the messages the agent would have published, and what a plot of the run needs.
///
/// The core gets the inputs the agent's shell gives it — rounds, a stopped session, time passed —
/// through the same `handle`, dated on the recording's one timeline (`AgentMoment.at`).
/// Time is the recording's: between packets the core is ticked at each of its deadlines (a
/// signal loss, a dwell, an ageing angle), as the agent's timer does. The replay ends with the
/// last packet: the end of a recording is the end of what is known, not silence of the tags, so
/// nothing is decided or dated after it (a tag that went quiet inside the recording is still
/// lost, by the ticks up to the next packet).
public struct Replay {
    public struct Outcome: Sendable {
        /// Event payloads in order, as published on the `event` topics (JSON text).
        public var events: [String]
        /// Every message the agent would have published, in order, with the recorded time of the
        /// input that produced it; only when `keepsMessages`.
        public var messages: [(time: Double, message: Outbox.Message)]
        /// Every event with the peer segment it belongs to (for `--compare`).
        public var typedEvents: [ProximityEvent]
        public var plot: PlotData
        /// Packets that did not decode, and recording damage, for stderr.
        public var problems: [String]
        public var packets: Int
    }

    let rules: Rules
    let peers: PeerDirectory
    let configuredPeers: [PeerIdentity]
    let configuredPeerList: [AgentConfiguration.Peer]
    let gatewayID: String
    let topics: TopicTree
    let sessionID: UInt32
    let deviceHasAoA: Bool
    /// Collects every message in `Outcome.messages` (`replay --topics`; a long recording makes millions).
    let keepsMessages: Bool

    public init(rules: Rules, peers: [AgentConfiguration.Peer], gatewayID: String = "replay", topics: TopicTree? = nil,
                sessionID: UInt32 = 0, deviceHasAoA: Bool = false, keepsMessages: Bool = false) {
        self.sessionID = sessionID
        self.topics = topics ?? TopicTree(base: "uwb2mqtt", gatewayID: gatewayID)
        self.keepsMessages = keepsMessages
        self.rules = rules
        self.peers = PeerDirectory(peers)
        configuredPeers = peers.map { PeerIdentity(address: .short($0.address.value), name: $0.name) }
        configuredPeerList = peers
        self.gatewayID = gatewayID
        self.deviceHasAoA = deviceHasAoA
    }

    /// Runs the items of a recording; `progress` is called with the fraction done.
    public func run(_ items: some Sequence<RecordingItem>, title: String, progress: (Int) -> Void = { _ in }) -> Outcome {
        var core = AgentCore(settings: AgentCore.Settings(topics: topics,
                                                          eventIDPrefix: "\(gatewayID):replay", sessionID: sessionID, qosRanges: 0,
                                                          stateIntervalSeconds: 1),
                             peers: configuredPeerList, identities: configuredPeers, gateway: nil)
        core.setDeviceHasAoA(deviceHasAoA)
        core.keepsEvents = true
        var intake = DeviceIntake()
        var session = RecordedSession()
        var events: [String] = []
        var messages: [(time: Double, message: Outbox.Message)] = []
        var typed: [ProximityEvent] = []
        var problems: [String] = []
        var series: [MacAddress: PlotData.Peer] = [:]
        var order: [MacAddress] = []
        var lostSince: [MacAddress: Double] = [:]
        var firstTime: Double?
        var lastTime = 0.0
        var packets = 0

        func entry(_ address: MacAddress) -> PlotData.Peer {
            if let existing = series[address] { return existing }
            order.append(address)
            return PlotData.Peer(name: peers.names(of: address).name, bands: bands(for: peers.identity(of: address)))
        }

        /// What the core decided for the input at `time`: its messages, and its events for the plot.
        func collect(at time: Double) {
            for message in core.take() {
                if keepsMessages { messages.append((time, message)) }
                if message.topic.hasSuffix("/event") { events.append(String(decoding: message.payload, as: UTF8.self)) }
            }
            for event in core.takeEvents() {
                typed.append(event)
                var peer = entry(event.peer.address)
                let label = [event.type.rawValue, event.rule, event.to.plainText].compactMap { $0 }.joined(separator: " ")
                peer.events.append(.init(time: event.ts, type: event.type.rawValue, label: label, tone: Self.tones[event.type.rawValue] ?? .other))
                if event.type == .signalLost { lostSince[event.peer.address] = event.ts }
                if event.type == .signalRegained, let since = lostSince.removeValue(forKey: event.peer.address) {
                    peer.gaps.append(.init(from: since, to: event.ts))
                }
                series[event.peer.address] = peer
            }
        }

        func tick(until time: Double) {
            // A tick at a deadline acts on it, so the next one is later; should one not be, the
            // next packet's time takes it rather than this loop running on.
            var ticked = -Double.infinity
            while let deadline = core.nextDeadline, deadline <= time, deadline > ticked {
                core.handle(.timePassed(publisher: PublisherFigures()), at: .at(deadline))
                collect(at: deadline)
                ticked = deadline
            }
        }

        /// The recording's time reaches `time`: the rules take effect at its first record, as in
        /// an agent that starts with the recording, and what came due before it is decided first.
        func advance(to time: Double) {
            if firstTime == nil {
                firstTime = time
                core.replaceRules(rules, at: time)
                collect(at: time)
            }
            tick(until: time)
            lastTime = max(lastTime, time)
        }

        for item in items {
            switch item {
            case let .problem(problem):
                problems.append("recording: \(problem)")
            case let .packet(packet) where packet.flags.contains(.agentInput):
                // A phone's session or report, as the agent took it: given to the core the same way.
                let time = packet.receiveSeconds
                guard let input = RecordedInput(bytes: packet.bytes) else {
                    problems.append("recording: an agent input at byte \(packet.offset) of \(packet.file) is not one this replay knows; skipped")
                    continue
                }
                advance(to: time)
                switch input {
                case let .phoneJoined(name, address, sessionID):
                    session.phones.insert(.short(address))
                    core.addPhone(name: name, address: address, sessionID: sessionID, at: time)
                case let .phoneMoved(name, from, to, sessionID):
                    session.phones.remove(.short(from))
                    session.phones.insert(.short(to))
                    core.movePhone(name: name, from: from, to: to, sessionID: sessionID, at: time)
                case let .phoneLeft(address):
                    session.phones.remove(.short(address))
                    core.phoneLeft(address: address, at: time)
                case let .phoneReported(address, azimuth, elevation, measuredAt):
                    core.phoneReported(address: address, azimuthDeg: azimuth, elevationDeg: elevation, measuredAt: measuredAt, at: time)
                }
                collect(at: time)
            case let .packet(packet):
                packets += 1
                if packets % 512 == 0 { progress(packets) }
                let time = packet.receiveSeconds
                advance(to: time)
                for report in intake.take(packet.bytes, at: time, session: &session) {
                    switch report {
                    case let .log(_, line):
                        problems.append(line)
                    case let .measurements(info, _, _, _):
                        core.handle(.device(report), at: .at(time))
                        collect(at: time)
                        for m in info.twoWayMeasurements {
                            let identity = peers.identity(of: m.macAddress)
                            var peer = entry(m.macAddress)
                            let distance = m.validDistanceMeters
                            let ok = distance != nil
                            peer.raw.append(.init(time: time, meters: distance, ok: ok))
                            if ok, let filtered = core.engine.state(of: identity, at: time)?.distanceM {
                                peer.filtered.append(.init(time: time, meters: filtered))
                            }
                            series[m.macAddress] = peer
                        }
                    default:
                        core.handle(.device(report), at: .at(time))
                        collect(at: time)
                    }
                }
            }
        }
        for (address, since) in lostSince {
            series[address]?.gaps.append(.init(from: since, to: nil))
        }
        let plot = PlotData(title: title, subtitle: "\(packets) packets · \(events.count) events",
                            startTime: firstTime, endTime: lastTime, peers: order.compactMap { series[$0] })
        return Outcome(events: events, messages: messages, typedEvents: typed, plot: plot, problems: problems, packets: packets)
    }

    /// The rule thresholds that apply to `peer`, as horizontal bands on its plot: each rule
    /// kind's bands (`RuleKind.bands`), coloured by the kind's place in the table.
    func bands(for peer: PeerIdentity) -> [PlotData.Band] {
        RuleKinds.all.enumerated().flatMap { order, kind in
            kind.bands(in: rules).filter { $0.peers.matches(peer) }.map {
                PlotData.Band(name: $0.name, low: $0.low, high: $0.high, kind: kind.noun, kindOrder: order)
            }
        }
    }

    /// Each event type's tone, as its rule kind (or the engine) declares it.
    static let tones: [String: PlotData.Event.Tone] = Dictionary(uniqueKeysWithValues: RuleKinds.events.map { declaration in
        let tone: PlotData.Event.Tone = switch declaration.tone {
        case .begins: .begins
        case .ends: .ends
        case .completes: .completes
        case .changes: .changes
        }
        return (declaration.type.rawValue, tone)
    })
}

extension JSONValue {
    /// A short text for plot labels: strings bare, null as "null".
    package var plainText: String {
        switch self {
        case let .string(s): s
        case .null: "null"
        default: json
        }
    }
}
