#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinuxEvents
import Synchronization

/// The one read/write/close funnel every transport uses on its non-blocking file descriptor.
///
/// Why one funnel: the unplug logic (POLLHUP, `read() == 0`, EIO → `.disconnected`) is the same for
/// a USB serial port and a pseudo-terminal (both are a tty hangup) and nearly the same for TCP (EOF,
/// ECONNRESET), so it is written and tested once, on a pty.
///
/// Why the bookkeeping: `close()` may be called from another thread while the reader sits in
/// `poll()`. Closing the descriptor under it would let the number be reused by an unrelated
/// `open()` and the reader would then read someone else's file. So `close()` only marks the channel
/// closing and wakes waiters through a self-pipe; the descriptor is released by whoever leaves last.
final class DescriptorChannel: Sendable {
    /// How EOF and writes behave: sockets use `send(MSG_NOSIGNAL)` so that a vanished peer is an
    /// EPIPE error instead of a process-killing SIGPIPE.
    enum Kind: Sendable {
        case terminal
        case socket
    }

    private struct State {
        var fd: Int32
        var wakeRead: Int32
        var wakeWrite: Int32
        var closing = false
        var released = false
        var inFlight = 0
    }

    /// The largest single read, so a caller's `maximum` cannot ask for an absurd allocation.
    static let readCap = 65_536

    let label: String
    let kind: Kind
    let writeTimeout: Duration
    private let state: Mutex<State>
    private let writers = Mutex<Void>(())
    private let release: @Sendable (Int32) -> Void

    /// Takes ownership of `fd` (which must already be non-blocking); `release` closes it.
    init(fd: Int32, label: String, kind: Kind, writeTimeout: Duration,
         release: @escaping @Sendable (Int32) -> Void) throws(TransportError) {
        var pipeFDs: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec_nonblock(&pipeFDs) == 0 else {
            let code = errno
            release(fd)
            throw .io("\(label): cannot create wake-up pipe: \(errnoText(code))")
        }
        self.label = label
        self.kind = kind
        self.writeTimeout = writeTimeout
        self.release = release
        state = Mutex(State(fd: fd, wakeRead: pipeFDs[0], wakeWrite: pipeFDs[1]))
    }

    deinit {
        close()
    }

    /// The descriptor, or -1 once closing began. For callers that must issue their own ioctls.
    var fileDescriptor: Int32 {
        state.withLock { $0.closing ? -1 : $0.fd }
    }

    // MARK: Reading

