#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CMicroHTTPD
import EventLoop

/// A small read-only HTTP server: fixed resources and Server-Sent Events streams, served by
/// libmicrohttpd (Debian's libmicrohttpd12) on the caller's event loop.
///
/// Why the library in "external select" mode rather than its own thread: everything `watch`
/// knows lives on its loop thread and is touched by nothing else (architecture.md, "one owner,
/// one thread"). Started with MHD_USE_EPOLL, the library keeps its sockets in one epoll
/// descriptor of its own; the loop watches that descriptor and calls `MHD_run` when it is
/// readable or when `MHD_get_timeout` says a connection times out, so every callback below runs
/// on the loop's thread, between MQTT messages, and reads the model without a lock or a copy.
/// Sockets are non-blocking and a stream with nothing to send is suspended, so a slow or vanished
/// browser costs a few bytes of backlog (bounded by its owner), never a wait.
///
/// The library parses HTTP and enforces the limits (`WebServerLimits`): connections in all and
/// per address, memory per connection (request line and headers), an idle timeout. Only GET and
/// HEAD are answered; a request body is never read. Responses carry a Content-Security-Policy
/// that allows no inline script and nothing from another origin.
public final class WebServer {
    /// What a path serves.
    public enum Route {
        /// Fixed bytes with their media type.
        case resource(contentType: String, body: [UInt8])
        /// A Server-Sent Events stream; `open` is called with each new stream (on the loop).
        case events(open: (EventStream) -> Void)
    }

    /// Where it listens (with the port the kernel chose for port 0).
    public private(set) var address: ListenAddress
    public let isTLS: Bool
    public private(set) var streams: [EventStream] = []

    private var daemon: OpaquePointer?
    private let loop: EventLoop
    private let routes: [String: Route]
    private let authentication: BasicAuthentication?
    private var signIns = SignInThrottle()
    private let limits: WebServerLimits
    /// The open connections, each with when it began to wait for a request's headers (monotonic;
    /// infinity while a request is answered or after its time was cut short).
    private var connections: [OpaquePointer: Double] = [:]
    private var lastLookAtRequests = -Double.infinity
    private var watchHandle: EventLoop.Watch?
    private var timer: EventLoop.Timer?
    private var runScheduled = false
    /// Kept for the daemon's lifetime: the library reads them when it starts.
    private let keyText: [CChar]?
    private let certificateText: [CChar]?

