import EventLoop
import Service

/// What the agent ranges with instead of the device at `device.port`: `run --simulate`'s simulated
/// DWM3001C, which lives above the agent so that the agent does not link the simulator. Started
/// on the agent's loop before the device link opens, stopped after the link has closed.
public protocol DeviceStandIn: AnyObject {
    /// For the log (`simulated DWM3001C`).
    var name: String { get }
    /// Starts it on `loop`; returns the port the agent opens instead of `device.port`.
    func start(loop: EventLoop, topics: TopicTree, logger: Logger) throws -> String
    func stop()
}
