import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The delivery promise of mqtt-api.md under faults: events are never lost to a broker crash or
/// an agent crash, and keep their order. Judged on the event ids `<gw>:<boot>:<n>`: per boot id
/// the counters that arrive must be 1, 2, 3, … (duplicates allowed, QoS 1 is at least once).
@Suite(.serialized, .timeLimit(.minutes(3))) struct DeliveryFaultTests {

    /// What the agent says it produced: its debug line `event <type> <peer> <rule>` per event.
    static func producedEvents(_ agent: AgentProcess) -> [String] {
        agent.logLines.compactMap { line in line.range(of: "event ").map { String(line[$0.upperBound...]) } }
            .filter { $0.split(separator: " ").count >= 2 }
    }

    /// Walk-by with a wait: Anna walks from 12 m to 2.5 m in 6 s and waits there 8 s, then walks
    /// to 8 cm in 1.5 s, holds 3 s and walks back; her tag goes out of range at 27 s. The wait is
    /// where the broker is killed: a loaded machine can notice her at 2.5 m seconds late, and the
    /// kill must still come before the zone.
    static let walkWithAPause = """
        name: walk-with-a-pause
        seed: 11
        duration: 40
        at_end: stop
        device: {aoa: false, ranging_interval: 0.1}
        noise: {sigma: 0.02, dropout_probability: 0}
        peers:
          - address: 0x0001
            name: phone-anna
            path:
              - {t: 0, distance: 12}
              - {t: 6, distance: 2.5}
              - {t: 14, distance: 2.5}
              - {t: 15.5, distance: 0.08}
              - {t: 18.5, distance: 0.08}
              - {t: 26.5, distance: 12}
              - {t: 40, distance: 12}
            out_of_range: [{from: 27, to: 40}]
          - address: 0x0002
            name: tool-cart
            path: [{t: 0, distance: 3}]
        """

    /// Broker SIGKILLed just before the zone enter, restarted on the same port after the agent
    /// produced the enter (and the stage, approach events around it) into its journal.
    ///
    /// The witness must survive the restart: mosquitto_sub with a persistent session (`-c`, fixed
    /// id, QoS 1) on a broker with persistence that saves every second. Once the session is on
    /// disk, the restarted broker knows the subscription and queues for it whatever the agent
    /// delivers, whichever of the two reconnects first — a fresh subscriber instead would race
    /// the agent's journal flush. The kill is placed while nothing is in flight (the last event
    /// before it was already received), so a gap can only be the agent's.
    @Test func aBrokerKilledDuringAZoneCrossingLosesNoEvent() async throws {
        // MosquittoBroker runs without persistence; this one saves its sessions every second.
        let persistent = try await PersistentBroker.start()
        defer { persistent.stop() }

        let dir = try TemporaryDirectory(prefix: "fault-brokerkill")
        let subscriber = try await persistent.subscriber(topics: ["uwb2mqtt/gw/peer/+/event", "uwb2mqtt/gw/peer/phone-anna/range"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: persistent.url, spool: dir.file("spool"),
                                                        extra: "rules: \(exampleRulesPath)\nlog_level: debug"),
                                     scenario: Self.walkWithAPause, directory: dir)
        defer { agent.stop() }

        // Kill while she waits at 2.5 m, once everything produced so far arrived.
        await eventually("anna within 2.6 m", timeout: 30) {
            subscriber.messages.contains { $0.topic.hasSuffix("/range") && (json($0.payload)["distance_m"] as? Double ?? 99) <= 2.6 }
        }
        await eventually("everything produced so far received", timeout: 5) {
            Set(eventIDs(subscriber).map(\.counter)).count >= Self.producedEvents(agent).count
        }
        #expect(!Self.producedEvents(agent).contains { $0.hasPrefix("zone_enter") }, "the zone enter came before the kill")
        let receivedBeforeKill = Set(eventIDs(subscriber)).count
        persistent.kill()
        await eventually("the zone enter produced while the broker is down", timeout: 30) {
            Self.producedEvents(agent).contains { $0.hasPrefix("zone_enter") } && Self.producedEvents(agent).contains { $0.hasPrefix("approach_completed") }
        }
        try await persistent.restart()

        // Walk ends with signal_lost of anna (t ≈ 29 s).
        await eventually("signal_lost of anna to arrive", timeout: 60) {
            subscriber.messages.contains { $0.topic.hasSuffix("phone-anna/event") && json($0.payload)["type"] as? String == "signal_lost" }
        }
        let produced = Self.producedEvents(agent)
        await eventually("every produced event to arrive", timeout: 10) { Set(eventIDs(subscriber)).count >= produced.count }
        // An event without a rule (signal_lost) names its peer last, with nothing after it.
        let eventLines = agent.logLines.filter { $0.contains("debug: event ") }
        #expect(eventLines.contains { $0.hasSuffix("event signal_lost phone-anna") } && !eventLines.contains { $0.hasSuffix(" ") }, "\(eventLines)")
        let ids = eventIDs(subscriber)
        #expect(Set(ids.map(\.boot)).count == 1)
        #expect(deliveryViolations(ids).isEmpty, "\(deliveryViolations(ids)) in \(ids)")
        #expect(Set(ids).count == produced.count, "produced \(produced)")
        let types = subscriber.messages.filter { $0.topic.hasSuffix("phone-anna/event") }.compactMap { json($0.payload)["type"] as? String }
        #expect(types.filter { $0 == "zone_enter" }.count >= 1)
        print("FIGURES broker-kill: \(produced.count) events produced, \(receivedBeforeKill) received before the kill, "
              + "\(ids.count) messages received (\(ids.count - Set(ids).count) duplicates), violations \(deliveryViolations(ids).count)")
    }

    /// A broker that goes on answering pings but stops acknowledging the agent's messages (as
    /// mosquitto 2.0.11 can, once it drops messages for a client): within a keepalive interval and
    /// a quarter the agent says so and connects again, the messages waiting go out once more, and
    /// no event is lost.
    @Test func aBrokerThatStopsAcknowledgingGetsANewConnection() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "fault-noacks", topics: ["uwb2mqtt/gw/peer/+/event", "uwb2mqtt/gw/metrics"])
        defer { subscriber.stop(); broker.stop() }
        let proxy = try TCPOutageProxy(to: broker.port)
        defer { proxy.stop() }
        let agent = try AgentProcess(config: testConfig(url: proxy.url, spool: dir.file("spool"),
                                                        extra: "rules: \(exampleRulesPath)\nlog_level: debug",
                                                        mqttExtra: "  keepalive: 5s\n  state_interval: 100ms"),
                                     scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }
        await eventually("the first event", timeout: 20) { !eventIDs(subscriber).isEmpty }
        proxy.withholdAcknowledgements()
        await eventually("the agent to give the silent connection up", timeout: 15) {
            agent.logLines.contains { $0.contains("the broker acknowledged none of") && $0.contains("connecting again") }
        }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/metrics", where: { (json($0.payload)["broker_reconnects"] as? Int ?? 0) >= 1 },
                                            timeout: .seconds(15))
        // The walk goes on: every event it makes arrives, in order, none missing.
        await eventually("the events after the new connection", timeout: 60) {
            let produced = Self.producedEvents(agent).count
            return produced >= 6 && Set(eventIDs(subscriber)).count >= produced
        }
        let ids = eventIDs(subscriber)
        #expect(deliveryViolations(ids).isEmpty, "\(deliveryViolations(ids)) in \(ids)")
    }

    /// Agent cut off from the broker while events happen, SIGKILLed with them in its journal; a new
    /// agent on the same spool_dir delivers them, ids carrying the first run's boot id.
    @Test func eventsJournaledByASIGKILLedAgentAreDeliveredByTheNextRun() async throws {
        let run = try await ProxiedAgent.start(prefix: "fault-agentkill", topics: ["uwb2mqtt/gw/device"])
        defer { run.stop() }
        run.proxy.cut()
        // The zone enter and the approach complete while the broker is unreachable: into the journal.
        await eventually("the zone enter and the approach in the journal", timeout: 30) {
            let text = String(decoding: journalSegments(run.journal), as: UTF8.self)
            return text.contains(#""type": "zone_enter""#) && text.contains(#""type": "approach_completed""#)
        }
        let journaled = try await run.killedAndDeliveredByTheNextRun()
        print("FIGURES agent-kill: \(journaled.count) events journaled by the first run (counters \(journaled.map(\.counter))), "
              + "\(Set(run.firstRunEvents).count) of its events delivered in all")
    }

    /// An event sent just as the network fails without a word: the agent handed it to the broker
    /// as far as it knows, and no acknowledgement comes. When the connection ends it is journaled
    /// with what the outage brings after it, so that an agent killed before the reconnect loses
    /// none of it: the next run delivers it, in order.
    @Test func anEventLostOnTheWayBeforeACrashIsDeliveredByTheNextRun() async throws {
        let run = try await ProxiedAgent.start(prefix: "fault-lost-on-the-way")
        defer { run.stop() }
        let lost = await run.eventLostOnTheWay()
        run.proxy.cut()
        await eventually("the unacknowledged event in the journal", timeout: 15) {
            Self.journaledEventIDs(run.journal).contains(lost)
        }
        _ = try await run.killedAndDeliveredByTheNextRun()
    }

    /// The same without the crash: after the reconnect libmosquitto sends the event again, its
    /// acknowledgement retires it from the journal (no second copy from there), the journal is
    /// empty again, and the next event goes straight out.
    @Test func anEventLostOnTheWayIsSentAgainOnTheReconnectAndLeavesTheJournal() async throws {
        let run = try await ProxiedAgent.start(prefix: "fault-lost-reconnect", topics: ["uwb2mqtt/gw/metrics"])
        defer { run.stop() }
        let lost = await run.eventLostOnTheWay()
        run.proxy.cut()
        await eventually("the unacknowledged event in the journal", timeout: 15) { Self.journaledEventIDs(run.journal).contains(lost) }
        run.proxy.restore()
        let subscriber = run.subscriber
        await eventually("the event delivered after the reconnect", timeout: 30) { eventIDs(subscriber).contains(lost) }
        // Once everything is acknowledged the journal is empty: the metrics after this say so.
        let seen = subscriber.messages.count
        await eventually("metrics with an empty journal", timeout: 15) {
            subscriber.messages[seen...].contains { $0.topic == "uwb2mqtt/gw/metrics" && json($0.payload)["spooled"] as? Int == 0 }
        }
        let ids = eventIDs(subscriber)
        #expect(ids.filter { $0 == lost }.count == 1, "sent once again, by libmosquitto alone: \(ids)")
        #expect(deliveryViolations(ids).isEmpty, "\(deliveryViolations(ids)) in \(ids)")
    }

    /// A broker that stops acknowledging, and the agent stopped (SIGTERM) with an event it
    /// sent still unacknowledged after its wait: the event waits in the journal, and the next
    /// run delivers it again (a second copy, as QoS 1 allows; none lost).
    @Test func anEventUnacknowledgedAtAStopIsDeliveredByTheNextRun() async throws {
        let run = try await ProxiedAgent.start(prefix: "fault-stop-unacked")
        defer { run.stop() }
        let subscriber = run.subscriber
        let delivered = eventIDs(subscriber).count
        run.proxy.withholdAcknowledgements()
        // The broker has it (the subscriber too), but the agent never hears so.
        await eventually("an event the broker does not acknowledge", timeout: 30) { eventIDs(subscriber).count > delivered }
        let unacknowledged = try #require(eventIDs(subscriber).last)
        #expect(run.first.process.terminate(grace: .seconds(10)) == .exited(0))
        #expect(run.first.log.contains("messages were not acknowledged by the broker before shutdown"))
        #expect(Self.journaledEventIDs(run.journal).contains(unacknowledged), "the event waits in the journal")

        let second = try AgentProcess(config: run.config, directory: run.directory, name: "second")
        defer { second.stop() }
        await eventually("the event delivered again by the next run", timeout: 20) {
            eventIDs(subscriber).filter { $0 == unacknowledged }.count >= 2
        }
        let firstRun = run.firstRunEvents
        #expect(deliveryViolations(firstRun).isEmpty, "\(deliveryViolations(firstRun)) in \(firstRun)")
    }

    /// A first agent walking `walkBy` with the example rules (at debug level: each event it makes
    /// is in its log) through a proxy the test can cut, its journal in the test's directory,
    /// started and past its first event; the subscriber hears its events and `topics`.
    final class ProxiedAgent {
        let broker: MosquittoBroker
        let directory: TemporaryDirectory
        let subscriber: MQTTTestSubscriber
        let proxy: TCPOutageProxy
        let config: String
        let first: AgentProcess
        let firstBoot: String
        private var second: AgentProcess?
        var journal: String { directory.file("spool") }
        /// The first run's events the subscriber heard, in order.
        var firstRunEvents: [EventID] { eventIDs(subscriber).filter { $0.boot == firstBoot } }

        private init(broker: MosquittoBroker, directory: TemporaryDirectory, subscriber: MQTTTestSubscriber, proxy: TCPOutageProxy,
                     config: String, first: AgentProcess, firstBoot: String) {
            (self.broker, self.directory, self.subscriber, self.proxy, self.config, self.first, self.firstBoot)
                = (broker, directory, subscriber, proxy, config, first, firstBoot)
        }

        static func start(prefix: String, topics: [String] = []) async throws -> ProxiedAgent {
            let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: prefix, topics: ["uwb2mqtt/gw/peer/+/event"] + topics)
            var parts: (TCPOutageProxy?, AgentProcess?) = (nil, nil)
            do {
                let proxy = try TCPOutageProxy(to: broker.port)
                parts.0 = proxy
                let config = testConfig(url: proxy.url, spool: dir.file("spool"), extra: "rules: \(exampleRulesPath)\nlog_level: debug")
                let first = try AgentProcess(config: config, scenario: AgentFixtures.walkBy, directory: dir, name: "first")
                parts.1 = first
                await eventually("the first run's first event", timeout: 20) { !eventIDs(subscriber).isEmpty }
                let boot = try #require(eventIDs(subscriber).first?.boot)
                return ProxiedAgent(broker: broker, directory: dir, subscriber: subscriber, proxy: proxy, config: config, first: first, firstBoot: boot)
            } catch {
                parts.1?.stop()
                parts.0?.stop()
                subscriber.stop()
                broker.stop()
                throw error
            }
        }

        /// Stops every process of the test, each by its PID.
        func stop() {
            second?.stop()
            first.stop()
            proxy.stop()
            subscriber.stop()
            broker.stop()
        }

        /// The next event the first run makes, once the network loses what it sends: sent, as
        /// far as the agent knows, and arriving nowhere.
        ///
        /// The event is the first the network lost, told by the proxy: the agent logs an event just
        /// after handing it to the client, and on a loaded machine the broker and the subscriber
        /// can have had it before the log says so (an event counted from the log was then one
        /// that got through, and never came to the journal).
        func eventLostOnTheWay() async -> EventID {
            proxy.loseWhatTheClientSends()
            await eventually("an event sent into the silent network", timeout: 30) { !self.lostEvents.isEmpty }
            let lost = lostEvents[0]
            #expect(!eventIDs(subscriber).contains(lost), "nothing got through the silent network")
            return lost
        }

        /// The events the network lost, in the order the agent sent them.
        var lostEvents: [EventID] {
            proxy.lostPublishes.filter { $0.topic.hasSuffix("/event") }
                .compactMap { (json(String(decoding: $0.payload, as: UTF8.self))["id"] as? String).flatMap(EventID.init) }
        }

        /// Kills the first run (SIGKILL) with what its journal holds, lets the network through again
        /// and starts a second run on the same journal: every event journaled arrives, and the first
        /// run's events run 1, 2, 3, … without a gap up to the last it journaled. Returns those journaled.
        func killedAndDeliveredByTheNextRun() async throws -> [EventID] {
            let journaled = DeliveryFaultTests.journaledEventIDs(journal)
            if journaled.isEmpty { print("first run log:\n" + first.logLines.suffix(40).joined(separator: "\n")) }
            first.process.kill(SIGKILL)
            #expect(await first.process.waitForExit(timeout: .seconds(5)) == .signaled(SIGKILL))
            #expect(!journaled.isEmpty && journaled.allSatisfy { $0.boot == firstBoot })
            proxy.restore()
            let second = try AgentProcess(config: config, directory: directory, name: "second")
            self.second = second
            let subscriber = self.subscriber
            await eventually("the journaled events delivered by the second run", timeout: 20) {
                Set(eventIDs(subscriber)).isSuperset(of: journaled)
            }
            #expect(second.log.contains("journaled messages wait for the broker"))
            let firstRun = firstRunEvents
            #expect(deliveryViolations(firstRun).isEmpty, "\(deliveryViolations(firstRun)) in \(firstRun)")
            #expect(Set(firstRun.map(\.counter)) == Set(1..<((journaled.map(\.counter).max() ?? 0) + 1)))
            return journaled
        }
    }

    /// The event ids in the journal's segments (records hold the JSON payloads as they are: `"id": "gw:…"`).
    static func journaledEventIDs(_ spool: String) -> [EventID] {
        let text = String(decoding: journalSegments(spool), as: UTF8.self)
        var ids: [EventID] = []
        var rest = text[...]
        while let start = rest.range(of: #""id": "gw:"#) {
            let tail = rest[start.upperBound...]
            guard let end = tail.firstIndex(of: "\"") else { break }
            if let id = EventID("gw:" + tail[..<end]) { ids.append(id) }
            rest = tail[end...]
        }
        return ids
    }
}

