import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// Debian's Chromium, headless, driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: JSON messages ended by a NUL on its descriptors 3 and 4), so that a
/// test reads what a person would see of a page — its text, its elements — and takes screenshots
/// while the page lives. (`--dump-dom` returns at the load event, before a live page has drawn
/// anything, and `--virtual-time-budget` never returns while an EventSource is open: design notes
/// §4.x.) A pipe, not `--remote-debugging-port`: no port to find, and no WebSocket client.
///
/// As root (CI) Chromium runs only with `--no-sandbox`. It starts in a process group of its own
/// with a profile directory of its own; `stop` (and deinit) ends the whole group by its id.
public final class HeadlessChromium: Sendable {
    public static let executable = "/usr/bin/chromium"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let process: ChildProcess
    private let directory: TemporaryDirectory
    private let toBrowser: Int32
    private let fromBrowser: Int32
    fileprivate struct Channel {
        var nextID = 1
        var pending: [UInt8] = []
        /// The HTTP status of every response a tab received (`Network.responseReceived`), by tab.
        var statuses: [String: [Int]] = [:]
    }
    fileprivate let channel = Mutex(Channel())

    /// Starts Chromium with a window of `width` × `height` CSS pixels (a phone held upright by default).
    public init(width: Int = 390, height: Int = 844) throws {
        directory = try TemporaryDirectory(prefix: "chromium")
        var commands: [Int32] = [0, 0], replies: [Int32] = [0, 0]
        guard pipe(&commands) == 0, pipe(&replies) == 0 else { throw TestSupportError.system(call: "pipe", errno: errno) }
        // High numbers for the test's ends, so that handing them over as 3 and 4 overwrites nothing.
        func high(_ fd: Int32) -> Int32 {
            let moved = fcntl(fd, F_DUPFD_CLOEXEC, 200)
            close(fd)
            return moved
        }
        let (childReads, childWrites) = (high(commands[0]), high(replies[1]))
        toBrowser = high(commands[1])
        fromBrowser = high(replies[0])
        defer {
            close(childReads)
            close(childWrites)
        }
        process = try ChildProcess(
            executable: Self.executable,
            arguments: ["--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--user-data-dir=\(directory.path)/profile",
                        "--window-size=\(width),\(height)", "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
                        "--disable-extensions", "--disable-background-networking", "--disable-sync", "--disable-dev-shm-usage",
                        "--mute-audio", "--ignore-certificate-errors", "about:blank"],
            stdoutPath: directory.file("chromium.out"), stderrPath: directory.file("chromium.err"),
            descriptors: [(childReads, 3), (childWrites, 4)], ownProcessGroup: true)
    }

    deinit {
        stop()
        close(toBrowser)
        close(fromBrowser)
    }

    /// Ends the browser and everything it started (renderers, the GPU and zygote processes).
    public func stop() {
        guard process.isRunning else { return process.signalGroup(SIGKILL) }
        process.signalGroup(SIGTERM)
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        process.signalGroup(SIGKILL)
        process.terminate(grace: .seconds(1))
    }

    /// A new tab showing `url`, sized `width` × `height` as a phone's screen (`scale` device pixels
    /// per CSS pixel), sending `headers` with every request (an Authorization header).
    public func open(_ url: String, headers: [String: String] = [:], width: Int = 390, height: Int = 844, scale: Double = 2) throws -> Page {
        let target = try call("Target.createTarget", ["url": "about:blank"])
        guard let targetID = target["targetId"] as? String else { throw ChromiumError("no targetId in \(target)") }
        let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw ChromiumError("no sessionId in \(attached)") }
        let page = Page(browser: self, session: session)
        _ = try call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": scale, "mobile": true], session: session)
        _ = try call("Page.enable", [:], session: session)
        _ = try call("Network.enable", [:], session: session)
        if !headers.isEmpty { try page.setExtraHeaders(headers) }
        _ = try call("Page.navigate", ["url": url], session: session)
        return page
    }

    /// One DevTools command and its result (`session`: a tab's); waits up to `timeout` seconds.
    @discardableResult
    public func call(_ method: String, _ parameters: [String: Any], session: String? = nil, timeout: Double = 15) throws -> [String: Any] {
        let id = channel.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        try bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = write(toBrowser, raw.baseAddress! + sent, raw.count - sent)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw ChromiumError("writing to Chromium: \(String(cString: strerror(errno)))") }
                sent += count
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            for reply in try readMessages(until: deadline) where reply["id"] as? Int == id {
                if let error = reply["error"] { throw ChromiumError("\(method): \(error)") }
                return reply["result"] as? [String: Any] ?? [:]
            }
        }
    }

    /// The messages that arrived (replies and events), waiting for at least one until `deadline`.
    private func readMessages(until deadline: Date) throws -> [[String: Any]] {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let complete: [[UInt8]] = channel.withLock { state in
                var messages: [[UInt8]] = []
                while let end = state.pending.firstIndex(of: 0) {
                    messages.append(Array(state.pending[..<end]))
                    state.pending.removeSubrange(...end)
                }
                return messages
            }
            if !complete.isEmpty {
                let messages = complete.compactMap { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] }
                for message in messages where message["method"] as? String == "Network.responseReceived" {
                    guard let session = message["sessionId"] as? String,
                          let response = (message["params"] as? [String: Any])?["response"] as? [String: Any],
                          let status = response["status"] as? Int else { continue }
                    channel.withLock { $0.statuses[session, default: []].append(status) }
                }
                return messages
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw ChromiumError("no answer from Chromium in time") }
            var ready = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(min(left, 1) * 1000) + 1) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(fromBrowser, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ChromiumError("Chromium closed its pipe (\(process.exitStatus.map { "\($0)" } ?? "running"))") }
            channel.withLock { $0.pending += buffer[..<count] }
        }
    }

    /// A tab.
    public struct Page: Sendable {
        let browser: HeadlessChromium
        public let session: String

        /// The value of a JavaScript expression evaluated in the page (JSON-like values), or nil.
        public func evaluate(_ expression: String) throws -> Any? {
            let result = try browser.call("Runtime.evaluate", ["expression": expression, "returnByValue": true], session: session)
            if let exception = result["exceptionDetails"] { throw ChromiumError("\(expression): \(exception)") }
            return (result["result"] as? [String: Any])?["value"]
        }

        /// `document.body.innerText`: the text a person reads, as laid out.
        public func text() -> String { ((try? evaluate("document.body ? document.body.innerText : ''")) as? String) ?? "" }

        /// Saves what the tab shows as a PNG at `path`.
        public func screenshot(to path: String) throws {
            let result = try browser.call("Page.captureScreenshot", ["format": "png"], session: session, timeout: 30)
            guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else { throw ChromiumError("no screenshot data") }
            try data.write(to: URL(fileURLWithPath: path))
        }

        /// The HTTP statuses of the responses the tab received so far, oldest first (read while
        /// waiting for replies: call `evaluate` or `text` to take in the newest).
        public var statuses: [Int] { browser.channel.withLock { $0.statuses[session] ?? [] } }

        public func reload() throws { try browser.call("Page.reload", ["ignoreCache": true], session: session) }

        /// Sends `headers` with every request of the tab from now on (an Authorization header).
        public func setExtraHeaders(_ headers: [String: String]) throws {
            try browser.call("Network.setExtraHTTPHeaders", ["headers": headers], session: session)
        }

        public func navigate(_ url: String) throws { try browser.call("Page.navigate", ["url": url], session: session) }
    }
}

/// What went wrong talking to Chromium.
public struct ChromiumError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
