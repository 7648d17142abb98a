import Vocabulary
import DeviceLink
import EventLoop
import MQTTClient
import Service

/// Publishes through the MQTT client and keeps the delivery promises of mqtt-api.md: events and
/// retained state that cannot go out are journaled in the `Spool` and published in order when
/// the broker is back (also after a restart); live data (range, feedback, position, metrics)
/// keeps only the newest message per topic while offline, and counts what it replaced. Answers
/// to requests are QoS 1 but held like live data, never journaled (see `response`).
///
/// Live data and answers never wait behind the journal: their topics are not the journal's, so
/// there is no order between them to keep, and a range that waits for minutes of journal is of
/// no use to anyone. Durable messages keep their order: while the journal is not empty, every
/// new one is appended behind it.
///
/// On MQTT 5 every message carries the contract's properties (`ContractProperties`): live data
/// expires, answers echo their requester's correlation data.
///
/// Owned by the agent loop; not shared.
struct Publisher {
    let client: MQTTClient
    private let contract: ContractProperties
    private(set) var spool: Spool
    private(set) var connected = false
    /// Live messages and answers waiting for the broker, in first-seen order: live data and
    /// answers without an id newest per topic (the topic is the key), each answer with an id on
    /// its own (see `response`).
    private var live: [String: Held] = [:]
    private var liveOrder: [String] = []
    /// Numbers the keys of held answers with an id.
    private var answersHeld: UInt64 = 0
    private var heldBytes = 0
    private(set) var liveDropped = 0
    /// Durable messages the broker can never take (a topic longer than MQTT allows, one that
    /// libmosquitto refuses): dropped with a reason instead of blocking the journal behind them.
    private(set) var refused = 0
    private var refusals = LogThrottle()
    /// Messages the broker answered with a failure reason code (MQTT 5: e.g. 0x87, not authorized
    /// by its ACL): `publishes_refused`. Said once per topic (for the first 256 topics).
    private(set) var brokerRefused = 0
    private var brokerRefusedTopics: Set<String> = []
    /// Why the journal cannot be written now (a full disk), reported once when it starts and once
    /// when it ends rather than for every message; what it could not write is kept in memory.
    private(set) var journalFailure: String?
    /// The journal batch being delivered: message ids still awaiting PUBACK, and the sequence
    /// number of its last message, up to which the journal forgets once they all arrived.
    private var batch: (pending: Set<Int>, through: UInt64)?
    static let batchSize = 50
    /// Events and state sent straight to the broker (nothing journaled ahead of them) and not
    /// acknowledged yet, in the order sent. libmosquitto holds them in memory only: if the
    /// connection ends first they are journaled (`brokerDisconnected`), so that a crash before
    /// the reconnect loses none of them.
    private var sentUnacknowledged: [(id: Int, message: SpooledMessage)] = []
    /// Those journaled when the connection ended, first in the journal, which libmosquitto sends
    /// again on the reconnect: their message ids, and the journal sequence they end at. The
    /// journal waits for their acknowledgements and then forgets them rather than sending them a
    /// second time; after a restart it delivers them itself.
    private var resending: (pending: Set<Int>, through: UInt64)?
    /// Syncs the journal off the loop (the agent asks it after every wake-up that journaled);
    /// without one, every append is synced as it is written.
    private let journalSync: JournalSync?
    /// The largest message handed to the client on this connection, for the core's diagnosis of
    /// a broker that closes it (`brokerDisconnected`).
    private var largest: PublishedPacket?
    private var largestPayload = -1

    /// A live message or an answer waiting for the broker, with the properties it is to carry.
    private struct Held {
        var message: SpooledMessage
        var properties: PublishProperties
    }

    init(client: MQTTClient, spool: Spool, contract: ContractProperties, journalSync: JournalSync? = nil) {
        self.client = client
        self.spool = spool
        self.contract = contract
        self.journalSync = journalSync
    }

