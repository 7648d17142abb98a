#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Tells the loop when a file may have changed (the rules file that people edit on a live
/// gateway), through inotify on its directory — so that an idle agent is not woken every second
/// to look, and an edit is seen within a few milliseconds.
///
/// The directory, not the file: editors save by writing a new file and renaming it over the old
/// one, which a watch on the old inode would miss. Events for other names in the directory are
/// ignored; a burst of events for one save (create, write, rename) becomes one call, 50 ms after
/// the last of them. The call says "may have changed": the caller compares what it cares about
/// (mtime, size, inode). Where inotify is not available the file is looked at once a second.
///
/// Holds its loop; on release it stops watching.
public final class FileChangeWatch {
    public let path: String
    private let loop: EventLoop
    private let onChange: () -> Void
    private var descriptor: Int32 = -1
    private var watchToken: EventLoop.Watch?
    private var settleTimer: EventLoop.Timer?
    private var pollTimer: EventLoop.Timer?
    private let name: [UInt8]
    /// Why inotify is not used, if it is not (for the log).
    public private(set) var fallbackReason: String?

    static let settleSeconds = 0.05
    static let pollSeconds = 1.0

    public init(path: String, loop: EventLoop, onChange: @escaping () -> Void) {
        self.path = path
        self.loop = loop
        self.onChange = onChange
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        name = Array((slash.map { String(path[path.index(after: $0)...]) } ?? path).utf8)
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            fallbackReason = "inotify: \(String(cString: strerror(errno)))"
            schedulePoll()
            return
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            fallbackReason = "inotify on \(directory): \(String(cString: strerror(errno)))"
            close(fd)
            schedulePoll()
            return
        }
        descriptor = fd
        watchToken = loop.watch(fd, events: Int16(POLLIN)) { [unowned self] _ in readEvents() }
    }

    deinit {
        if let watchToken { loop.unwatch(watchToken) }
        if let settleTimer { loop.cancel(settleTimer) }
        if let pollTimer { loop.cancel(pollTimer) }
        if descriptor >= 0 { close(descriptor) }
    }

    private func readEvents() {
        var mentioned = false
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                guard count > 0 else { return }
                // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
                var offset = 0
                while offset + 16 <= count {
                    let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + 16)..<min(count, offset + 16 + length)])
                    if nameBytes.prefix(while: { $0 != 0 }).elementsEqual(name) { mentioned = true }
                    offset += 16 + length
                }
            }
        }
        guard mentioned else { return }
        if let settleTimer { loop.cancel(settleTimer) }
        settleTimer = loop.schedule(after: Self.settleSeconds) { [unowned self] in
            settleTimer = nil
            onChange()
        }
    }

    private func schedulePoll() {
        pollTimer = loop.schedule(after: Self.pollSeconds) { [unowned self] in
            onChange()
            schedulePoll()
        }
    }
}
