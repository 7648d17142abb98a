extension String {
    /// The text without leading and trailing white space (Unicode's, not only ASCII's): for the
    /// values people type into config files, requests and the command line.
    package func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}
