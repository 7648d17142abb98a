/// What an end-to-end test starts from: a mosquitto on a loopback port, a scratch directory named
/// after the test (`prefix`) and an independent subscriber to `topics` on the broker. The caller
/// stops the subscriber, then the broker (`defer { subscriber.stop(); broker.stop() }`); if the
/// subscriber cannot start, the broker is stopped here.
public func startBrokerAndSubscriber(prefix: String, topics: [String], broker options: MosquittoBroker.Options = .init()) async throws
    -> (broker: MosquittoBroker, directory: TemporaryDirectory, subscriber: MQTTTestSubscriber) {
    let broker = try await MosquittoBroker.start(options)
    do {
        let directory = try TemporaryDirectory(prefix: prefix)
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: topics)
        return (broker, directory, subscriber)
    } catch {
        broker.stop()
        throw error
    }
}