    func read(maximum: Int, timeout: Duration) throws(TransportError) -> [UInt8] {
        guard maximum > 0 else { return [] }
        let (fd, wake) = try enter()
        defer { leave() }
        let deadline = Deadline(after: timeout)
        var bytes = [UInt8](repeating: 0, count: min(maximum, Self.readCap))
        while true {
            let revents = try wait(fd: fd, wake: wake, events: Int16(POLLIN), deadline: deadline)
            guard revents != 0 else { return [] }
            // Readable per poll but nothing to read (0) is harmless: wait again.
            let n = try bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(TransportError) in try readOnce(fd, into: buffer, revents: revents) }
            }.get()
            if n > 0 {
                bytes.removeSubrange(n...)
                return bytes
            }
        }
    }

    /// One non-blocking read for an event loop that saw the descriptor ready (see
    /// `ByteTransport.readAvailable`).
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer, revents: Int16) throws(TransportError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let (fd, _) = try enter()
        defer { leave() }
        return try readOnce(fd, into: buffer, revents: revents)
    }

    /// What one `read(2)` gives after poll said `revents`: the byte count, 0 when there was nothing
    /// after all, `.disconnected` at EOF — or when poll also said hang-up or error and there was
    /// nothing left, which waiting again would only repeat until the deadline.
    private func readOnce(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, revents: Int16) throws(TransportError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            let code = errno
            if n > 0 { return n }
            if n == 0 {
                throw .disconnected(kind == .socket
                    ? "\(label): the peer closed the connection"
                    : "\(label): device hung up (unplugged or reset)")
            }
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                if revents & Int16(POLLHUP | POLLERR) != 0 {
                    throw .disconnected("\(label): device hung up (unplugged or reset)")
                }
                return 0
            default:
                throw failure(code, doing: "read")
            }
        }
    }

    // MARK: Writing

    func write(_ bytes: [UInt8]) throws(TransportError) {
        guard !bytes.isEmpty else { return }
        try writers.withLock { _ throws(TransportError) in
            let (fd, wake) = try enter()
            defer { leave() }
            let deadline = Deadline(after: writeTimeout)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { raw -> Int in
                    let start = raw.baseAddress! + offset
                    let left = raw.count - offset
                    return kind == .socket
                        ? send(fd, start, left, Int32(MSG_NOSIGNAL))
                        : Glibc.write(fd, start, left)
                }
                let code = errno
                if n > 0 {
                    offset += n
                    continue
                }
                if n < 0 && code == EINTR { continue }
                guard n == 0 || code == EAGAIN || code == EWOULDBLOCK else {
                    throw failure(code, doing: "write")
                }
                if deadline.hasPassed {
                    throw .timedOut("\(label): write of \(bytes.count) bytes not accepted within \(writeTimeout.shortDescription) (\(offset) sent); the device is not reading")
                }
                let revents = try wait(fd: fd, wake: wake, events: Int16(POLLOUT), deadline: deadline)
                if revents & Int16(POLLOUT) == 0 && revents & Int16(POLLHUP | POLLERR) != 0 {
                    throw .disconnected("\(label): device hung up (unplugged or reset)")
                }
            }
        }
    }

    // MARK: Closing

    /// Marks the channel closed, wakes any waiter, and releases the descriptor now or, if an
    /// operation is in progress, as soon as it returns.
    func close() {
        let releaseNow: State? = state.withLock { state in
            guard !state.closing else { return nil }
            state.closing = true
            var one: UInt8 = 1
            _ = Glibc.write(state.wakeWrite, &one, 1)
            guard state.inFlight == 0 else { return nil }
            state.released = true
            return state
        }
        if let released = releaseNow { releaseDescriptors(released) }
    }

    // MARK: Internals

    private func enter() throws(TransportError) -> (fd: Int32, wake: Int32) {
        let entered: (Int32, Int32)? = state.withLock { state in
            guard !state.closing else { return nil }
            state.inFlight += 1
            return (state.fd, state.wakeRead)
        }
        guard let entered else { throw .closed("\(label): transport was closed") }
        return entered
    }

    private func leave() {
        let releaseNow: State? = state.withLock { state in
            state.inFlight -= 1
            guard state.closing, state.inFlight == 0, !state.released else { return nil }
            state.released = true
            return state
        }
        if let released = releaseNow { releaseDescriptors(released) }
    }

    private func releaseDescriptors(_ state: State) {
        release(state.fd)
        _ = Glibc.close(state.wakeRead)
        _ = Glibc.close(state.wakeWrite)
    }

    /// Polls `fd` for `events` and the wake pipe until the deadline. Returns the descriptor's
    /// revents (0 on timeout); throws `.closed` when woken by `close()`.
    private func wait(fd: Int32, wake: Int32, events: Int16, deadline: Deadline) throws(TransportError) -> Int16 {
        var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, deadline.pollMilliseconds)
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .io("\(label): poll failed: \(errnoText(code))")
            }
            if fds[1].revents != 0 { throw .closed("\(label): transport was closed") }
            if fds[0].revents & Int16(POLLNVAL) != 0 {
                throw .io("\(label): descriptor is no longer valid")
            }
            return fds[0].revents
        }
    }

    private func failure(_ code: Int32, doing operation: String) -> TransportError {
        if meansDisconnected(code) {
            return .disconnected("\(label): device disconnected (\(operation): \(errnoText(code)))")
        }
        return .io("\(label): \(operation) failed: \(errnoText(code))")
    }
}
