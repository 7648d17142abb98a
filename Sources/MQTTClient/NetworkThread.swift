#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CMosquitto
import CPty
import Dispatch
import Foundation
import Synchronization

/// The client's own network thread: connects, serves the connection, and reconnects with
/// back-off, for as long as the client lives.
///
/// Why not libmosquitto's `mosquitto_loop_start`:
/// * **Coalesced writes.** Its thread is woken once per publish and writes every packet as its
///   own TCP segment (TCP_NODELAY). On a gateway that publishes a burst of messages per UWB
///   notification, those per-segment costs (the TCP stack, on loopback also the broker's receive
///   path, and a broker wake-up per segment) were the largest single cost of the agent (`make
///   bench` profile, issue #8). Here a burst (`MQTTClient.batch`) wakes the thread once, and it
///   writes what is queued under TCP_CORK, removed as soon as the write returns: nothing is held
///   back while the thread waits.
/// * **It never gives up.** `loop_forever` returns, and so ends its thread, after a TLS, DNS or
///   authentication failure (design notes §2.4), and after a failed TLS handshake without calling
///   `on_disconnect`. This thread reports every failed attempt itself when libmosquitto did not,
///   and retries with the back-off of cli-and-config.md (min, 2·min, 4·min … max).
///
/// Threading: the thread is the only caller of `mosquitto_connect`, `mosquitto_reconnect` and the
/// `mosquitto_loop*` functions, and every libmosquitto callback runs on it. The client calls
/// `mosquitto_publish`, `subscribe` and `disconnect` from other threads, which libmosquitto allows
/// once `mosquitto_threaded_set(mosq, true)` is on (its queues have their own mutexes), and then
/// `wake()`. The thread never takes the client's lock, so the client may hold it while waiting
/// for the thread to end.
final class NetworkThread: Sendable {
    /// The `mosquitto *` handle. Safe to share: libmosquitto in threaded mode is called from this
    /// thread and, for the calls listed above, from the client under its lock; the client
    /// destroys the handle only after `stop` has seen this thread end.
    private struct Handle: @unchecked Sendable { let mosq: OpaquePointer }

    private let handle: Handle
    private let box: MosquittoCallbackBox
    private let configuration: MQTTConfiguration
    private let stopRequested = Atomic<Bool>(false)
    /// Signalled to cut a back-off wait short (stop).
    private let wakeup = DispatchSemaphore(value: 0)
    /// Signalled once when the thread has ended.
    private let ended = DispatchSemaphore(value: 0)
    /// The self-pipe that `wake()` writes to end the thread's poll (non-blocking, close-on-exec),
    /// and whether a byte is already on its way.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let wakePending = Atomic<Bool>(false)

