/// One message sent with the real `mosquitto_pub`: an independent client that the code under test
/// must receive from.
public enum MQTTTestPublisher {
    /// Publishes `message` to `topic` on the broker's plain port and returns when mosquitto_pub has
    /// exited 0 (for QoS 1, after the broker's PUBACK).
    public static func publish(broker: MosquittoBroker, topic: String, message: String, qos: Int = 1,
                               retain: Bool = false) async throws(TestSupportError) {
        var arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-q", String(qos), "-t", topic, "-m", message]
        if retain { arguments.append("-r") }
        try await runCommand("/usr/bin/mosquitto_pub", arguments, in: broker.directory)
    }
}
