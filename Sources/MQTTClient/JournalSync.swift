#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import EventLoop

/// Syncs the journal's appends to disk off the loop, so that a slow `fdatasync` never stalls
/// the loop's device reads: an SD card under write-back pressure takes tens to hundreds of
/// milliseconds for one, and while the broker is away every event and retained state is
/// journaled.
///
/// Group commit: the agent writes the records of a wake-up without syncing
/// (`Spool.append(_:sync: false)`) and then asks for a sync (`request`). One sync runs at a time,
/// on a helper thread that syncs a duplicate of the journal's descriptor, closes it and hands the
/// outcome back to the loop; it covers every record written before it began, and records written
/// while it runs get one more sync after it. A power cut can therefore lose the records written
/// since the last sync completed, not more; the agent's own crash loses none (they are in the
/// kernel's page cache).
public final class JournalSync {
    private let spool: Spool
    private let remote: RemoteQueue
    private let syncFile: @Sendable (Int32) -> Int32
    private let onFailure: (String) -> Void
    private var running = false
    private var requestedAgain = false

    /// `syncFile` syncs a descriptor and returns 0 or -1 with `errno` (`fdatasync`; a test gives a
    /// slow one). `onFailure` hears, on the loop, why a sync failed.
    public init(spool: Spool, loop: EventLoop, syncFile: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) },
                onFailure: @escaping (String) -> Void) {
        self.spool = spool
        remote = loop.remote
        self.syncFile = syncFile
        self.onFailure = onFailure
    }

    /// Whether a sync is running on its helper thread now.
    public var isSyncing: Bool { running }

    /// Syncs what was appended without syncing: now, or right after the sync that is running.
    public func request() {
        guard spool.hasUnsyncedAppends else { return }
        guard !running else {
            requestedAgain = true
            return
        }
        guard let fd = spool.descriptorToSync() else {
            // No descriptor to spare (EMFILE): synced here, which blocks, rather than not at all.
            do { try spool.syncAppends() } catch { onFailure("\(error)") }
            return
        }
        running = true
        let syncFile = syncFile, remote = remote, owner = WeakJournalSync(self)
        DetachedThread.start(name: "journal sync") {
            let rc = syncFile(fd)
            let code = rc == 0 ? 0 : errno
            close(fd)
            remote.post { owner.sync?.finished(errno: code) }
        }
    }

    private func finished(errno code: Int32) {
        running = false
        if code != 0 {
            onFailure("cannot sync the journal: \(String(cString: strerror(code))); what was journaled since the last sync "
                      + "may not survive a power cut")
        }
        if requestedAgain {
            requestedAgain = false
            request()
        }
    }
}

private final class WeakJournalSync: @unchecked Sendable {
    weak var sync: JournalSync?
    init(_ sync: JournalSync) { self.sync = sync }
}