    init(mosq: OpaquePointer, box: MosquittoCallbackBox, configuration: MQTTConfiguration) throws(MQTTError) {
        var fds: [Int32] = [-1, -1]
        guard cpty_pipe_cloexec_nonblock(&fds) == 0 else {
            throw .library(operation: "pipe", code: MosquittoCode.errno, message: String(cString: strerror(errno)))
        }
        self.wakeRead = fds[0]
        self.wakeWrite = fds[1]
        self.handle = Handle(mosq: mosq)
        self.box = box
        self.configuration = configuration
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    func start() {
        mosquitto_threaded_set(handle.mosq, true)
        let thread = Thread { [self] in run() }
        thread.name = "mosquitto loop"
        thread.start()
    }

    /// Asks the thread to end once libmosquitto has no connection left (the caller sends
    /// DISCONNECT first for a clean end) and waits up to `timeout` for it.
    /// - Returns: false if it did not end in time (e.g. stuck in a TCP connect to a host that does
    ///   not answer); the caller must then not destroy the handle.
    func stop(timeout: Duration) -> Bool {
        stopRequested.store(true, ordering: .releasing)
        wakeup.signal()
        wake()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return ended.wait(timeout: .now() + seconds) == .success
    }

    private var stopping: Bool { stopRequested.load(ordering: .acquiring) }

    private func run() {
        let mosq = handle.mosq
        let broker = configuration.broker
        var connectedOnce = false
        var failures = 0
        while !stopping {
            let disconnectsBefore = box.disconnectCallbacks.load(ordering: .acquiring)
            let connacksBefore = box.acceptedConnacks.load(ordering: .acquiring)
            // Blocking connect (TCP and TLS handshake), as loop_forever's own reconnect does.
            var rc = connectedOnce
                ? mosquitto_reconnect(mosq)
                : mosquitto_connect(mosq, broker.host, Int32(broker.port), Int32(configuration.keepaliveSeconds))
            var threadErrno = errno
            if rc == MosquittoCode.success {
                connectedOnce = true
                rc = serveConnection(mosq, connacksBefore: connacksBefore)
                threadErrno = errno
            } else if rc != MosquittoCode.invalid {
                connectedOnce = true   // the host is set: later attempts use mosquitto_reconnect
            }
            if stopping { break }
            if box.acceptedConnacks.load(ordering: .acquiring) != connacksBefore { failures = 0 }
            // libmosquitto reports a lost connection through on_disconnect, but not a failed
            // connect, nor a failed TLS handshake inside the loop: report those here.
            if box.disconnectCallbacks.load(ordering: .acquiring) == disconnectsBefore {
                box.continuation.yield(.disconnect(code: rc == MosquittoCode.success ? MosquittoCode.noConnection : rc,
                                                   errno: threadErrno))
            }
            let delay = ReconnectBackoff.delaySeconds(attempt: failures, min: configuration.reconnectDelayMinSeconds,
                                                    max: configuration.reconnectDelayMaxSeconds)
            failures += 1
            _ = wakeup.wait(timeout: .now() + .seconds(delay))
        }
        ended.signal()
    }

    /// Serves one connection until it ends; returns the code that ended it.
    ///
    /// Until the broker's CONNACK, `mosquitto_loop` runs it, as libmosquitto's own thread would
    /// (the connect and TLS handshake states stay libmosquitto's business). After the CONNACK this
    /// thread polls the socket and its own wake-up pipe instead of libmosquitto's socket pair, so
    /// that a burst of publishes (a `batch`) wakes it once and leaves in one write. (libmosquitto
    /// still writes a byte into its socket pair per queued packet; unread, the pair fills and
    /// those non-blocking writes fail, which it ignores.)
    private func serveConnection(_ mosq: OpaquePointer, connacksBefore: Int) -> Int32 {
        var disconnectSent = false
        while true {
            let socket = mosquitto_socket(mosq)
            if socket < 0 { return MosquittoCode.noConnection }
            // A stop that came while this thread was still connecting found no connection to
            // send DISCONNECT on: send it now, so the broker keeps the will and the loop ends.
            if stopping && !disconnectSent {
                disconnectSent = true
                mosquitto_disconnect(mosq)
            }
            let rc: Int32
            if box.acceptedConnacks.load(ordering: .acquiring) == connacksBefore {
                Self.setCork(socket, true)
                rc = mosquitto_loop(mosq, 1000, 1)
                // The same descriptor only if libmosquitto did not close it during the call (a
                // closed number may already belong to someone else).
                if mosquitto_socket(mosq) == socket { Self.setCork(socket, false) }
            } else {
                rc = pollOnce(mosq, socket)
            }
            if rc != MosquittoCode.success { return rc }
        }
    }

    /// One wait for the socket, a wake-up or the next keepalive second, then what is due: read,
    /// write everything queued under one cork, keepalive.
    private func pollOnce(_ mosq: OpaquePointer, _ socket: Int32) -> Int32 {
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if mosquitto_want_write(mosq) { fds[0].events |= Int16(POLLOUT) }
        let ready = poll(&fds, 2, 1000)
        if ready < 0 && errno != EINTR { return MosquittoCode.errno }
        if fds[1].revents != 0 {
            // Drain, then clear: cleared first, a wake-up in between would leave its byte to be
            // drained here and the flag set with nothing in the pipe, and every later wake-up
            // would be skipped. (A publish whose wake-up was skipped is written below anyway.)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { drain in
                while read(wakeRead, drain.baseAddress, drain.count) > 0 {}
            }
            wakePending.store(false, ordering: .sequentiallyConsistent)
        }
        if fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            // One read per wake-up, as `mosquitto_loop` does: what is left stays readable for the
            // next poll. Draining the socket here instead moved a flood of requests from the
            // kernel's buffers into this process's queues (make soak: +8 MiB at the peak).
            let rc = mosquitto_loop_read(mosq, 1)
            if rc != MosquittoCode.success || mosquitto_socket(mosq) != socket {
                return rc == MosquittoCode.success ? MosquittoCode.noConnection : rc
            }
        }
        if mosquitto_want_write(mosq) {
            Self.setCork(socket, true)
            let rc = mosquitto_loop_write(mosq, 1)
            if mosquitto_socket(mosq) == socket { Self.setCork(socket, false) }
            if rc != MosquittoCode.success || mosquitto_socket(mosq) != socket {
                return rc == MosquittoCode.success ? MosquittoCode.noConnection : rc
            }
        }
        return mosquitto_loop_misc(mosq)
    }

    /// Wakes the thread to write what was queued; at most one wake-up is pending at a time.
    func wake() {
        guard !wakePending.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// TCP_CORK on or off. Turning it off sends what it held at once.
    private static func setCork(_ socket: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}
