#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinuxEvents

/// Signals as readable events on the loop (signalfd): SIGTERM, SIGINT and SIGHUP become calls on
/// the loop's thread, in order, with no handler running at an arbitrary point of the program.
///
/// The signals are blocked in the calling thread, and every thread created after it inherits
/// that mask; create this on the loop's thread before starting any other thread (a thread that
/// does not block them would take them with their default action: terminate).
public final class SignalDescriptor {
    private let fd: Int32
    private let watchToken: EventLoop.Watch
    private let loop: EventLoop
    private var previousMask = sigset_t()

    public init(_ signals: [Int32], on loop: EventLoop, handler: @escaping (Int32) -> Void) throws(EventLoopError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_BLOCK, &mask, &previousMask)
        let fd = clinux_signalfd(&mask)
        guard fd >= 0 else { throw EventLoopError("signalfd", errno: errno) }
        self.fd = fd
        self.loop = loop
        watchToken = loop.watch(fd, events: Int16(POLLIN)) { _ in
            while true {
                let number = clinux_signalfd_next(fd)
                guard number > 0 else { break }
                handler(number)
            }
        }
    }

    deinit {
        loop.unwatch(watchToken)
        close(fd)
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
}
