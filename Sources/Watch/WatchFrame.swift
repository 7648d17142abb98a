/// One drawn frame of `watch`: its lines, and how the gateways' rows are scrolled in it, so that
/// the session can keep the scroll position within what there is to scroll.
public struct WatchFrame: Sendable, Equatable {
    public var lines: [String]
    /// The first gateway line shown, after clamping: 0 when everything fits.
    public var scroll: Int
    /// How many gateway lines are shown at once: what PageUp/PageDown move by.
    public var page: Int

    public init(lines: [String], scroll: Int, page: Int) {
        self.lines = lines
        self.scroll = scroll
        self.page = page
    }
}
