extension Array {
    /// `+=` that skips the call when there is nothing to add: most measurements produce no events,
    /// and appending even an empty array to an empty one allocates a buffer.
    mutating func appendIfAny(_ other: [Element]) {
        if !other.isEmpty { append(contentsOf: other) }
    }
}
