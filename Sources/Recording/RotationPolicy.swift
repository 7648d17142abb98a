/// Size-based rotation of a recording: `path` is the file being written, `path.1` the one before,
/// up to `path.<maxFiles − 1>`; older files are deleted.
///
/// Rotation bounds the disk a recording left on in `run` can take (`maxBytes × maxFiles`), so that
/// capturing a field problem can never fill the gateway's SD card.
public struct RotationPolicy: Hashable, Sendable {
    /// A file is rotated before a record would make it larger than this (a file always takes at
    /// least one record, however large).
    public var maxBytes: Int
    /// Files kept, the current one included; 1 keeps only the current file.
    public var maxFiles: Int

    public init(maxBytes: Int, maxFiles: Int) {
        self.maxBytes = max(1, maxBytes)
        self.maxFiles = max(1, maxFiles)
    }

    /// One file that grows without bound (`uwb2mqtt record --out FILE`).
    public static let none = RotationPolicy(maxBytes: .max, maxFiles: 1)

    /// The name of the `index`-th file: `path` for 0, `path.1`, `path.2`, … after it.
    public static func path(_ base: String, index: Int) -> String { index == 0 ? base : "\(base).\(index)" }
}
