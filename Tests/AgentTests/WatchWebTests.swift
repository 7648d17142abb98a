import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `uwb2mqtt watch --http` as a person on site sees it: the real executable against a real
/// mosquitto, the agent on the simulator, and the page in Debian's headless Chromium sized as a
/// phone held upright, read through its DOM (the text a person reads, the elements drawn).
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: HeadlessChromium.isInstalled))
struct WatchWebTests {
    /// `uwb2mqtt watch --plain --http 127.0.0.1:0 ARGUMENTS` and the page's address, which it
    /// prints first (the kernel chose the port: no race for a free one).
    func startWatch(_ arguments: [String], in dir: TemporaryDirectory) async throws -> (ChildProcess, String) {
        let watch = try ChildProcess(executable: AgentProcess.executable, arguments: ["watch", "--plain"] + arguments,
                                     stdoutPath: dir.file("watch.out"), stderrPath: dir.file("watch.err"))
        var url: String?
        await eventually("the page's address") {
            url = lines(watch).lazy.compactMap { $0.firstMatch(of: #/ page (https?://\S+/)$/#).map { String($0.1) } }.first
            return url != nil
        }
        return (watch, try #require(url, "watch said: \(lines(watch)) \(errors(watch))"))
    }

    /// The port of the page's address (`http://127.0.0.1:PORT/`).
    static func port(of url: String) throws -> UInt16 {
        let match = try #require(url.firstMatch(of: #/:(\d+)/$/#))
        return try #require(UInt16(match.1))
    }

    func lines(_ process: ChildProcess) -> [String] {
        ((try? String(contentsOfFile: process.stdoutPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func errors(_ process: ChildProcess) -> String { (try? String(contentsOfFile: process.stderrPath, encoding: .utf8)) ?? "" }

    /// Evaluates `expression` in the page until it returns true or `timeout` passes (an issue then,
    /// with what the page showed).
    @discardableResult
    func page(_ page: HeadlessChromium.Page, shows what: String, timeout: Double = 15, _ expression: String) async -> Bool {
        if await waitUntil(timeout: timeout, { ((try? page.evaluate(expression)) as? Bool) == true }) { return true }
        Issue.record("timed out waiting for the page to show \(what); it showed:\n\(page.text())")
        return false
    }

    /// The row of a peer: `[data-peer]` compared in the script, so that any name can be asked for.
    static func peerRow(_ name: String) -> String {
        "[...document.querySelectorAll('li.peer')].find(row => row.dataset.peer === \(jsString(name)))"
    }

    static func jsString(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
    }

    /// Where the screenshots go: beside the build, kept after the run (the suite's temporary
    /// directories are not).
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/screenshots").standardized.path

    @Test func aPhoneFollowsTheWalkLive() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web")
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/peer/phone-anna/#"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkUpAndStay, directory: dir)
        defer { agent.stop() }
        let chromium = try HeadlessChromium()
        defer { chromium.stop() }
        let phone = try chromium.open(url)

        await page(phone, shows: "the gateway online and ranging", timeout: 30, """
            [...document.querySelectorAll('article.gateway')].some(card => card.dataset.gateway === 'gw'
              && card.innerText.includes('gw online') && card.innerText.includes('device ranging'))
            """)
        // The page follows her live as she walks in: every distance it shows is one the broker
        // carried (a `range` or `state` of hers with that distance, in centimetres) less than a
        // second before the newest measurement of hers that an independent subscriber had at that
        // moment. The subscriber is the clock, not the measurement's `ts`: on a loaded machine the
        // agent and the broker can be late, which is not the page's doing. Only distances of the
        // walk are judged: standing, her few noisy values recur, and a page seconds behind would
        // still match a recent one.
        func measured(_ messages: ArraySlice<MQTTTestSubscriber.Message>) -> [(ts: Double, text: String)] {
            messages.compactMap { message in
                let payload = json(message.payload)
                guard let distance = payload["distance_m"] as? Double, let ts = payload["ts"] as? String, let seconds = Self.seconds(ts) else { return nil }
                return (seconds, Self.centimetres(distance))
            }
        }
        func walking(_ text: String) -> Bool {
            Double(text.dropLast(2)).map { $0 > 1.5 && $0 < 11.5 } ?? false
        }
        var shown: [(text: String, received: Int)] = []
        let walkDeadline = Date().addingTimeInterval(60)
        while shown.count < 12, Date() < walkDeadline {
            if let text = try? phone.evaluate("(() => { const row = \(Self.peerRow("phone-anna")); return row ? row.querySelector('.distance').textContent : null })()") as? String,
               walking(text), text != shown.last?.text {
                shown.append((text, subscriber.messages.count))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(shown.count >= 6, "the page's distance moved \(shown.count) times while she walked: \(shown.map(\.text))")
        let all = subscriber.messages
        for sample in shown {
            let known = measured(all[..<sample.received])
            let newest = known.map(\.ts).max() ?? 0
            let match = known.filter { $0.text == sample.text }.map(\.ts).max()
            // The page can be a message ahead of the subscriber's file: one still on its way counts.
            let onItsWay = measured(all[sample.received...]).contains { $0.text == sample.text && $0.ts - newest < 1.0 }
            #expect(match.map { newest - $0 < 1.0 } == true || onItsWay,
                    "\(sample.text) shown: measured \(match.map { "\(newest - $0) s" } ?? "never (by then)") before the newest the broker had carried")
        }

        // Her zone_enter, in words, as the plain view writes it.
        await page(phone, shows: "phone-anna's zone_enter in words", timeout: 40, """
            /^\\d\\d:\\d\\d:\\d\\d gw · phone-anna · zone_enter counter at \\d+\\.\\d\\d m after \\d+ ms dwell \\(threshold 1(\\.0)? m\\)$/m
              .test(document.getElementById('events').innerText)
            """)
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        try phone.screenshot(to: Self.screenshots + "/watch-web-phone.png")
        // What the terminal view shows of each peer is there in words too.
        let text = phone.text()
        #expect(text.contains("rules ok"), "\(text)")
        #expect(text.contains("tool-cart"), "\(text)")
        #expect(text.contains("ranking "), "\(text)")
        #expect(try phone.evaluate("\(Self.peerRow("phone-anna")).querySelectorAll('.bar .mark').length") as? Int ?? 0 > 0,
                "the rules' distances marked on her bar")

        // A second browser, and the first one reloaded: each has the state as it is, at once (within
        // three seconds of being opened, where frames come four times a second and the stream starts
        // with everything: her zone_enter happened once, long before, and is only in that start).
        let shows = """
            (\(Self.peerRow("phone-anna")) || null) !== null
              && / m$/.test(\(Self.peerRow("phone-anna")).querySelector('.distance').textContent)
              && document.getElementById('events').innerText.includes('zone_enter counter')
            """
        let openedAt = Date()
        let second = try chromium.open(url)
        await page(second, shows: "a second browser: phone-anna with a distance and the events", timeout: 5, shows)
        #expect(Date().timeIntervalSince(openedAt) < 3, "a second browser had the state within \(Date().timeIntervalSince(openedAt)) s")
        let reloadedAt = Date()
        try phone.reload()
        await page(phone, shows: "the reloaded page: phone-anna with a distance and the events", timeout: 5, shows)
        #expect(Date().timeIntervalSince(reloadedAt) < 3, "the reloaded page had the state within \(Date().timeIntervalSince(reloadedAt)) s")
        #expect(agent.process.isRunning)
        // SIGTERM with two pages' streams open: watch ends them and exits cleanly, at once.
        #expect(watch.terminate(grace: .seconds(3)) == .exited(0), "\(errors(watch))")
    }

    /// With a site: four gateways on the simulator where their status puts them, the real fuse
    /// placing the tag, and the page's map drawing the tag inside the zone it is in, in words too.
    @Test func theMapShowsTheTagInsideItsZone() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-site")
        let fusePath = try dir.write("fuse.yaml", fuseConfig(url: broker.url, checkoutPolygon: "[[0, 0], [2.5, 0], [2.5, 2], [0, 2]]"))
        let (watch, url) = try await startWatch(["--fuse-config", fusePath, "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        var agents: [AgentProcess] = []
        defer { for agent in agents { agent.stop() } }
        for (id, x, y) in SiteEndToEndTests.gateways {
            agents.append(try AgentProcess(config: """
                gateway: {id: \(id), position: {x: \(x), y: \(y), z: 2.5}, heading_deg: 0}
                device:
                  ranging_interval: 100ms
                  peers: [{address: 0x0001, name: cart}]
                mqtt: {url: "\(broker.url)", spool_dir: "\(dir.file("spool-" + id))", metrics_interval: 60s}
                """, scenario: SiteEndToEndTests.scenario, directory: dir, name: id))
        }
        let fuse = try ChildProcess(executable: AgentProcess.executable, arguments: ["fuse", "--config", fusePath],
                                    stdoutPath: dir.file("fuse.out"), stderrPath: dir.file("fuse.err"))
        defer { fuse.terminate() }
        let chromium = try HeadlessChromium()
        defer { chromium.stop() }
        let phone = try chromium.open(url)
        // The tag's dot (its centre, in the map's coordinates) inside the zone's outline as drawn,
        // and the legend saying so.
        await page(phone, shows: "cart inside checkout on the map", timeout: 60, """
            (() => {
              const tag = document.querySelector('#map g.tag[data-tag="cart"] .tag-dot');
              const zone = [...document.querySelectorAll('#map polygon.zone')].find(z => z.dataset.zone === 'checkout');
              const legend = [...document.querySelectorAll('#tags li')].find(li => li.dataset.tag === 'cart');
              if (!tag || !zone || !legend || !legend.textContent.includes('in checkout')) return false;
              const x = +tag.getAttribute('cx'), y = +tag.getAttribute('cy');
              const points = zone.getAttribute('points').split(' ').map(p => p.split(',').map(Number));
              let inside = false;
              for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
                const [xi, yi] = points[i], [xj, yj] = points[j];
                if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
              }
              return inside && document.querySelectorAll('#map polygon.gateway-mark').length === 4;
            })()
            """)
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        try phone.screenshot(to: Self.screenshots + "/watch-web-site.png")
        #expect(phone.text().contains("fuse online"), "\(phone.text())")
        #expect(watch.isRunning)
    }

    /// A peer named as markup, and a gateway whose id is markup: shown as the characters they are,
    /// no element made of them, no script run (an alert would also stop the page updating).
    @Test func hostileNamesStayText() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-hostile")
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        let hostile = "<img src=x onerror=alert(1)>"
        let config = testConfig(url: broker.url, spool: dir.file("spool"))
            .replacingOccurrences(of: "name: phone-anna", with: "name: \"\(hostile)\"")
        let agent = try AgentProcess(config: config, scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/device",
                                            message: #"{"state": "error", "error": "<script>alert(2)</script>", "ts": "2026-11-29T12:00:00.000Z"}"#)
        let chromium = try HeadlessChromium()
        defer { chromium.stop() }
        let phone = try chromium.open(url)
        await page(phone, shows: "the hostile name as text", timeout: 30,
                   "(\(Self.peerRow(hostile)) || null) !== null && \(Self.peerRow(hostile)).querySelector('.name').textContent === \(Self.jsString(hostile))")
        await page(phone, shows: "the device error as text",
                   "document.body.innerText.includes('device error: <script>alert(2)</script>')")
        #expect(try phone.evaluate("document.querySelectorAll('img').length") as? Int == 0)
        #expect(try phone.evaluate("document.querySelectorAll('script').length") as? Int == 1, "only the page's own script")
        // Still updating: a state the page had not seen arrives after the names were drawn.
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/status",
                                            message: #"{"state": "online", "version": "after-the-names", "ts": "2026-11-29T12:00:01.000Z"}"#)
        await page(phone, shows: "the gateway's status after the names", "document.body.innerText.includes('lobby online')")
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        try phone.screenshot(to: Self.screenshots + "/watch-web-hostile.png")
        #expect(watch.isRunning)
    }

    /// 200 connections opened and dropped — some silent, some halfway through a request, some
    /// with headers beyond the limit, some reading the stream — and the page is still served
    /// and live, to a browser that comes after them.
    @Test func twoHundredDroppedConnectionsLeaveThePageServing() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-flood")
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        let port = try Self.port(of: url)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/status",
                                            message: #"{"state": "online", "version": "flood", "ts": "2026-11-29T12:00:00.000Z"}"#, retain: true)
        let requests = ["", "GET / HTTP/1.1\r\nHost: x\r\n", "GET /events HTTP/1.1\r\nHost: x\r\n\r\n",
                        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 40_000) + "\r\n\r\n",
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nxxxx", "\u{16}\u{3}\u{1}\u{2}\u{0}garbage\r\n\r\n"]
        var sockets: [Int32] = []
        for index in 0..<200 {
            let socket = Self.connect(port: port)
            if socket >= 0 {
                Self.send(socket, requests[index % requests.count])
                sockets.append(socket)
            }
            // In waves of 50, so that the server's connection limit is met and passed.
            if sockets.count == 50 {
                for socket in sockets { close(socket) }
                sockets = []
            }
        }
        for socket in sockets { close(socket) }
        #expect(watch.isRunning, "\(errors(watch))")
        let chromium = try HeadlessChromium()
        defer { chromium.stop() }
        let phone = try chromium.open(url)
        await page(phone, shows: "the gateway after the flood", "document.body.innerText.includes('lobby online')")
        #expect(watch.isRunning)
    }

    /// Three times as many clients as the server takes (64), from ten addresses (at most 24
    /// each), halfway through a request and then gone. At its limit the library takes its
    /// listening socket out of its wait and puts it back only when it runs again, which, with
    /// nothing else due, it never did: every later browser waited in the accept queue for good.
    /// And the clients that left while waiting to be accepted each held one of the 64 for the
    /// whole idle timeout (their end came with their bytes, and the library never read it), 64
    /// at a time, for minutes.
    @Test func aBurstPastTheConnectionLimitLeavesThePageServing() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-burst")
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        let port = try Self.port(of: url)
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for index in 0..<200 {
            let socket = Self.connect(port: port, source: UInt8(2 + index % 10))
            if socket >= 0 {
                Self.send(socket, "GET / HTTP/1.1\r\nHost: x\r\n")
                sockets.append(socket)
            }
        }
        #expect(sockets.count == 200)
        // The server took its 64 and left the others in the kernel's accept queue.
        await eventually("the server holding its 64 and the rest queued") { Self.acceptQueue(port: port) == 200 - 64 }
        // All gone by the time it runs again: its next run finds every one of its 64 closed.
        kill(watch.pid, SIGSTOP)
        await eventually("watch stopped") { Self.isStopped(pid: watch.pid) }
        for socket in sockets { close(socket) }
        sockets = []
        kill(watch.pid, SIGCONT)
        await eventually("the page served again", timeout: 20) {
            Self.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", answers: 1).contains("HTTP/1.1 200")
        }
        #expect(watch.isRunning)
    }

    /// Clients that send their headers a byte every two seconds are never silent for 30 s: 24
    /// of them held every connection one address may have, for as long as they liked. A
    /// connection still without its request after 10 s is closed once silent for a second, and
    /// the address is served again.
    @Test func clientsDrippingTheirHeadersAreClosed() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-drip")
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        let port = try Self.port(of: url)
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for _ in 0..<24 {
            let socket = Self.connect(port: port)
            if socket >= 0 {
                Self.send(socket, "GET / HTTP/1.1\r\n")
                sockets.append(socket)
            }
        }
        #expect(sockets.count == 24)
        // The clients' pace, a header byte every 2 s, until the server has closed them all.
        let start = Date()
        var closed = 0
        while closed < sockets.count, Date().timeIntervalSince(start) < 30 {
            for socket in sockets { Self.send(socket, "X") }
            try await Task.sleep(for: .seconds(2))
            closed = sockets.count { Self.isClosedByPeer($0) }
        }
        #expect(closed == 24, "\(closed) of 24 closed after \(Date().timeIntervalSince(start)) s")
        #expect(Self.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", answers: 1).contains("HTTP/1.1 200"))
        #expect(watch.isRunning)
    }

    /// The other end closed the connection: a read finds its end (or its reset).
    static func isClosedByPeer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Guessing the password went at thousands a second. Past ten wrong ones within a minute an
    /// address is answered 429 without its password being looked at, the right one included, and
    /// a browser on another address signs in as before.
    @Test func wrongPasswordsFromOneAddressAreSlowedDown() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-guess")
        let passwordFile = try dir.write("http-password", "s3cret-walk\n")
        chmod(passwordFile, 0o600)
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0", "--http-user", "site",
                                                 "--http-password-file", passwordFile], in: dir)
        defer { _ = watch.terminate() }
        let port = try Self.port(of: url)
        func request(_ credentials: String) -> String {
            "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic \(Data(credentials.utf8).base64EncodedString())\r\n\r\n"
        }
        func status(_ answer: String) -> String { String(answer.dropFirst("HTTP/1.1 ".count).prefix(3)) }
        let guesses = (0..<12).map { _ in status(Self.exchange(port: port, request("site:guess"), answers: 1)) }
        #expect(guesses == Array(repeating: "401", count: 10) + ["429", "429"], "\(guesses)")
        let answer = Self.exchange(port: port, request("site:s3cret-walk"), answers: 1)
        #expect(status(answer) == "429" && answer.contains("Retry-After: 60"), "\(answer)")
        #expect(status(Self.exchange(port: port, request("site:s3cret-walk"), answers: 1, source: 2)) == "200")
        #expect(!(lines(watch).joined() + errors(watch)).contains("s3cret-walk"))
    }

    /// Whether the process is stopped (SIGSTOP): `T` in `/proc/PID/stat`.
    static func isStopped(pid: Int32) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // The state follows the command's closing parenthesis.
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[close...].dropFirst(2).first == "T"
    }

