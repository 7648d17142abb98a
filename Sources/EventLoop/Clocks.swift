#if canImport(Glibc)
import Glibc
#endif

/// Seconds on CLOCK_MONOTONIC (for timeouts and back-off, immune to wall-clock steps) and on
/// the wall clock (for the `ts` of what is published).
public enum Clocks {
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public static func wall() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The wall clock in whole microseconds, as a recording stores receive times: what a device
    /// message is stamped with when it is read, so that a replay of the recording computes with
    /// exactly the times the live agent used.
    public static func wallMicroseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000) / 1_000_000
    }

    /// Sleeps the calling thread (the simulator's own, or a replay at recorded pace), through
    /// signals; never the loop's thread.
    public static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
