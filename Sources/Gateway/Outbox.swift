import Vocabulary

/// The messages the core decided on for one input, in publishing order, their payloads written
/// one after another into one buffer that the next input reuses.
///
/// A payload of its own per message would be a heap allocation per message, two per measurement
/// (`range` and `feedback`); here the buffer grows to the largest input once and then stays.
/// `forEach` lends each payload's bytes in that buffer for the time of the call; `messages`
/// copies them out as values, for callers that keep them (replay, tests).
public struct Outbox: Sendable {
    /// How a message is to be delivered (mqtt-api.md): live data keeps only the newest per topic
    /// while the broker is away; durable messages (events, retained state) are journaled; the
    /// answer to a request goes out at QoS 1 like live data, never journaled.
    public enum Delivery: Equatable, Sendable {
        case live(qos: Int)
        case durable(retain: Bool)
        /// An answer. `distinct`: the requester tells it from the others on its topic (by an `id`
        /// or correlation data); `correlationData`: an MQTT 5 requester's, echoed as a property.
        case response(distinct: Bool, correlationData: [UInt8]? = nil)

        public var isResponse: Bool {
            if case .response = self { true } else { false }
        }
    }

    /// A message as a value, with a payload of its own.
    public struct Message: Equatable, Sendable {
        public let topic: String
        public let payload: [UInt8]
        public let delivery: Delivery

        public init(topic: String, payload: [UInt8], delivery: Delivery) {
            self.topic = topic
            self.payload = payload
            self.delivery = delivery
        }
    }

    private struct Entry: Sendable {
        let topic: String
        let payload: Range<Int>
        let delivery: Delivery
    }

    private var entries: [Entry] = []
    /// Every payload of the input, one after another; a writer continues it for each message
    /// (nil only while one does).
    private var payloads: ByteBuffer? = ByteBuffer(capacity: 4096)

    public init() {}

    /// Appends a message whose payload `write` renders into the shared buffer.
    mutating func append(topic: String, delivery: Delivery, write: (inout JSONBytes) -> Void) {
        // Taken out, so that the writer's storage is not shared with the outbox's (and copied).
        var json = JSONBytes(continuing: payloads.take()!)
        let start = json.count
        write(&json)
        entries.append(Entry(topic: topic, payload: start..<json.count, delivery: delivery))
        payloads = json.finish()
    }

    /// Appends a message with `payload` (already rendered, or empty to clear a retained topic).
    mutating func append(topic: String, delivery: Delivery, payload: [UInt8]) {
        append(topic: topic, delivery: delivery) { $0.appendRendered(payload) }
    }

    /// Calls `body` with each message in order; `payload` is valid only during the call.
    public func forEach(_ body: (_ topic: String, _ payload: UnsafeRawBufferPointer, _ delivery: Delivery) -> Void) {
        // The whole buffer lent once, and each entry's parts read where they are: a loan per
        // message, and a copy of each entry's topic and delivery, cost the agent 2.9k
        // instructions a notification of 16 messages.
        payloads!.withBytes(in: 0..<payloads!.count) { all in
            for index in entries.indices {
                body(entries[index].topic, UnsafeRawBufferPointer(rebasing: all[entries[index].payload]), entries[index].delivery)
            }
        }
    }

    /// The messages as values.
    public var messages: [Message] {
        entries.map { entry in Message(topic: entry.topic, payload: payloads!.withBytes(in: entry.payload) { Array($0) }, delivery: entry.delivery) }
    }

    /// Empties the outbox and keeps its storage for the next input.
    public mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        payloads!.removeAll()
    }
}
