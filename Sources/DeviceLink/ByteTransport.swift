/// A bidirectional byte stream to a UWB device: a serial port, a pseudo-terminal or a TCP socket.
///
/// It is deliberately small and synchronous. The device session runs its own read loop on a
/// dedicated thread and needs a read that waits a bounded time, so that one loop can both receive
/// UCI packets and notice command timeouts; framing lives above this (`UCI.Reassembler`).
///
/// Implementations are safe to use from several threads: one reader, any number of writers
/// (writes are serialised, so one `write` call's bytes are never interleaved with another's), and
/// `close()` from anywhere, which also wakes a reader or writer that is waiting.
public protocol ByteTransport: AnyObject, Sendable, CustomStringConvertible {
    /// Names the endpoint for logs: `/dev/ttyACM0`, `pty /dev/pts/3`, `tcp://host:port`.
    var description: String { get }

    /// Writes the whole buffer, or throws. Waits at most the transport's write timeout for the
    /// device to accept the bytes (`.timedOut`); a hangup or reset is `.disconnected`.
    func write(_ bytes: [UInt8]) throws(TransportError)

    /// Waits up to `timeout` for input and returns what is available, at most `maximum` bytes
    /// (and at most 64 KiB). Returns `[]` when the timeout passes first, or when `maximum` ≤ 0.
    /// Throws `.disconnected` when the device hung up, reached EOF or failed with EIO, and
    /// `.closed` after `close()`. Never blocks longer than `timeout` (plus scheduling slack).
    func read(maximum: Int, timeout: Duration) throws(TransportError) -> [UInt8]

    /// The descriptor an event loop polls for input (-1 once closed).
    var fileDescriptor: Int32 { get }

    /// Reads what is available now, without waiting, into `buffer`; returns the byte count (0:
    /// nothing to read). `revents` is what poll reported, so that a hang-up with nothing left to
    /// read is `.disconnected` rather than an endless stream of empty reads.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer, revents: Int16) throws(TransportError) -> Int

    /// Releases the device. Idempotent. A read or write in progress on another thread returns
    /// promptly with `.closed`.
    func close()
}
