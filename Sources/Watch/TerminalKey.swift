/// A key `watch` acts on, read from the terminal's bytes: `q` quits; the arrows, PageUp/PageDown,
/// Home/End (and vi's `k`/`j`, space for a page) scroll the gateways' rows when they do not fit.
/// Every other byte is ignored: a key pressed by mistake must not do anything surprising.
public enum TerminalKey: Sendable, Equatable {
    case quit, up, down, pageUp, pageDown, home, end

    /// The keys in `bytes`, and the start of an escape sequence cut off at the end (to be put
    /// before the next read's bytes: a terminal may deliver `ESC [ 5 ~` in two reads).
    public static func parse(_ bytes: [UInt8]) -> (keys: [TerminalKey], rest: [UInt8]) {
        var keys: [TerminalKey] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            guard byte == 0x1B else {
                switch byte {
                case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
                case UInt8(ascii: "k"): keys.append(.up)
                case UInt8(ascii: "j"): keys.append(.down)
                case UInt8(ascii: " "): keys.append(.pageDown)
                default: break
                }
                i += 1
                continue
            }
            // CSI (`ESC [`) or SS3 (`ESC O`): parameters (digits, `;`) and one final byte.
            guard i + 1 < bytes.count else { return (keys, Array(bytes[i...])) }
            let introducer = bytes[i + 1]
            guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
                // A lone ESC (the Escape key, or Alt with a key): skip the ESC only.
                i += 1
                continue
            }
            var end = i + 2
            while end < bytes.count, (0x30...0x3F).contains(bytes[end]) { end += 1 }
            guard end < bytes.count else { return (keys, Array(bytes[i...])) }
            let parameters = String(decoding: bytes[(i + 2)..<end], as: UTF8.self)
            switch (Character(UnicodeScalar(bytes[end])), parameters) {
            case ("A", _): keys.append(.up)
            case ("B", _): keys.append(.down)
            case ("H", _), ("~", "1"), ("~", "7"): keys.append(.home)
            case ("F", _), ("~", "4"), ("~", "8"): keys.append(.end)
            case ("~", "5"): keys.append(.pageUp)
            case ("~", "6"): keys.append(.pageDown)
            default: break
            }
            i = end + 1
        }
        return (keys, [])
    }
}
