#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The terminal `watch` draws on: stdout in the alternate screen with the cursor hidden, so that
/// leaving gives back the shell's screen as it was. Each frame rewrites the screen from the top
/// line by line, clearing the rest of each line and of the screen, in one write (no flicker from
/// a blank screen between frames).
final class TerminalScreen {
    private(set) var entered = false

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
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    func draw(_ lines: [String]) {
        write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
    }

    /// Shows the cursor and goes back to the normal screen.
    func leave() {
        guard entered else { return }
        entered = false
        write("\u{1B}[?25h\u{1B}[?1049l")
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
