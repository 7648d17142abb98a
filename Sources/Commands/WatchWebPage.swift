import EventLoop
import Watch
import WebServer

/// `watch --http`: the same model the terminal view draws, served as a live web page. The page's
/// files are fixed; its state goes out on `/events` as frames of what changed (`WatchPageFrames`),
/// at most `framesPerSecond` a second whatever the message rate, built once per frame for every
/// browser. On the watch's own loop, beside its MQTT client: nothing here blocks, and a browser
/// that reads slower than frames come is sent the whole state again once its backlog passes the
/// bound, rather than holding anything up.
final class WatchWebPage {
    /// Where and how to serve, from the command line.
    struct Settings {
        var address: ListenAddress
        var authentication: BasicAuthentication?
        var tls: TLSCredentials?
        var limits = WebServerLimits()
    }

    /// Enough for a phone's browser to follow a walk smoothly, few enough to stay light with
    /// 8 gateways × 50 peers moving at once.
    static let framesPerSecond = 4.0
    /// A comment on every stream this often: a quiet page stays known to be alive, and a
    /// browser that vanished is found out when the write fails.
    static let keepAliveSeconds = 15.0

    private let loop: EventLoop
    private let state: () -> (model: WatchModel, title: String)
    private var server: WebServer!
    private var frames = WatchPageFrames()
    private var parts = WatchPageParts()
    private var frameTimer: EventLoop.Timer?
    private var keepAliveTimer: EventLoop.Timer?
    private var lastFrame = -Double.infinity
    private let limits: WebServerLimits

    /// `state` gives the model and the title (watch's connection) as they are now.
    init(_ settings: Settings, loop: EventLoop, state: @escaping () -> (model: WatchModel, title: String)) throws(WebServerError) {
        self.loop = loop
        self.state = state
        limits = settings.limits
        var routes: [String: WebServer.Route] = [:]
        for file in WatchPageFiles.all { routes[file.path] = .resource(contentType: file.contentType, body: file.bytes) }
        routes["/events"] = .events(open: { [unowned self] stream in opened(stream) })
        server = try WebServer(address: settings.address, limits: settings.limits, authentication: settings.authentication,
                               tls: settings.tls, routes: routes, loop: loop)
        keepAlive()
    }

    /// `http://127.0.0.1:8080/`, with the port the kernel chose for port 0.
    var url: String { (server.isTLS ? "https://" : "http://") + server.address.description + "/" }

    /// Something the page shows changed: a frame goes out, no sooner than a frame's time after the last.
    func changed() {
        guard frameTimer == nil, server != nil else { return }
        let wait = max(0, lastFrame + 1 / Self.framesPerSecond - Clocks.monotonic())
        frameTimer = loop.schedule(after: wait) { [unowned self] in
            frameTimer = nil
            publish()
        }
    }

    func stop() {
        if let frameTimer { loop.cancel(frameTimer) }
        if let keepAliveTimer { loop.cancel(keepAliveTimer) }
        frameTimer = nil
        keepAliveTimer = nil
        server?.stop()
        server = nil
    }

    /// The frame of what changed since the last one, to every stream but `skipping` (a stream
    /// that has just been sent everything).
    private func publish(skipping: EventStream? = nil) {
        lastFrame = Clocks.monotonic()
        let (model, title) = state()
        guard let frame = frames.next(parts.render(model, title: title, now: Clocks.wall())) else { return }
        var snapshot: [UInt8]?
        for stream in server.streams where stream !== skipping {
            // A browser that stopped reading (a phone put away, a bad link): its backlog is
            // replaced by the whole state, so that it costs at most that much memory. One that
            // falls behind again before it read that state is not reading: its stream ends (a
            // state larger than the bound would otherwise be made again at every frame).
            if stream.backlog > max(limits.streamBacklogBytes, 2 * frame.count) {
                if stream.holdsUnreadReplacement { stream.end(); continue }
                if snapshot == nil { snapshot = frames.snapshot }
                stream.replaceBacklog(with: snapshot!)
            } else {
                stream.send(data: frame)
            }
        }
    }

    /// A new browser (or a reload): the others get what changed until now, it gets everything.
    private func opened(_ stream: EventStream) {
        publish(skipping: stream)
        stream.send(data: frames.snapshot)
    }

    private func keepAlive() {
        keepAliveTimer = loop.schedule(after: Self.keepAliveSeconds) { [unowned self] in
            guard let server else { return }
            for stream in server.streams { stream.sendKeepAlive() }
            keepAlive()
        }
    }
}
