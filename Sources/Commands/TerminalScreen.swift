#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The terminal `watch` draws on: stdout in the alternate screen with the cursor hidden, so that
/// leaving gives back the shell's screen as it was. Each frame rewrites the screen from the top
/// line by line, clearing the rest of each line and of the screen, in one write (no flicker from
/// a blank screen between frames).
///
/// When stdin is a terminal too, it is switched out of line mode and echo while `watch` draws,
/// so that a key acts at once and does not print over the view; signals stay on (ISIG), so
/// Ctrl-C is still SIGINT. `leave` puts back the settings found, on every way out that runs it
/// (Ctrl-C, SIGTERM, `q`). Keys come from stdin, not `/dev/tty`: a script that starts `watch`
/// in the background gives it /dev/null as stdin unless it hands over its own (`make demo`
/// does, and ends with `watch`), and one that keeps running after `watch` ends would be left
/// with nothing on screen if `q` worked there.
final class TerminalScreen {
    private(set) var entered = false
    /// stdin's settings before `enter`; nil when stdin is no terminal (no keys then).
    private var savedInput: termios?

    /// Whether keys can be read: stdin is the terminal, switched to single keys.
    var readsKeys: Bool { savedInput != nil }

    /// Whether stdout is a terminal: else `watch` prints lines.
    static var isTerminal: Bool { isatty(1) == 1 }

    /// Colour unless NO_COLOR is set to anything (no-color.org) or the terminal is `dumb`.
    static var wantsColor: Bool {
        let noColor = getenv("NO_COLOR").map { String(cString: $0) } ?? ""
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        return noColor.isEmpty && term != "dumb"
    }

    /// Columns × rows from TIOCGWINSZ; 80 × 24 when the terminal does not say.
    var size: (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    func enter() {
        guard !entered else { return }
        entered = true
        var settings = termios()
        // Only in the terminal's foreground: a background job that changes the settings is
        // stopped by SIGTTOU, and its keys belong to the shell anyway.
        if isatty(0) == 1, tcgetpgrp(0) == getpgrp(), tcgetattr(0, &settings) == 0 {
            var keys = settings
            keys.c_lflag &= ~tcflag_t(ICANON | ECHO)
            // One byte is enough for a read to return: poll says when there is one.
            withUnsafeMutableBytes(of: &keys.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            if tcsetattr(0, TCSANOW, &keys) == 0 { savedInput = settings }
        }
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Nothing once left: the loop still runs while the broker connection closes, and a redraw
    /// due then would paint the view over the shell's screen.
    func draw(_ lines: [String]) {
        guard entered else { return }
        write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
    }

    /// Shows the cursor and goes back to the normal screen.
    func leave() {
        guard entered else { return }
        entered = false
        write("\u{1B}[?25h\u{1B}[?1049l")
        if var settings = savedInput {
            // TCSAFLUSH: keys typed but not read are dropped, not handed to the shell as a command.
            _ = tcsetattr(0, TCSAFLUSH, &settings)
            savedInput = nil
        }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
