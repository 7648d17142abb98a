import MQTTClient

/// A feature of the agent beside its core: it declares the MQTT topics it listens to and hears
/// of the moments of the agent it cares about. The agent lists its components once
/// (`Agent.makeComponents`); adding a feature adds a file and a line there and touches no other
/// feature. Components run on the agent's loop and reach the agent through the `Agent` they are
/// given (publishing, the core's state, the device).
protocol AgentComponent: AnyObject {
    /// Topic filters to subscribe to; the client subscribes again after every reconnect.
    var subscriptions: [String] { get }
    /// The loop runs and the publisher exists (before the broker is connected): timers, watches.
    func start()
    /// A message on a subscribed topic. Returns whether it was this component's to handle.
    func receive(_ message: MQTTMessage) -> Bool
    /// The broker took the connection (after the agent published its status and the device).
    func brokerConnected()
    /// New rules took effect.
    func rulesChanged()
    /// SIGHUP: the configuration file was read again (peers and the rules path may differ).
    func configurationReloaded()
    /// The loop is about to end: release what is bound to it.
    func stop()
}

extension AgentComponent {
    var subscriptions: [String] { [] }
    func start() {}
    func receive(_ message: MQTTMessage) -> Bool { false }
    func brokerConnected() {}
    func rulesChanged() {}
    func configurationReloaded() {}
    func stop() {}
}