    /// Messages dropped to stay bounded or because the broker can never take them: superseded
    /// live data, journal overflow, refused messages.
    var dropped: Int { liveDropped + spool.dropped + refused }
    var spooled: Int { spool.count }
    /// Live messages and answers waiting for the broker (one per topic).
    var heldMessages: Int { liveOrder.count }

    /// Publishes an event or a piece of retained state (QoS 1): now if the broker has it and
    /// nothing journaled is ahead of it, otherwise into the journal. Returns a problem to log.
    mutating func durable(topic: String, payload: UnsafeRawBufferPointer, retain: Bool) -> String? {
        if connected && spool.isEmpty && batch == nil && resending == nil {
            do {
                let id = try publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain, properties: contract.lasting)
                sentUnacknowledged.append((id, SpooledMessage(topic: topic, payload: Array(payload), qos: 1, retain: retain)))
                return nil
            } catch .queueFull, .notConnected {
                // fall through to the journal
            } catch {
                return refuse(topic, error)
            }
        }
        var problems: [String] = []
        do {
            try spool.append(SpooledMessage(topic: topic, payload: Array(payload), qos: 1, retain: retain), sync: journalSync == nil)
            if spool.isPersisted, let problem = journalWritable() { problems.append(problem) }
        } catch {
            switch error {
            case .topicTooLong, .messageTooLarge: return refuse(topic, error)
            case .io, .locked: if let problem = journalFailed(error) { problems.append(problem) }
            }
        }
        if let notice = spool.takeNotice() { problems.append(notice) }
        return problems.joinedProblems
    }

    /// Counts a message that can never be published; the reason to log names its topic, shortened.
    private mutating func refuse(_ topic: String, _ error: any Error) -> String? {
        refused += 1
        let reason: String
        switch error {
        case let MQTTError.invalidTopic(_, why): reason = "invalid topic: \(why)"
        case let error as Spool.SpoolError: reason = "\(error)"
        default: reason = "\(error)"
        }
        let shown = topic.utf8.count > 120 ? String(topic.prefix(100)) + "… (\(topic.utf8.count) bytes)" : topic
        // One line per refused message would let a flood of them flood the log too.
        return refusals.lines(for: "dropped a message for \(shown): \(reason) (counted in dropped)", at: Clocks.monotonic()).joinedProblems
    }

    private mutating func journalFailed(_ error: Spool.SpoolError) -> String? {
        guard journalFailure == nil else { return nil }
        journalFailure = "\(error)"
        return "the journal cannot be written (\(error)); events and retained state are kept in memory only until the broker takes them"
    }

    private mutating func journalWritable() -> String? {
        guard journalFailure != nil else { return nil }
        journalFailure = nil
        return "the journal can be written again"
    }

    /// Publishes live data: now if connected, else keeps the newest per topic.
    mutating func live(topic: String, payload: UnsafeRawBufferPointer, qos: Int) {
        if connected && (qos == 0 || client.outstandingMessageCount < answerWindow) {
            do {
                try publish(topic: topic, payload: payload, qos: qos == 0 ? .atMostOnce : .atLeastOnce, properties: contract.live)
                return
            } catch .backlog {
                // Connected, but the broker does not read: held data would go out after newer
                // data once it reads again. Dropped; the next measurement follows.
                liveDropped += 1
                return
            } catch {
                // fall through: keep it for later
            }
        }
        hold(Held(message: SpooledMessage(topic: topic, payload: Array(payload), qos: qos, retain: false), properties: contract.live),
             key: topic)
    }

    /// Publishes the answer to a request (QoS 1): now if the broker can take it, else it waits
    /// with the held live data. An answer to a request with an id (`withID`) is held on its own:
    /// under a flood of malformed requests on `request/ping` the good ping's answer must not be
    /// replaced by the error answer to a request read after it. Answers to requests without an
    /// id, which no requester can tell apart, keep the newest per topic: a flood of 10,000 paced
    /// `reload_rules` holds one answer, not a thousand ahead of the next ping's.
    ///
    /// Not journaled: an answer is for a requester waiting now, not a promise across outages, and
    /// a journal write costs an fsync. Under a flood of requests (the fault suite's 10,000 a
    /// second) answers that fell back to the journal took a millisecond each, the agent fell
    /// further behind with every one and stopped publishing anything else. Answers (and QoS 1
    /// live data) also take at most half of the client's QoS 1 window, so that the journal keeps
    /// the rest.
    mutating func response(topic: String, payload: UnsafeRawBufferPointer, distinct: Bool, correlationData: [UInt8]?) {
        var properties = contract.lasting
        if let correlationData, client.speaksMQTT5 {
            do {
                properties = try contract.answer(correlationData: correlationData)
            } catch {
                // Over MQTT's 65,535 bytes: a broker could not have delivered such a request.
            }
        }
        if connected && client.outstandingMessageCount < answerWindow {
            do {
                try publish(topic: topic, payload: payload, qos: .atLeastOnce, properties: properties)
                return
            } catch {
                // fall through: keep it for later
            }
        }
        var key = topic
        if distinct {
            answersHeld &+= 1
            key += "\u{0}\(answersHeld)"
        }
        hold(Held(message: SpooledMessage(topic: topic, payload: Array(payload), qos: 1, retain: false), properties: properties), key: key)
    }

    /// The part of the client's QoS 1 window answers may take.
    private var answerWindow: Int { client.configuration.maxQueuedMessages / 2 }

    /// Held live data and answers are bounded: one message per peer topic and a few answers are
    /// far below it, a flood of requests is not; the oldest go first.
    static let maximumHeldTopics = 1000
    static let maximumHeldBytes = 1 << 20

    private mutating func hold(_ held: Held, key: String) {
        if let replaced = live.updateValue(held, forKey: key)?.message {
            liveDropped += 1
            heldBytes -= replaced.payload.count + replaced.topic.utf8.count
        } else {
            liveOrder.append(key)
        }
        heldBytes += held.message.payload.count + held.message.topic.utf8.count
        // The oldest go first: a requester waiting that long has given up.
        var dropFrom = 0
        while liveOrder.count - dropFrom > Self.maximumHeldTopics || heldBytes > Self.maximumHeldBytes,
              dropFrom < liveOrder.count - 1 {
            if let old = live.removeValue(forKey: liveOrder[dropFrom])?.message {
                heldBytes -= old.payload.count + old.topic.utf8.count
                liveDropped += 1
            }
            dropFrom += 1
        }
        if dropFrom > 0 { liveOrder.removeFirst(dropFrom) }
    }

    /// Publishes directly without the journal (the `online` status on every connect).
    mutating func direct(topic: String, payload: [UInt8], retain: Bool) throws(MQTTError) {
        try publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain, properties: contract.lasting)
    }

    /// The same, for a payload of its own (the journal's, a held message, the status).
    @discardableResult
    private mutating func publish(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool = false,
                                  properties: PublishProperties) throws(MQTTError) -> Int {
        try payload.withUnsafeBytes { bytes in
            Result { () throws(MQTTError) in try publish(topic: topic, payload: bytes, qos: qos, retain: retain, properties: properties) }
        }.get()
    }

    /// Hands a message to the client, noting the largest of this connection. An empty payload
    /// (a retained topic cleared) is no JSON and carries no properties.
    @discardableResult
    private mutating func publish(topic: String, payload: UnsafeRawBufferPointer, qos: MQTTQoS, retain: Bool = false,
                                  properties: PublishProperties) throws(MQTTError) -> Int {
        let id = try client.publish(topic: topic, payload: payload, qos: qos, retain: retain,
                                    properties: payload.isEmpty ? nil : properties)
        // One comparison per message: the packet is worked out only for a new largest payload.
        if payload.count > largestPayload {
            largestPayload = payload.count
            largest = PublishedPacket(topic: topic, payloadBytes: payload.count, qos: qos == .atMostOnce ? 0 : 1)
        }
        return id
    }

    mutating func brokerConnected() -> String? {
        connected = true
        flushLive()
        return deliverNextBatch()
    }

    /// The connection ended: the largest message sent on it, which the core names when the
    /// broker closed it soon after connecting (it may have been over the broker's limit).
    /// What was sent straight to the broker and not acknowledged is journaled (a problem to log,
    /// if the journal could not take it, goes with the packet).
    mutating func brokerDisconnected() -> (largest: PublishedPacket?, problem: String?) {
        connected = false
        defer {
            largest = nil
            largestPayload = -1
        }
        // A batch in flight stays as it is: libmosquitto resends its unacknowledged QoS 1
        // messages after the reconnect, and their PUBACKs complete it. Publishing it again here
        // would deliver every message twice. (After a restart the journal still has it.)
        return (largest, journalUnacknowledged())
    }

    /// Journals the events and state sent straight to the broker that it has not acknowledged.
    /// libmosquitto sends them again after the reconnect; when they were the journal's first
    /// records, their acknowledgements then retire them from it (`resending`). Behind records
    /// already journaled (rare: a full QoS 1 window journals while connected) they are delivered
    /// a second time after the reconnect, as QoS 1 allows.
    private mutating func journalUnacknowledged() -> String? {
        guard !sentUnacknowledged.isEmpty else { return nil }
        let first = spool.isEmpty && batch == nil && resending == nil
        var ids: Set<Int> = []
        var through: UInt64?
        var problems: [String] = []
        for (id, message) in sentUnacknowledged {
            do {
                through = try spool.append(message, sync: journalSync == nil)
                ids.insert(id)
            } catch {
                switch error {
                case .topicTooLong, .messageTooLarge: if let problem = refuse(message.topic, error) { problems.append(problem) }
                case .io, .locked: if let problem = journalFailed(error) { problems.append(problem) }
                }
            }
        }
        sentUnacknowledged = []
        if first, let through { resending = (ids, through) }
        journalSync?.request()
        if let notice = spool.takeNotice() { problems.append(notice) }
        return problems.joinedProblems
    }

    /// The broker refused a message with a failure reason code: it is not delivered and not
    /// retried. Returns the line to log, the first time for its topic.
    mutating func brokerRefused(topic: String, reasonCode: Int, reason: String) -> String? {
        brokerRefused += 1
        guard brokerRefusedTopics.count < 256, brokerRefusedTopics.insert(topic).inserted else { return nil }
        let hex = String(reasonCode, radix: 16)
        return "the broker refused a message on \(topic): \(reason) (reason code 0x\(hex)); the broker's ACL or limits may "
            + "forbid this topic. Said once per topic; every refusal is counted in metrics as publishes_refused"
    }

    /// A PUBACK: when the whole batch is acknowledged the journal forgets it.
    mutating func acknowledged(_ messageID: Int) -> String? {
        // Every acknowledgement reopens the QoS 1 window: the answers and live data held for it go
        // first, also while a journal batch is delivered (live data and answers never wait
        // behind the journal; with state journaled at every change a batch is nearly always in
        // flight after an outage, and answers held behind it waited until the journal was delivered).
        if connected { flushLive() }
        if let index = sentUnacknowledged.firstIndex(where: { $0.id == messageID }) { sentUnacknowledged.remove(at: index) }
        if var current = resending, current.pending.remove(messageID) != nil {
            guard current.pending.isEmpty else {
                resending = current
                return nil
            }
            // Sent again by libmosquitto and acknowledged: the journal forgets them, and goes on.
            resending = nil
            var problems: [String] = []
            do {
                try spool.delivered(through: current.through)
            } catch {
                if let problem = journalFailed(error) { problems.append(problem) }
            }
            if let next = deliverNextBatch() { problems.append(next) }
            return problems.joinedProblems
        }
        guard var current = batch, current.pending.remove(messageID) != nil else {
            // Outside a journal batch, what else waited for the window goes now: the journal,
            // when an event or state found the window full while connected (without this it
            // waited for the next reconnect).
            guard connected else { return nil }
            // A window still full is retried at the next acknowledgement.
            return batch == nil && resending == nil && !spool.isEmpty ? deliverNextBatch(reportingAFullWindow: false) : nil
        }
        batch = current
        guard current.pending.isEmpty else { return nil }
        batch = nil
        // The delivered messages leave the journal even when the cursor cannot be written (the
        // disk failing): delivery goes on, and a restart delivers some of them again.
        var problems: [String] = []
        do {
            try spool.delivered(through: current.through)
            if spool.isPersisted, let problem = journalWritable() { problems.append(problem) }
        } catch {
            if let problem = journalFailed(error) { problems.append(problem) }
        }
        if let next = deliverNextBatch() { problems.append(next) }
        return problems.joinedProblems
    }

    /// Publishes the next batch of the journal. A message the client refuses for good (an invalid
    /// topic, a payload too large) is dropped with a reason and counted; one it cannot take now
    /// (the window full) ends the batch, and is retried at the next acknowledgement.
    private mutating func deliverNextBatch(reportingAFullWindow: Bool = true) -> String? {
        var problems: [String] = []
        // While libmosquitto sends again what the journal's first records hold, the journal waits.
        while connected, batch == nil, resending == nil {
            let messages = spool.pending(upTo: Self.batchSize)
            guard !messages.isEmpty else { break }
            var ids: Set<Int> = []
            var through: UInt64?
            for message in messages {
                do {
                    ids.insert(try publish(topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain,
                                           properties: contract.lasting))
                    through = message.sequence
                } catch .invalidTopic(let topic, let reason) {
                    if let problem = refuse(topic, MQTTError.invalidTopic(topic: topic, reason: reason)) { problems.append(problem) }
                    through = message.sequence
                } catch .payloadTooLarge(let bytes) {
                    if let problem = refuse(message.topic, MQTTError.payloadTooLarge(bytes: bytes)) { problems.append(problem) }
                    through = message.sequence
                } catch {
                    break
                }
            }
            guard let through else {
                if reportingAFullWindow { problems.append("cannot deliver the journal yet") }
                break
            }
            if ids.isEmpty {
                // Only refused messages: nothing to wait for.
                do {
                    try spool.delivered(through: through)
                } catch {
                    if let problem = journalFailed(error) { problems.append(problem) }
                    break
                }
                continue
            }
            batch = (ids, through)
        }
        if let notice = spool.takeNotice() { problems.append(notice) }
        return problems.joinedProblems
    }

    /// Sends the held live data and answers, oldest topic first. A QoS 1 message that finds half
    /// the QoS 1 window taken (see `response`) or the client refusing stays held, with everything
    /// after it, until the next acknowledgement.
    private mutating func flushLive() {
        while let key = liveOrder.first {
            guard let held = live[key] else { liveOrder.removeFirst(); continue }
            let message = held.message
            if message.qos != 0 && client.outstandingMessageCount >= answerWindow { return }
            do {
                try publish(topic: message.topic, payload: message.payload,
                            qos: message.qos == 0 ? .atMostOnce : .atLeastOnce, properties: held.properties)
            } catch .queueFull {
                return
            } catch {
                // Offline again, or refused: live data is best effort; drop it.
            }
            live.removeValue(forKey: key)
            liveOrder.removeFirst()
            heldBytes -= message.payload.count + message.topic.utf8.count
        }
    }
}

private extension [String] {
    var joinedProblems: String? { isEmpty ? nil : joined(separator: "; ") }
}
