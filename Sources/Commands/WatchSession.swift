import Service
import EventLoop
import Gateway
import MQTTClient
import Vocabulary
import Watch
import WebServer
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `watch` on the event loop: subscribes to the gateways' trees, hands each message to the pure
/// `WatchModel` and prints the lines it returns, or, on a terminal, draws `WatchScreen` at most
/// ten times a second, once a second at least (the clock and the ages move), and on a resize. Like the agent, it never gives up on the broker:
/// each new reason it cannot connect is one line, and it keeps retrying with back-off until Ctrl-C.
final class WatchSession {
    let broker: BrokerSettings
    /// The gateway ids to follow; empty: all.
    let gateways: [String]
    let console: Console
    private var model: WatchModel
    private var stopRequested = false
    /// The last connection problem printed, so that each retry of the same one stays quiet.
    private var lastProblem: String?
    /// Where the drawn view goes; nil: lines.
    private let terminal: TerminalScreen?
    private let color: Bool
    /// What `watch` last said about its connection: the drawn view's title (and the page's).
    private var connection = ""
    /// `page http://…/  ` before the drawn view's title, when the page is served: first, so that
    /// a narrow terminal cuts the broker's words rather than the address a phone needs.
    private var pageNote = ""
    private var loop: EventLoop?
    /// The pending redraw; at most one, so that a burst of messages is one frame.
    private var redraw: EventLoop.Timer?
    private var lastDraw = -Double.infinity
    /// The gateways' lines scrolled off the top, and a page of them, as the last frame had them.
    private var scroll = 0
    private var page = 1
    /// The start of an escape sequence that a read cut off.
    private var pendingKeyBytes: [UInt8] = []
    private var keyWatch: EventLoop.Watch?

    /// The fuse site to follow, if any.
    let site: String?
    /// `--http`: where to serve the page, and the page once served.
    private let webSettings: WatchWebPage.Settings?
    private var web: WatchWebPage?

    init(broker: BrokerSettings, gateways: [String], site: SiteView? = nil, console: Console, terminal: TerminalScreen? = nil, color: Bool = false,
         web: WatchWebPage.Settings? = nil) {
        self.broker = broker
        webSettings = web
        self.gateways = gateways
        self.site = site?.name
        self.console = console
        self.terminal = terminal
        self.color = color
        model = WatchModel(base: broker.baseTopic, site: site)
    }

    /// The filters: `<base>/+/#`, or `<base>/<gw>/#` for each gateway asked for; and the site's
    /// tree, which `<base>/+/#` covers already when every gateway is followed.
    var filters: [String] {
        let trees = gateways.isEmpty ? ["\(broker.baseTopic)/+/#"] : gateways.map { "\(broker.baseTopic)/\(TopicSegment.sanitize($0))/#" }
        return trees + (site.map { gateways.isEmpty ? [] : ["\(broker.baseTopic)/site/\($0)/#"] } ?? [])
    }

    /// Runs until SIGINT or SIGTERM; 0 then, 1 when the broker settings cannot be used at all.
    func run() -> Int32 {
        let loop: EventLoop
        let client: MQTTClient
        let signals: SignalDescriptor
        do {
            loop = try EventLoop()
            // SIGWINCH's default is to ignore it, so blocking it for the signalfd changes nothing in line mode.
            signals = try SignalDescriptor([SIGINT, SIGTERM, SIGWINCH], on: loop) { [unowned self] number in
                if number == SIGWINCH { changed() } else { stopRequested = true }
            }
            self.loop = loop
            let settings = try BrokerConnection(
                broker: broker, clientID: broker.clientID ?? "uwb2mqtt-watch-\(String(UInt32.random(in: 1...UInt32.max), radix: 16))",
                will: nil,
                // Nothing in the tree is larger (answers and states are the largest): no client can
                // make `watch` take in a huge message.
                maximumIncomingPacketBytes: 1 << 20
            ).configuration(logger: Logger())
            client = try MQTTClient(configuration: settings, loop: loop) { [unowned self] in handle($0) }
            for filter in filters { try client.subscribe(topic: filter, qos: .atLeastOnce) }
            if let webSettings {
                web = try WatchWebPage(webSettings, loop: loop) { [unowned self] in (model, connection) }
            }
            try client.start()
        } catch {
            console.errors("uwb2mqtt: watch: \(error)")
            return ExitStatus.failure
        }
        if let terminal {
            terminal.enter()
            if terminal.readsKeys {
                keyWatch = loop.watch(0, events: Int16(POLLIN)) { [unowned self] _ in readKeys() }
            }
            tick()
        }
        if let web {
            // Said first, on its own line: what a person opens on a phone (`make demo` shows it too).
            if terminal == nil { console.output(PlainLine.clock(secondsSince1970: Clocks.wall()) + " page " + web.url) }
            pageNote = "page " + web.url + "  "
        }
        say("broker \(broker.url): connecting, following \(filters.joined(separator: " "))")
        loop.run(until: { [unowned self] in stopRequested })
        web?.stop()
        if let keyWatch { loop.unwatch(keyWatch) }
        if let redraw { loop.cancel(redraw) }
        terminal?.leave()
        _ = client.disconnect(timeout: .seconds(1))
        withExtendedLifetime(signals) {}
        return ExitStatus.success
    }

