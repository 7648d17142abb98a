import CLinuxEvents

/// Whether the kernel's clock is disciplined by NTP (systemd-timesyncd, chrony, ntpd), the same
/// test `timedatectl`'s "System clock synchronized" uses (systemd's `ntp_synced()`): `adjtimex`
/// reports a maximum error below 16 s. Read directly so that it works without D-Bus or systemd.
enum KernelClock {
    /// nil when it cannot be read (the call is unavailable, or filtered by a sandbox).
    static func synchronised() -> Bool? {
        var maximumError = 0
        guard clinux_clock_max_error(&maximumError) == 0 else { return nil }
        return maximumError < 16_000_000
    }
}