/// The bytes of the journal's segment files in `spool`, oldest first.
func journalSegments(_ spool: String) -> Data {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).filter { $0.hasSuffix(".seg") }.sorted()
    return names.reduce(into: Data()) { $0 += FileManager.default.contents(atPath: spool + "/" + $1) ?? Data() }
}

/// A mosquitto with persistence (autosave every second) on a port of its own, killed with SIGKILL
/// and restarted on the same port by the test.
final class PersistentBroker: Sendable {
    let port: UInt16
    let directory: TemporaryDirectory
    private let configPath: String
    private let process = Mutex<(child: ChildProcess?, generation: Int)>((nil, 0))

    var url: String { "mqtt://127.0.0.1:\(port)" }
    var database: String { directory.file("mosquitto.db") }

    private init(port: UInt16, directory: TemporaryDirectory, configPath: String) {
        self.port = port
        self.directory = directory
        self.configPath = configPath
    }

    static func start() async throws -> PersistentBroker {
        let directory = try TemporaryDirectory(prefix: "fault-mosquitto")
        let port = try freeLoopbackPort()
        let config = try directory.write("mosquitto.conf", [
            "user root", "persistence true", "persistence_location \(directory.path)/", "autosave_interval 1",
            "log_dest stderr", "log_type all", "listener \(port) 127.0.0.1", "allow_anonymous true",
        ].joined(separator: "\n") + "\n")
        let broker = PersistentBroker(port: port, directory: directory, configPath: config)
        try await broker.launch()
        return broker
    }

