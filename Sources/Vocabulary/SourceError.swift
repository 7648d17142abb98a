/// A problem with a source file (a config, a rules file) as a message for a person, pinned to a
/// place in the file: what the YAML decoder throws, and what the types it decodes throw for their
/// own checks.
///
/// `description` is exactly `file:line:column: message`. The message is written for someone editing a
/// config file, not for a programmer: `expected a number, found "abc"`, `missing key "peers"`,
/// `unknown key "peeers" (expected one of: address, name)`. Callers that validate decoded values
/// themselves throw this type too (see ``Located`` and ``SourceLocating/mark(of:)``), so that every problem
/// with a file reads the same way.
public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for code that wants to react to a class of problem rather than parse text.
    public enum Kind: Sendable, Equatable {
        /// libyaml rejected the text (bad indentation, a tab, an unclosed quote …).
        case syntax
        /// The file holds more than one document, or an alias cannot be resolved, or there are too many.
        case structure
        /// A value has the wrong type or form (text where a number belongs, a list where a mapping belongs).
        case typeMismatch
        /// A required key is absent from a mapping.
        case missingKey
        /// A mapping holds a key the decoded type does not know.
        case unknownKey
        /// A list has fewer items than the type needed.
        case missingItem
        /// A value has the right type but is not acceptable (an unknown choice, a failed validation).
        case invalidValue
    }

    /// Where the problem is: the offending value, key, or (for a missing key) the mapping that lacks it.
    public var mark: SourceMark
    /// The human-readable message, without the location prefix.
    public var message: String
    public var kind: Kind

    /// Creates an error at `mark`. Validators use this for their own checks, e.g.
    /// `throw SourceError(at: exit.mark, "exit_beyond (1.0) must be larger than enter_within (1.3)")`.
    public init(at mark: SourceMark, _ message: String, kind: Kind = .invalidValue) {
        self.mark = mark
        self.message = message
        self.kind = kind
    }

    /// `file:line:column: message`.
    public var description: String { "\(mark): \(message)" }

}
