/// What a value on the command line is: what the parser accepts for it and what shell completion
/// offers.
enum ValueKind: Sendable, Equatable {
    /// Free text (`X,Y,Z`, hex): accepted as given, nothing to complete.
    case text
    /// A file name.
    case file
    /// One of these words and nothing else (`config|rules`).
    case choice([String])
    /// One of these words or a file name (a built-in scenario or a scenario file).
    case fileOr([String])
    /// The name of a `uwb2mqtt` command (`help COMMAND`); looked up when needed, because the
    /// command list holds the very command that declares it.
    case command

    /// The words completion offers.
    var words: [String] {
        switch self {
        case .text, .file: []
        case let .choice(words), let .fileOr(words): words
        case .command: CommandLineTool.commands.map { $0.declaration.name }
        }
    }

    /// Whether completion offers file names.
    var completesFiles: Bool {
        switch self {
        case .file, .fileOr: true
        case .text, .choice, .command: false
        }
    }
}
