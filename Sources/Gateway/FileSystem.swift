import FoundationEssentials

/// File-system facts the commands share.
package enum FileSystem {
    /// The directory for temporary files, with a trailing slash: $TMPDIR, else /tmp/.
    package static var temporaryDirectory: String {
        let path = FileManager.default.temporaryDirectory.path
        return path.hasSuffix("/") ? path : path + "/"
    }
}
