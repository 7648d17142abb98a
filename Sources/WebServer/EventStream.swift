import CMicroHTTPD

/// One open Server-Sent Events response (`text/event-stream`): what its owner sends waits here
/// until the library asks for it, a message at a time. With nothing to send, the connection is
/// suspended (taken out of the library's poll set, no CPU) until the next `send`.
///
/// On the loop's thread only, like the server. A client that reads slower than news comes makes
/// `backlog` grow; its owner decides what then (`replaceBacklog` with the current state): the
/// server never waits for a client.
public final class EventStream {
    /// Messages not yet handed to the library, oldest first; `offset` bytes of the first are gone.
    private var queue: [[UInt8]] = []
    private var offset = 0
    public private(set) var backlog = 0
    /// Bytes of the state that `replaceBacklog` queued which the client has not read yet.
    private var replacementLeft = 0
    /// The client has not read the whole state it was last given instead of its backlog: one
    /// that falls behind again before it has is not reading at all.
    public var holdsUnreadReplacement: Bool { replacementLeft > 0 }
    /// Set by the server: the connection, while the response lives.
    var connection: OpaquePointer?
    var suspended = false
    /// The server is stopping or the client went: the stream ends at the next read.
    var ending = false
    /// The client's connection ended (the library's completion callback).
    public private(set) var isClosed = false
    weak var server: WebServer?

    init() {}

    /// Queues `data` as one event (`data:` lines, a blank line after).
    public func send(data: [UInt8]) {
        enqueue(Self.event(data))
    }

    /// A comment (`: …`), which the browser ignores: keeps a quiet stream known to be alive, and a
    /// write to a client that vanished is how its connection is found dead.
    public func sendKeepAlive() {
        enqueue(Array(": keep-alive\n\n".utf8))
    }

    /// Forgets what waits (but not the rest of a message already partly sent) and queues `data`
    /// instead: for a client that fell behind, the current state replaces the news it missed.
    public func replaceBacklog(with data: [UInt8]) {
        if offset > 0, let partial = queue.first {
            queue = [partial]
            backlog = partial.count - offset
        } else {
            queue = []
            offset = 0
            backlog = 0
        }
        enqueue(Self.event(data))
        replacementLeft = backlog
    }

    /// Ends the stream and forgets what waits: the browser's `EventSource` connects again and
    /// starts from the whole state, if anyone is still there.
    public func end() {
        queue = []
        offset = 0
        backlog = 0
        replacementLeft = 0
        ending = true
        wake()
    }

    private func enqueue(_ bytes: [UInt8]) {
        guard !isClosed, !ending else { return }
        queue.append(bytes)
        backlog += bytes.count
        wake()
    }

    /// Resumes a suspended connection; the server runs the library soon after.
    func wake() {
        guard suspended, let connection else { return }
        suspended = false
        uwb_MHD_resume_connection(connection)
        server?.runSoon()
    }

    /// The library asks for up to `capacity` bytes: what waits, or (nothing waiting) suspend.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        if ending { return Int(MHD_CONTENT_READER_END_OF_STREAM) }
        guard let first = queue.first else {
            if let connection, !suspended {
                suspended = true
                uwb_MHD_suspend_connection(connection)
            }
            return 0
        }
        let count = min(capacity, first.count - offset)
        first.withUnsafeBufferPointer { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        }
        offset += count
        backlog -= count
        replacementLeft = max(0, replacementLeft - count)
        if offset == first.count {
            queue.removeFirst()
            offset = 0
        }
        return count
    }

    func closed() {
        isClosed = true
        connection = nil
        queue = []
        backlog = 0
    }

    /// `data: …` lines for the bytes, split at line breaks (an event's data may hold none), and
    /// the blank line that ends the event.
    static func event(_ data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + 16)
        bytes += Array("data: ".utf8)
        for byte in data {
            if byte == 0x0A {
                bytes += Array("\ndata: ".utf8)
            } else if byte != 0x0D {
                bytes.append(byte)
            }
        }
        bytes += [0x0A, 0x0A]
        return bytes
    }
}