    public init(address: ListenAddress, limits: WebServerLimits = WebServerLimits(), authentication: BasicAuthentication? = nil,
                tls: TLSCredentials? = nil, routes: [String: Route], loop: EventLoop) throws(WebServerError) {
        self.address = address
        self.loop = loop
        self.routes = routes
        self.authentication = authentication
        self.limits = limits
        isTLS = tls != nil
        guard uwb_mhd() != nil else {
            throw WebServerError("cannot load libmicrohttpd (Debian's libmicrohttpd12): \(String(cString: uwb_mhd_load_error()))")
        }
        if tls != nil, uwb_MHD_is_feature_supported(.FEATURE_TLS) != .YES {
            throw WebServerError("this libmicrohttpd was built without TLS")
        }
        let keyText = tls.map { $0.keyPEM.map { CChar(bitPattern: $0) } + [0] }
        let certificateText = tls.map { $0.certificatePEM.map { CChar(bitPattern: $0) } + [0] }
        self.keyText = keyText
        self.certificateText = certificateText
        let socketAddress: [UInt8]
        do { socketAddress = try address.sockaddrBytes() } catch { throw WebServerError(error.description) }

        // External polling with epoll, suspend/resume for the streams. No MHD_USE_ERROR_LOG: the
        // library would write to stderr in its own words; what matters is reported here.
        var flags = UInt32(MHD_USE_EPOLL.rawValue) | UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue)
        if address.isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = socketAddress.withUnsafeBytes { raw in
            let sockaddrPointer = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            return keyText.withOptionalPointer { key in
                certificateText.withOptionalPointer { certificate in
                    uwb_mhd_start(flags, sockaddrPointer, UInt32(limits.connections), UInt32(limits.connectionsPerAddress),
                                  limits.connectionMemoryBytes, UInt32(limits.idleSeconds), key, certificate,
                                  WebServer.accessHandler, context, WebServer.requestCompleted, context,
                                  WebServer.connectionNotified, context)
                }
            }
        }
        guard let started else {
            let reason = errno
            throw WebServerError("cannot listen on \(address)" + (reason != 0 ? ": \(String(cString: strerror(reason)))" : "")
                                 + (tls != nil ? " (or the certificate and key are not a matching PEM pair)" : ""))
        }
        daemon = started
        self.address = address.with(port: uwb_mhd_bound_port(started))
        let descriptor = uwb_mhd_epoll_fd(started)
        guard descriptor >= 0 else {
            uwb_MHD_stop_daemon(started)
            daemon = nil
            throw WebServerError("libmicrohttpd gave no epoll descriptor")
        }
        watchHandle = loop.watch(descriptor, events: Int16(POLLIN)) { [unowned self] _ in run() }
        reschedule()
    }

    deinit {
        stop()
    }

    /// Ends every stream, closes every connection and the listening socket. Safe to call twice.
    public func stop() {
        guard let daemon else { return }
        if let watchHandle { loop.unwatch(watchHandle) }
        if let timer { loop.cancel(timer) }
        watchHandle = nil
        timer = nil
        // The library must not be stopped with connections suspended.
        for stream in streams {
            stream.ending = true
            stream.wake()
        }
        uwb_MHD_stop_daemon(daemon)
        self.daemon = nil
        for stream in streams { stream.closed() }
        streams = []
    }

    // MARK: Driving the library from the loop

    /// Lets the library do what its sockets are ready for, then waits for its next deadline.
    private func run() {
        guard let daemon else { return }
        runScheduled = false
        _ = uwb_MHD_run(daemon)
        cutShortSlowRequests()
        reschedule()
    }

    /// A connection that has not sent its request's headers within `requestSeconds` gets an idle
    /// timeout of a second: a client dripping its headers is closed, one that sent them is not
    /// concerned. So does one whose client has gone: the library reads a connection when new
    /// bytes come, and one that a client closed while it waited to be accepted brought its
    /// bytes and its end together, so that nothing came after them and it stayed, for the whole
    /// idle timeout, one of the 64 the server takes (a burst of such held it full for minutes).
    /// Looked at once a second (a run comes at least that often).
    private func cutShortSlowRequests() {
        let now = Clocks.monotonic()
        guard now - lastLookAtRequests >= 1 else { return }
        lastLookAtRequests = now
        for (connection, since) in connections where since.isFinite {
            guard now - since > limits.requestSeconds || Self.clientHasGone(connection) else { continue }
            connections[connection] = .infinity
            uwb_mhd_set_connection_timeout(connection, 1)
        }
    }

    /// Whether the client closed its side: all that is left to read of the socket is its end.
    private static func clientHasGone(_ connection: OpaquePointer) -> Bool {
        let fd = uwb_mhd_connection_fd(connection)
        guard fd >= 0 else { return false }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// After a stream was resumed: the library runs before the loop waits again, not from inside
    /// whatever called `send` (which may itself be inside a callback of the library).
    func runSoon() {
        guard !runScheduled, daemon != nil else { return }
        runScheduled = true
        loop.soon { [weak self] in self?.run() }
    }

    /// Runs the library again at its next deadline, and at least once a second: at its connection
    /// limit it takes the listening socket out of its epoll set and puts it back only inside a
    /// run, so once the connections that filled it had closed, with nothing else due, a burst
    /// past the limit left new clients waiting in the accept queue for good.
    private func reschedule() {
        guard let daemon else { return }
        if let timer { loop.cancel(timer) }
        timer = nil
        var milliseconds: CUnsignedLongLong = 1000
        if uwb_MHD_get_timeout(daemon, &milliseconds) != .YES { milliseconds = 1000 }
        timer = loop.schedule(after: Double(min(milliseconds, 1000)) / 1000) { [unowned self] in
            timer = nil
            run()
        }
    }

    // MARK: Requests (the library's callbacks, on the loop's thread inside MHD_run)

    private static let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, uploadSize, requestContext in
        guard let context, let connection, let url, let method else { return .NO }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        // A body that came with a GET is taken as read and ignored; the answer comes with the call
        // that says the request is complete.
        if let uploadSize, uploadSize.pointee > 0 {
            uploadSize.pointee = 0
            return .YES
        }
        return server.answer(connection, path: String(cString: url), method: String(cString: method), requestContext: requestContext)
    }

    private static let requestCompleted: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
        guard let context else { return }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        // Kept alive, the connection now waits for its next request (closed, it is gone next).
        if let connection, server.connections[connection] != nil { server.connections[connection] = Clocks.monotonic() }
        guard let slot = requestContext, let stored = slot.pointee else { return }
        slot.pointee = nil
        guard stored != headersRead else { return }
        let stream = Unmanaged<EventStream>.fromOpaque(stored).takeRetainedValue()
        server.streams.removeAll { $0 === stream }
        stream.closed()
    }

    private static let connectionNotified: MHD_NotifyConnectionCallback = { context, connection, _, event in
        guard let context, let connection else { return }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        if event == .CONNECTION_NOTIFY_STARTED {
            server.connections[connection] = Clocks.monotonic()
        } else {
            server.connections[connection] = nil
        }
    }

    /// What a request's context holds between the library's first call for it and the second: the
    /// answer waits for the second call, since one queued in the first makes the library close the
    /// connection after it (no keep-alive: a TLS handshake for each of the page's files).
    private static var headersRead: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

    private func answer(_ connection: OpaquePointer, path: String, method: String,
                        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
        guard let requestContext else { return .NO }
        // Its headers are in.
        if connections[connection] != nil { connections[connection] = .infinity }
        // Any other method is refused at once, before its body is read (the library then closes
        // the connection rather than read it).
        guard method == "GET" || method == "HEAD" else {
            return queue(connection, status: 405, body: "only GET and HEAD\n", headers: [("Allow", "GET, HEAD")])
        }
        if requestContext.pointee == nil {
            requestContext.pointee = Self.headersRead
            return .YES
        }
        guard requestContext.pointee == Self.headersRead else { return .YES }
        requestContext.pointee = nil
        if let authentication {
            let client = Self.clientAddress(connection), now = Clocks.monotonic()
            if signIns.refuses(client, at: now) {
                return queue(connection, status: 429, body: "too many wrong passwords from this address; try again in a minute\n",
                             headers: [("Retry-After", String(Int(SignInThrottle.window)))])
            }
            if !authorized(connection, authentication) {
                // A browser's first request comes without a password; it counts like a wrong one.
                signIns.failed(client, at: now)
                guard let response = Self.textResponse("authentication required\n") else { return .NO }
                defer { uwb_MHD_destroy_response(response) }
                Self.addCommonHeaders(response)
                return uwb_MHD_queue_basic_auth_fail_response(connection, authentication.realm, response)
            }
        }
        switch routes[path] {
        case nil:
            return queue(connection, status: 404, body: "not found\n")
        case let .resource(contentType, body)?:
            return queue(connection, status: 200, bytes: body, headers: [("Content-Type", contentType)])
        case let .events(open)?:
            let stream = EventStream()
            let retained = Unmanaged.passRetained(stream).toOpaque()
            guard let response = uwb_MHD_create_response_from_callback(UInt64.max, 16 * 1024, WebServer.readStream, retained,
                                                                   WebServer.releaseStream) else {
                Unmanaged<EventStream>.fromOpaque(retained).release()
                return .NO
            }
            defer { uwb_MHD_destroy_response(response) }
            Self.addCommonHeaders(response)
            uwb_MHD_add_response_header(response, "Content-Type", "text/event-stream; charset=utf-8")
            let result = uwb_MHD_queue_response(connection, 200, response)
            guard result == .YES else { return result }
            stream.connection = connection
            stream.server = self
            streams.append(stream)
            // Released when the request completes (requestCompleted), whoever ends it.
            requestContext.pointee = Unmanaged.passRetained(stream).toOpaque()
            open(stream)
            return result
        }
    }

    private static func clientAddress(_ connection: OpaquePointer) -> String {
        var text = [CChar](repeating: 0, count: 64)
        text.withUnsafeMutableBufferPointer { uwb_mhd_client_address(connection, $0.baseAddress, $0.count) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func authorized(_ connection: OpaquePointer, _ authentication: BasicAuthentication) -> Bool {
        var password: UnsafeMutablePointer<CChar>?
        guard let user = uwb_MHD_basic_auth_get_username_password(connection, &password) else { return false }
        defer {
            uwb_MHD_free(user)
            if let password {
                // The password's bytes are not left in freed memory.
                memset(password, 0, strlen(password))
                uwb_MHD_free(password)
            }
        }
        guard let password else { return false }
        return authentication.accepts(user: String(cString: user), password: String(cString: password))
    }

    private static let readStream: MHD_ContentReaderCallback = { context, _, buffer, capacity in
        guard let context, let buffer else { return Int(MHD_CONTENT_READER_END_WITH_ERROR) }
        return Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, capacity: capacity)
    }

    private static let releaseStream: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<EventStream>.fromOpaque(context).release()
    }

    private func queue(_ connection: OpaquePointer, status: UInt32, body: String, headers: [(String, String)] = []) -> MHD_Result {
        queue(connection, status: status, bytes: Array(body.utf8), headers: [("Content-Type", "text/plain; charset=utf-8")] + headers)
    }

    private func queue(_ connection: OpaquePointer, status: UInt32, bytes: [UInt8], headers: [(String, String)]) -> MHD_Result {
        var copy = bytes
        guard let response = copy.withUnsafeMutableBytes({ uwb_MHD_create_response_from_buffer($0.count, $0.baseAddress, .RESPMEM_MUST_COPY) }) else {
            return .NO
        }
        defer { uwb_MHD_destroy_response(response) }
        Self.addCommonHeaders(response)
        for (name, value) in headers { uwb_MHD_add_response_header(response, name, value) }
        return uwb_MHD_queue_response(connection, status, response)
    }

    private static func textResponse(_ text: String) -> OpaquePointer? {
        var bytes = Array(text.utf8)
        let response = bytes.withUnsafeMutableBytes { uwb_MHD_create_response_from_buffer($0.count, $0.baseAddress, .RESPMEM_MUST_COPY) }
        if let response { uwb_MHD_add_response_header(response, "Content-Type", "text/plain; charset=utf-8") }
        return response
    }

    /// What every answer says: nothing cached (the page is live), no script or style but this
    /// origin's files (so text that slipped into markup could still not run), not framed, not
    /// sniffed as another type, no referrer sent on.
    private static func addCommonHeaders(_ response: OpaquePointer) {
        uwb_MHD_add_response_header(response, "Cache-Control", "no-store")
        uwb_MHD_add_response_header(response, "Content-Security-Policy",
                                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        uwb_MHD_add_response_header(response, "X-Content-Type-Options", "nosniff")
        uwb_MHD_add_response_header(response, "Referrer-Policy", "no-referrer")
    }
}

/// Why the web server did not start.
public struct WebServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Optional where Wrapped == [CChar] {
    /// The text's pointer for the call, or NULL.
    func withOptionalPointer<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case let .some(text): text.withUnsafeBufferPointer { body($0.baseAddress) }
        case .none: body(nil)
        }
    }
}
