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
}
