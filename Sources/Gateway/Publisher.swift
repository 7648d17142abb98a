import MQTTClient

/// Publishes through the MQTT client and keeps the delivery promises of mqtt-api.md: events and
/// retained state that cannot go out are journaled in the `Spool` and published in order when
/// the broker is back (also after a restart); live data (range, feedback, position, metrics)
/// keeps only the newest message per topic while offline, and counts what it replaced. Answers
/// to requests are QoS 1 but held like live data, never journaled (see `response`).
///
/// Owned by the agent loop; not shared.
struct Publisher {
    let client: MQTTClient
    private(set) var spool: Spool
    private(set) var connected = false
    /// Live messages waiting for the broker: newest per topic, in first-seen order.
    private var live: [String: SpooledMessage] = [:]
    private var liveOrder: [String] = []
    private(set) var liveDropped = 0
    /// Why the journal cannot be written now (a full disk), reported once when it starts and once
    /// when it ends rather than for every message; what it could not write is kept in memory.
    private(set) var journalFailure: String?
    /// The journal batch being delivered: message ids still awaiting PUBACK, and the journal
    /// sequence numbers to forget once they all arrived.
    private var batch: (pending: Set<Int>, sequences: Set<UInt64>)?
    static let batchSize = 50

    init(client: MQTTClient, spool: Spool) {
        self.client = client
        self.spool = spool
    }

    /// Messages dropped to stay bounded: superseded live data and spool overflow.
    var dropped: Int { liveDropped + spool.dropped }
    var spooled: Int { spool.count }

    /// Publishes an event or a piece of retained state (QoS 1): now if the broker has it,
    /// otherwise into the journal. Returns a problem to log, if any.
    mutating func durable(topic: String, payload: [UInt8], retain: Bool) -> String? {
        let message = SpooledMessage(topic: topic, payload: payload, qos: 1, retain: retain)
        if connected && spool.isEmpty && batch == nil {
            do {
                try client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
                return nil
            } catch .queueFull, .notConnected {
                // fall through to the journal
            } catch {
                return "cannot publish to \(topic): \(error)"
            }
        }
        do {
            try spool.append(message)
            return journalWritable()
        } catch {
            return journalFailed(error)
        }
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
    mutating func live(topic: String, payload: [UInt8], qos: Int) {
        if connected && batch == nil && spool.isEmpty {
            do {
                try client.publish(topic: topic, payload: payload, qos: qos == 0 ? .atMostOnce : .atLeastOnce)
                return
            } catch {
                // fall through: keep it for later
            }
        }
        hold(SpooledMessage(topic: topic, payload: payload, qos: qos, retain: false))
    }

    /// Publishes the answer to a request (QoS 1): now if the broker can take it, else the newest
    /// per topic waits like live data.
    ///
    /// Not journaled: an answer is for a requester waiting now, not a promise across outages, and
    /// a journal write costs an fsync. Under a flood of requests (the fault suite's 10,000 a
    /// second) answers that fell back to the journal took a millisecond each, the agent fell
    /// further behind with every one and stopped publishing anything else. Answers also take at
    /// most half of the client's QoS 1 window, so that events and state keep the rest.
    mutating func response(topic: String, payload: [UInt8]) {
        if connected && batch == nil && spool.isEmpty && client.outstandingMessageCount < answerWindow {
            do {
                try client.publish(topic: topic, payload: payload, qos: .atLeastOnce)
                return
            } catch {
                // fall through: keep it for later
            }
        }
        hold(SpooledMessage(topic: topic, payload: payload, qos: 1, retain: false))
    }

    /// The part of the client's QoS 1 window answers may take.
    private var answerWindow: Int { client.configuration.maxQueuedMessages / 2 }

    private mutating func hold(_ message: SpooledMessage) {
        if live.updateValue(message, forKey: message.topic) != nil {
            liveDropped += 1
        } else {
            liveOrder.append(message.topic)
        }
    }

    /// Publishes directly without the journal (the `online` status on every connect).
    func direct(topic: String, payload: [UInt8], retain: Bool) throws(MQTTError) {
        try client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
    }

    mutating func brokerConnected() -> String? {
        connected = true
        return deliverNextBatch()
    }

    mutating func brokerDisconnected() {
        connected = false
        // A batch in flight stays as it is: libmosquitto resends its unacknowledged QoS 1
        // messages after the reconnect, and their PUBACKs complete it. Publishing it again here
        // would deliver every message twice. (After a restart the journal still has it.)
    }

    /// A PUBACK: when the whole batch is acknowledged it leaves the journal.
    mutating func acknowledged(_ messageID: Int) -> String? {
        guard var current = batch, current.pending.remove(messageID) != nil else {
            // Outside a journal batch, an acknowledgement reopens the QoS 1 window. What waited
            // for it goes now: the journal, when an event or state found the window full while
            // connected (without this it waited for the next reconnect, and held all live data
            // with it), else the answers held meanwhile.
            guard batch == nil, connected else { return nil }
            if !spool.isEmpty {
                _ = deliverNextBatch()   // a window still full is retried at the next acknowledgement
            } else if !liveOrder.isEmpty {
                flushLive()
            }
            return nil
        }
        batch = current
        guard current.pending.isEmpty else { return nil }
        batch = nil
        // The delivered messages leave the journal in memory even when the file cannot be
        // rewritten (a full disk: the copy needs room), and delivery goes on: stopping here
        // would hold the rest of the journal and all live data back until the next reconnect.
        // The file catches up with the next rewrite that succeeds (at the latest when the journal
        // is empty, which needs no room); until then a restart would deliver some twice.
        var problem: String?
        do {
            try spool.remove(sequences: current.sequences)
            problem = journalWritable()
        } catch {
            problem = journalFailed(error)
        }
        let next = deliverNextBatch()
        return [problem, next].compactMap { $0 }.joined(separator: "; ").nilIfEmpty
    }

    private mutating func deliverNextBatch() -> String? {
        guard connected, batch == nil else { return nil }
        if spool.isEmpty {
            flushLive()
            return nil
        }
        var ids: Set<Int> = []
        var sequences: Set<UInt64> = []
        for message in spool.messages.prefix(Self.batchSize) {
            do {
                ids.insert(try client.publish(topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain))
                sequences.insert(message.sequence)
            } catch {
                break
            }
        }
        guard !sequences.isEmpty else { return "cannot deliver the journal yet" }
        batch = (ids, sequences)
        return nil
    }

    /// Sends the held live data and answers, oldest topic first. An answer that finds half the
    /// QoS 1 window taken (see `response`) or the client refusing stays held, with everything
    /// after it, until the next acknowledgement.
    private mutating func flushLive() {
        while let topic = liveOrder.first {
            guard let message = live[topic] else { liveOrder.removeFirst(); continue }
            if message.qos != 0 && client.outstandingMessageCount >= answerWindow { return }
            do {
                try client.publish(topic: message.topic, payload: message.payload,
                                   qos: message.qos == 0 ? .atMostOnce : .atLeastOnce)
            } catch .queueFull {
                return
            } catch {
                // Offline again, or refused: live data is best effort; drop it.
            }
            live.removeValue(forKey: topic)
            liveOrder.removeFirst()
        }
    }
}

private extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
