import MQTTClient
import Testing

/// `mqtt.url` parsing and configuration checks: bad input must be a clear, typed error.
@Suite struct ConfigurationTests {
    @Test(arguments: [
        ("mqtt://broker", "broker", 1883, false),
        ("mqtts://broker", "broker", 8883, true),
        ("mqtt://127.0.0.1:1884/", "127.0.0.1", 1884, false),
        ("MQTTS://Broker.example:8884", "Broker.example", 8884, true),
        ("mqtt://[::1]:1885", "::1", 1885, false),
        ("mqtt://[fe80::1]", "fe80::1", 1883, false),
    ])
    func parsesValidURLs(url: String, host: String, port: Int, tls: Bool) throws {
        let address = try MQTTBrokerAddress(url: url)
        #expect(address == MQTTBrokerAddress(host: host, port: port, useTLS: tls))
    }

    @Test(arguments: [
        ("", "empty"),
        ("broker:1883", "missing scheme"),
        ("tcp://broker:1883", "unsupported scheme 'tcp'"),
        ("mqtt://", "missing host"),
        ("mqtt://:1883", "missing host"),
        ("mqtt://broker:", "missing port"),
        ("mqtt://broker:0", "port 0 is out of range"),
        ("mqtt://broker:65536", "port 65536 is out of range"),
        ("mqtt://broker:http", "not a number"),
        ("mqtt://broker/uwb", "path"),
        ("mqtt://::1:1883", "brackets"),
        ("mqtt://bro ker", "whitespace"),
        ("mqtt://[::1", "unterminated"),
    ])
    func rejectsInvalidURLs(url: String, expected: String) {
        #expect {
            try MQTTBrokerAddress(url: url)
        } throws: { error in
            guard case .invalidURL(_, let reason) = error as? MQTTError else { return false }
            return reason.contains(expected)
        }
    }

    @Test func credentialsInTheURLAreRefusedAndNotEchoed() {
        let url = "mqtt://gateway:hunter2@broker:1883"
        #expect {
            try MQTTBrokerAddress(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains("credentials") && !text.contains("hunter2") && text.contains("***@broker")
        }
    }

    @Test func passwordIsNeverPrintedOrDumped() throws {
        var configuration = try MQTTConfiguration(url: "mqtt://broker")
        configuration.username = "gateway"
        configuration.password = "hunter2"
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!"\(configuration)".contains("hunter2"))
        #expect(!String(reflecting: configuration).contains("hunter2"))
        #expect(!dumped.contains("hunter2"))
        #expect("\(configuration)".contains("<redacted>"))
    }

    @Test func inconsistentConfigurationsAreRejected() throws {
        func expectInvalid(_ containing: String, _ adjust: (inout MQTTConfiguration) -> Void) throws {
            var configuration = try MQTTConfiguration(url: "mqtts://broker")
            adjust(&configuration)
            #expect {
                try configuration.validate()
            } throws: { error in
                "\(error)".contains(containing)
            }
        }
        try expectInvalid("needs a username") { $0.password = "x" }
        try expectInvalid("together") { $0.certFile = "/etc/hostname" }
        try expectInvalid("keepalive") { $0.keepaliveSeconds = 3 }
        try expectInvalid("maxQueuedMessages") { $0.maxQueuedMessages = 0 }
        try expectInvalid("reconnect delays") { $0.reconnectDelayMaxSeconds = 0 }
        try expectInvalid("cannot read the CA file /nonexistent/ca.pem") { $0.caFile = "/nonexistent/ca.pem" }
        try expectInvalid("wildcards") { $0.will = MQTTWill(topic: "status/+", payload: "x") }
        var plain = try MQTTConfiguration(url: "mqtt://broker")
        plain.caFile = "/etc/hostname"
        #expect(throws: MQTTError.invalidConfiguration("ca_file/cert_file/key_file need an mqtts:// URL, not mqtt://broker:1883")) {
            try plain.validate()
        }
    }

    @Test func clientRefusesBadTopicsWithoutABroker() async throws {
        let client = try TestClient(configuration: MQTTConfiguration(url: "mqtt://127.0.0.1:1"), log: EventLog())
        #expect { try client.publish(topic: "a/#", payload: "x") } throws: { error in
            guard case .invalidTopic(let topic, _) = error as? MQTTError else { return false }
            return topic == "a/#"
        }
        // A wildcard anywhere, also next to multi-byte UTF-8, is refused before libmosquitto sees it.
        for topic in ["+", "a/+/b", "küche/#", "ä+ö"] {
            #expect { try client.publish(topic: topic, payload: "x") } throws: { error in
                guard case .invalidTopic(let refused, let reason) = error as? MQTTError else { return false }
                return refused == topic && reason.contains("wildcards")
            }
        }
        // A valid non-ASCII topic passes the checks and reaches libmosquitto: not connected, not invalid.
        #expect(throws: MQTTError.notConnected) { try client.publish(topic: "küche/温度", payload: "x") }
        #expect { try client.publish(topic: "", payload: "x") } throws: { error in
            guard case .invalidTopic = error as? MQTTError else { return false }
            return true
        }
        #expect { try client.subscribe(topic: "a/#/b") } throws: { error in
            guard case .invalidTopic = error as? MQTTError else { return false }
            return true
        }
        await client.disconnect()
        #expect(throws: MQTTError.closed) { try client.publish(topic: "a", payload: "x", qos: .atLeastOnce) }
        #expect(throws: MQTTError.closed) { try client.start() }
    }
}