    private func handle(_ event: MQTTEvent) {
        switch event {
        case .connected:
            lastProblem = nil
            say("broker \(broker.url): connected")
        case let .disconnected(reason):
            if case .requested = reason { return }
            let problem = "\(reason)"
            guard problem != lastProblem else { return }
            lastProblem = problem
            say("broker \(broker.url): \(problem); retrying with back-off")
        case let .message(message):
            let changes = model.receive(topic: message.topic, payload: message.payload, retained: message.retained, receivedAt: Clocks.wall())
            web?.changed()
            if terminal != nil {
                // A range or feedback moves a number without being a change: any message may.
                changed()
            } else {
                for change in changes { console.output(PlainLine.text(change)) }
            }
        default:
            break
        }
    }

    /// Acts on what was typed: `q` stops, the arrow and page keys scroll the gateways' lines.
    private func readKeys() {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        guard count > 0 else {
            if count < 0, errno == EINTR || errno == EAGAIN { return }
            // End of input (the terminal went away) or a read error: no more keys, the view goes on.
            if let keyWatch { loop?.unwatch(keyWatch) }
            keyWatch = nil
            return
        }
        let (keys, rest) = TerminalKey.parse(pendingKeyBytes + buffer.prefix(count))
        pendingKeyBytes = rest.count > 16 ? [] : rest
        for key in keys {
            switch key {
            case .quit: stopRequested = true
            case .up: scroll -= 1
            case .down: scroll += 1
            case .pageUp: scroll -= page
            case .pageDown: scroll += page
            case .home: scroll = 0
            case .end: scroll = Int.max / 2
            }
        }
        if !keys.isEmpty { changed() }
    }

    /// A line about `watch`'s own connection, in the same shape as the gateways' lines.
    private func say(_ text: String) {
        connection = text
        web?.changed()
        guard terminal != nil else { return console.output(PlainLine.clock(secondsSince1970: Clocks.wall()) + " " + text) }
        changed()
    }

    /// Something on screen changed: draw it, but no sooner than 100 ms after the last frame.
    private func changed() {
        guard let loop, terminal != nil, redraw == nil else { return }
        let wait = max(0, lastDraw + 0.1 - Clocks.monotonic())
        redraw = loop.schedule(after: wait) { [unowned self] in
            redraw = nil
            draw()
        }
    }

    /// A frame each second even when no message came: the clock and the ages of the last
    /// measurements move, and a peer whose measurements stopped should look it.
    private func tick() {
        changed()
        _ = loop?.schedule(after: 1) { [unowned self] in tick() }
    }

    private func draw() {
        guard let terminal else { return }
        lastDraw = Clocks.monotonic()
        let size = terminal.size
        let frame = WatchScreen.frame(model, title: pageNote + connection, now: Clocks.wall(), width: size.width, height: size.height, color: color, scroll: scroll)
        // Kept within what there is: keys pressed past the end must not have to be taken back.
        scroll = frame.scroll
        page = max(1, frame.page)
        terminal.draw(frame.lines)
    }
}
