/// One message sent with the real `mosquitto_pub`: an independent client that the code under test
/// must receive from.
public enum MQTTTestPublisher {
    /// Publishes `message` to `topic` on the broker's plain port and returns when mosquitto_pub has
    /// exited 0 (for QoS 1, after the broker's PUBACK).
    public static func publish(broker: MosquittoBroker, topic: String, message: String, qos: Int = 1,
                               retain: Bool = false, extraArguments: [String] = []) async throws(TestSupportError) {
        var arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-q", String(qos), "-t", topic, "-m", message]
        if retain { arguments.append("-r") }
        arguments += extraArguments
        try await runCommand("/usr/bin/mosquitto_pub", arguments, in: broker.directory)
    }
}

extension MQTTTestPublisher {
    /// Publishes the contents of the file at `path` (`mosquitto_pub -f`): for bodies too large
    /// for a command line.
    public static func publish(broker: MosquittoBroker, topic: String, file path: String, qos: Int = 1) async throws(TestSupportError) {
        try await runCommand("/usr/bin/mosquitto_pub",
                             ["-h", "127.0.0.1", "-p", String(broker.port), "-q", String(qos), "-t", topic, "-f", path], in: broker.directory)
    }
}
