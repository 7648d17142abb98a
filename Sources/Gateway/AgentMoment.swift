/// When an input reached the agent, on both of its clocks.
///
/// `time` is the agent's time (`AgentClock`: the wall clock, never running backwards): what the
/// tags did and every `ts` are dated with it. `monotonic` measures intervals that a step of the
/// system clock must neither shorten nor stretch: uptime, rate limits, a phone's time without a
/// round, the next metrics. The shell reads both clocks; the core only ever gets them passed in.
public struct AgentMoment: Sendable, Equatable {
    public var time: Double
    public var monotonic: Double

    /// A moment on one timeline, for what drives the core with generated inputs (the fuzzers):
    /// there the two clocks are the same.
    public static func at(_ seconds: Double) -> AgentMoment {
        AgentMoment(time: seconds, monotonic: seconds)
    }
}
