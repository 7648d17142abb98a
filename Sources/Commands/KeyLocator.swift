import FoundationEssentials
import YAMLCoding
import Vocabulary

/// Finds where a key is written in a config file, so that warnings about a valid config can
/// still point at `file:line:column` (the decoded configuration no longer knows).
struct KeyLocator {
    let path: String
    let document: YAMLDocument?

    init(path: String) {
        self.path = path
        if let data = FileManager.default.contents(atPath: path) {
            document = try? YAMLDocument(bytes: Array(data), file: path)
        } else {
            document = nil
        }
    }

    /// The mark of the value at `keys` (e.g. `["mqtt", "password_file"]`); the file alone (as
    /// `file:1:1`) when the key is absent (a default).
    func mark(_ keys: [String]) -> SourceMark {
        var node = document?.root
        for key in keys {
            guard case let .mapping(entries)? = node?.content, let entry = entries.first(where: { $0.key == key }) else {
                return SourceMark(file: path, line: 1, column: 1)
            }
            node = entry.value
        }
        return node?.mark ?? SourceMark(file: path, line: 1, column: 1)
    }

    /// The mark of the value at `keys`, else of the nearest enclosing key the file writes: a
    /// warning about a default (`device.session_key_info` left out) points at its section.
    func nearestMark(_ keys: [String]) -> SourceMark {
        var node = document?.root
        var found: SourceMark?
        for key in keys {
            guard case let .mapping(entries)? = node?.content, let entry = entries.first(where: { $0.key == key }) else { break }
            node = entry.value
            found = entry.value.mark
        }
        return found ?? SourceMark(file: path, line: 1, column: 1)
    }
}
