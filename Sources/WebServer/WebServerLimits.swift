/// What one web server admits, so that no client (a scanner, a flood of half-open connections, a
/// browser that stopped reading) can make it grow without bound.
public struct WebServerLimits: Sendable, Equatable {
    /// Open connections at once; more are refused by the library at accept.
    public var connections: Int = 64
    /// Open connections at once from one address (a phone's browser opens a few).
    public var connectionsPerAddress: Int = 24
    /// Memory one connection may use, request line and headers included: a larger request is
    /// answered 431/413 by the library and closed.
    public var connectionMemoryBytes: Int = 32 * 1024
    /// Seconds a connection may stay silent (a stream that waits for news is not timed).
    public var idleSeconds: Int = 30
    /// Seconds a connection may take to send a request's line and headers, from its opening or
    /// the end of its last request: a client that sends a byte every few seconds is never silent
    /// for `idleSeconds`, and a few such held every connection. Past this, a connection still
    /// without its request is closed once silent for a second.
    public var requestSeconds: Double = 10
    /// Bytes a stream may have waiting for a client that reads slower than news comes; past it
    /// the stream's owner starts it again from the current state (`EventStream.replaceBacklog`).
    public var streamBacklogBytes: Int = 512 * 1024

    public init() {}
}