    var log: String { String(decoding: FileManager.default.contents(atPath: directory.file("mosquitto-\(process.withLock { $0.generation }).log")) ?? Data(), as: UTF8.self) }

    private func launch() async throws {
        let generation = process.withLock { state in
            state.generation += 1
            return state.generation
        }
        let child = try ChildProcess(executable: "/usr/sbin/mosquitto", arguments: ["-c", configPath],
                                     stdoutPath: directory.file("mosquitto-\(generation).out"),
                                     stderrPath: directory.file("mosquitto-\(generation).log"))
        process.withLock { $0.child = child }
        try await waitForPort(port, timeout: .seconds(10))
    }

    /// A persistent-session subscriber (`-c`, fixed client id, QoS 1), returned once the broker
    /// has saved its session to disk (so that it survives a SIGKILL).
    func subscriber(topics: [String]) async throws -> PersistentSubscriber {
        let id = "fault-sub-\(getpid())"
        var arguments = ["-h", "127.0.0.1", "-p", String(port), "-i", id, "-q", "1", "-c", "-F", "%r %t %p"]
        for topic in topics { arguments += ["-t", topic] }
        let child = try ChildProcess(executable: "/usr/bin/mosquitto_sub", arguments: arguments,
                                     stdoutPath: directory.file("\(id).out"), stderrPath: directory.file("\(id).err"))
        let subscriber = PersistentSubscriber(process: child, outputPath: directory.file("\(id).out"))
        let deadline = Date().addingTimeInterval(10)
        while !log.contains("Sending SUBACK to \(id)") {
            guard Date() < deadline else { throw TestSupportError.timedOut(waitingFor: "SUBACK", after: .seconds(10), detail: log) }
            try await Task.sleep(for: .milliseconds(20))
        }
        let subscribedAt = Date()
        while (try? FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date).flatMap({ $0 > subscribedAt }) != true {
            guard Date() < subscribedAt.addingTimeInterval(10) else { throw TestSupportError.timedOut(waitingFor: "the session saved", after: .seconds(10), detail: log) }
            try await Task.sleep(for: .milliseconds(20))
        }
        return subscriber
    }

    func kill() {
        process.withLock { $0.child }?.kill(SIGKILL)
        _ = process.withLock { $0.child }?.terminate()
    }

    func restart() async throws {
        stop()
        try await launch()
    }

    func stop() {
        let child = process.withLock { state -> ChildProcess? in
            defer { state.child = nil }
            return state.child
        }
        child?.terminate()
    }
}

/// mosquitto_sub's `%r %t %p` lines, like MQTTTestSubscriber (whose start needs a MosquittoBroker).
final class PersistentSubscriber: Sendable {
    let process: ChildProcess
    let outputPath: String

    init(process: ChildProcess, outputPath: String) {
        self.process = process
        self.outputPath = outputPath
    }

    var messages: [MQTTTestSubscriber.Message] {
        let text = String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2 else { return nil }
            return MQTTTestSubscriber.Message(topic: String(parts[1]), payload: parts.count == 3 ? String(parts[2]) : "", retained: parts[0] == "1")
        }
    }

    func stop() { process.terminate() }
}

func eventIDs(_ subscriber: PersistentSubscriber) -> [EventID] {
    subscriber.messages.filter { $0.topic.hasSuffix("/event") }.compactMap { (json($0.payload)["id"] as? String).flatMap(EventID.init) }
}