    /// Connections waiting in the accept queue of the socket listening on `port` (127.0.0.1).
    static func acceptQueue(port: UInt16) -> Int {
        let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
        let local = String(format: "0100007F:%04X", port)
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            // sl, local_address, rem_address, st (0A: listening), tx_queue:rx_queue, …
            guard fields.count > 4, fields[1] == local, fields[3] == "0A" else { continue }
            return Int(fields[4].split(separator: ":").last ?? "", radix: 16) ?? 0
        }
        return 0
    }

    /// Streams whose readers stopped reading (a phone put away with the page open, a link gone
    /// quiet) hold nothing up: watch's own lines and another browser stay live.
    @Test func browsersThatStopReadingHoldNothingUp() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-stalled")
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        let port = try Self.port(of: url)
        var stalled: [Int32] = []
        defer { for socket in stalled { close(socket) } }
        for _ in 0..<8 {
            let socket = Self.connect(port: port, receiveBuffer: 1024)
            if socket >= 0 {
                Self.send(socket, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                stalled.append(socket)
            }
        }
        #expect(stalled.count == 8)
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }
        let chromium = try HeadlessChromium()
        defer { chromium.stop() }
        let phone = try chromium.open(url)
        await eventually("watch's line for the zone_enter", timeout: 40) {
            lines(watch).contains { $0.contains(#/ gw  phone-anna  zone_enter counter at /#) }
        }
        await page(phone, shows: "the zone_enter on a live page beside the stalled ones",
                   "document.getElementById('events').innerText.includes('zone_enter counter')")
        #expect(watch.isRunning)
        #expect(ProcFS.residentKiB(pid: watch.pid) < 64 * 1024, "VmRSS \(ProcFS.residentKiB(pid: watch.pid)) KiB")
    }

    /// Plain HTTP as the library speaks it: the page's files over one kept-alive connection, and
    /// anything but GET and HEAD refused before its body is read.
    @Test func filesShareAConnectionAndOtherMethodsAreRefused() async throws {
        let dir = try TemporaryDirectory(prefix: "watch-web-http")
        let (watch, url) = try await startWatch(["--broker", "mqtt://127.0.0.1:1", "--http", "127.0.0.1:0"], in: dir)
        defer { _ = watch.terminate() }
        let port = try Self.port(of: url)
        let kept = Self.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /watch.js HTTP/1.1\r\nHost: x\r\n\r\n", answers: 2)
        #expect(kept.components(separatedBy: "HTTP/1.1 200 OK").count == 3, "\(kept.prefix(600))")
        #expect(kept.contains("Content-Security-Policy: default-src 'none'; script-src 'self'"))
        #expect(kept.contains("Content-Type: text/javascript"))
        let post = Self.exchange(port: port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nabc", answers: 1)
        #expect(post.hasPrefix("HTTP/1.1 405"), "\(post.prefix(300))")
        #expect(watch.isRunning)
    }

    /// With a password and a certificate: HTTPS, and nothing without the password; the password
    /// never in what watch prints. And an address beyond loopback without a password is refused.
    @Test func aPasswordAndHTTPSBeyondLoopback() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-web-auth")
        let refused = try ChildProcess(executable: AgentProcess.executable, arguments: ["watch", "--broker", broker.url, "--http", "0.0.0.0:0"],
                                       stdoutPath: dir.file("refused.out"), stderrPath: dir.file("refused.err"))
        defer { _ = refused.terminate() }
        #expect(await refused.waitForExit(timeout: .seconds(10)) == .exited(2))
        #expect(errors(refused).contains("--http 0.0.0.0:0 serves beyond this machine: give --http-password-file FILE"), "\(errors(refused))")

        let ca = try await TestCA.create()
        let passwordFile = try dir.write("http-password", "s3cret-walk\n")
        chmod(passwordFile, 0o600)
        let (watch, url) = try await startWatch(["--broker", broker.url, "--http", "127.0.0.1:0", "--http-user", "site",
                                                 "--http-password-file", passwordFile, "--http-cert", ca.serverCertFile, "--http-key", ca.serverKeyFile], in: dir)
        defer { _ = watch.terminate() }
        #expect(url.hasPrefix("https://127.0.0.1:"), "\(url)")
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/status",
                                            message: #"{"state": "online", "version": "tls", "ts": "2026-11-29T12:00:00.000Z"}"#, retain: true)
        let chromium = try HeadlessChromium()
        defer { chromium.stop() }
        // Without the password, or with a wrong one: 401 (headless Chromium then waits for
        // credentials that nobody types; the status is what a person's browser would act on).
        let stranger = try chromium.open(url)
        let wrong = try chromium.open(url, headers: ["Authorization": "Basic " + Data("site:guess".utf8).base64EncodedString()])
        for (tab, who) in [(stranger, "no password"), (wrong, "a wrong password")] {
            await eventually("401 for \(who)") {
                _ = tab.text()
                return tab.statuses.contains(401)
            }
            #expect(!tab.statuses.contains(200), "\(who): \(tab.statuses)")
            #expect(!tab.text().contains("lobby"))
        }
        let site = try chromium.open(url, headers: ["Authorization": "Basic " + Data("site:s3cret-walk".utf8).base64EncodedString()])
        await page(site, shows: "the gateway over HTTPS with the password", "document.body.innerText.includes('lobby online')")
        #expect(try site.evaluate("location.protocol") as? String == "https:")
        #expect(!(lines(watch).joined() + errors(watch)).contains("s3cret-walk"))
    }

    /// A connection to 127.0.0.1:`port` from 127.0.0.`source`.
    static func connect(port: UInt16, receiveBuffer: Int32? = nil, source: UInt8 = 1) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = (in_addr_t(0x7f00_0000) | in_addr_t(source)).bigEndian
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            return -1
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// Sends `request` on a new connection and reads until `answers` status lines came, the
    /// connection closed or 5 s passed.
    static func exchange(port: UInt16, _ request: String, answers: Int, source: UInt8 = 1) -> String {
        let fd = connect(port: port, source: source)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = Array(request.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, String(decoding: received, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").count <= answers {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    static func send(_ fd: Int32, _ text: String) {
        guard !text.isEmpty else { return }
        let bytes = Array(text.utf8)
        // Non-blocking: a server that stopped reading must not stall the test.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// `4.53 m`, rounded as the page rounds.
    static func centimetres(_ metres: Double) -> String {
        let centimetres = Int((metres * 100).rounded())
        return "\(centimetres / 100)." + (centimetres % 100 < 10 ? "0" : "") + "\(centimetres % 100) m"
    }

    /// `2026-11-29T12:03:04.123Z` → seconds since 1970.
    static func seconds(_ ts: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: ts)?.timeIntervalSince1970
    }
}
