/// Settings for opening a transport, from the `device:` section of the configuration.
public struct TransportOptions: Sendable, Equatable {
    /// Line speed for serial ports and terminals (`device.baud`). The DWM3001C's USB CDC port
    /// ignores it, but Qorvo's host tools open at 115200, so that is the default.
    public var baudRate: Int
    /// How long a TCP connect may take before `.timedOut`.
    public var connectTimeout: Duration
    /// How long a write may wait for the device to accept bytes before `.timedOut`.
    public var writeTimeout: Duration

    public init(baudRate: Int = 115_200, connectTimeout: Duration = .seconds(5), writeTimeout: Duration = .seconds(2)) {
        self.baudRate = baudRate
        self.connectTimeout = connectTimeout
        self.writeTimeout = writeTimeout
    }
}
