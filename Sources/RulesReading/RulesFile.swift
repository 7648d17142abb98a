import FoundationEssentials
import Proximity
import Vocabulary
import YAMLCoding

/// Reads and validates a rules file: the YAML text turned into the proximity engine's ``Rules``
/// (which decode from any decoder; YAML's gives their messages line and column).
///
/// Every problem — syntax, unknown key, wrong type, missing or misordered threshold — is one
/// ``SourceError`` whose `description` is `file:line:column: message`, the first problem in the file;
/// a file that fails never produces ``Rules``, so the caller keeps the previous ones.
public enum RulesFile {
    /// Parses `bytes` (UTF-8; UTF-16 with a byte-order mark also works). `file` is used in messages.
    /// The result's ``Rules/sha256`` is the hex SHA-256 of exactly these bytes.
    public static func load(bytes: [UInt8], file: String) throws(SourceError) -> Rules {
        var rules: Rules
        do {
            rules = try YAMLDecoder().decode(Rules.self, from: bytes, file: file)
        } catch let error as SourceError {
            throw error
        } catch {
            // YAMLDecoder documents SourceError as its only error; anything else is still reported, located at the top.
            throw SourceError(at: SourceMark(file: file, line: 1, column: 1), "\(error)")
        }
        rules.sha256 = SHA256.hex(of: bytes)
        rules.bytes = bytes
        return rules
    }

    /// Parses the UTF-8 text of a rules file. See ``load(bytes:file:)``.
    public static func load(text: String, file: String) throws(SourceError) -> Rules {
        try load(bytes: Array(text.utf8), file: file)
    }

    /// Parses the bytes of a rules file. See ``load(bytes:file:)``.
    public static func load(data: Data, file: String) throws(SourceError) -> Rules {
        try load(bytes: [UInt8](data), file: file)
    }
}
