import CYAML
import Vocabulary

/// Turns libyaml's event stream into a ``YAMLNode`` tree.
///
/// The event API (not libyaml's document API) is used because it gives a mark for every node and lets us
/// resolve aliases ourselves, counting what they expand to so that an alias bomb stops with an error
/// instead of exhausting time or memory. All libyaml state lives in heap-allocated structs freed by
/// `defer`, so every path — success, syntax error, our own structural errors — releases it.
enum YAMLParser {
    /// Returns the single document's root, or nil for a stream with no document.
    static func parse(bytes: [UInt8], file: String, maxAliasExpansion: Int) throws -> YAMLNode? {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw SourceError(at: SourceMark(file: file, line: 1, column: 1),
                            "out of memory while starting the YAML parser", kind: .syntax)
        }
        defer { yaml_parser_delete(parser) }

        return try bytes.withUnsafeBufferPointer { buffer in
            // libyaml reads the buffer while parsing; it stays valid for this whole closure.
            // An empty array may have no base address; libyaml needs a non-null pointer even for size 0.
            var empty: UInt8 = 0
            if let base = buffer.baseAddress {
                yaml_parser_set_input_string(parser, base, buffer.count)
            } else {
                yaml_parser_set_input_string(parser, &empty, 0)
            }
            var builder = TreeBuilder(file: file, maxAliasExpansion: maxAliasExpansion)
            let event = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
            defer { event.deallocate() }
            while true {
                guard yaml_parser_parse(parser, event) == 1 else {
                    throw syntaxError(parser.pointee, bytes: bytes, file: file)
                }
                // The event owns strings (anchor, tag, value); free it whether or not handling throws.
                let done: Bool
                do {
                    defer { yaml_event_delete(event) }
                    done = try builder.handle(event.pointee)
                }
                if done { return builder.root }
            }
        }
    }

    /// Converts libyaml's error state into a ``SourceError`` at the mark libyaml reports.
    private static func syntaxError(_ p: yaml_parser_t, bytes: [UInt8], file: String) -> SourceError {
        let problem = p.problem.map { String(cString: $0) } ?? "unknown problem"
        switch p.error {
        case YAML_MEMORY_ERROR:
            return SourceError(at: SourceMark(file: file, line: 1, column: 1),
                             "out of memory while parsing", kind: .syntax)
        case YAML_READER_ERROR:
            // Reader errors carry a byte offset, not a mark: count lines and characters up to it.
            let (line, column) = position(ofByte: p.problem_offset, in: bytes)
            return SourceError(at: SourceMark(file: file, line: line, column: column),
                             "the file is not valid text: \(problem)", kind: .syntax)
        default:
            let mark = p.problem_mark
            var message = problem
            if let context = p.context.map({ String(cString: $0) }) {
                message += " \(context)"
                let c = p.context_mark
                if c.line != mark.line || c.column != mark.column {
                    message += " started at line \(c.line + 1) column \(c.column + 1)"
                }
            }
            if isTab(atCharacter: Int(mark.index), in: bytes) {
                message = "tab characters cannot be used for indentation, use spaces (\(message))"
            }
            return SourceError(at: SourceMark(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1),
                             message, kind: .syntax)
        }
    }

    /// Whether the `index`-th character (libyaml counts characters, not bytes) is a tab: the commonest
    /// syntax error in hand-edited YAML, whose libyaml wording ("found character that cannot start any
    /// token") does not say so.
    private static func isTab(atCharacter index: Int, in bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self).unicodeScalars
        guard index >= 0, index < text.count else { return false }
        return text[text.index(text.startIndex, offsetBy: index)] == "\t"
    }

    private static func position(ofByte offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in bytes.prefix(min(offset, bytes.count)) {
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1  // count UTF-8 lead bytes only: one per character
            }
        }
        return (line, column)
    }
}

/// The state of the event-to-tree conversion: open collections, anchors, and the alias budget.
private struct TreeBuilder {
    /// A collection whose end event has not arrived yet. A class so that appending a child mutates
    /// the open collection in place; an enum payload taken out and put back would copy its array on
    /// every child, which made a 20 000-key mapping take seconds.
    private final class Frame {
        let isSequence: Bool
        var header: Header
        var items: [YAMLNode] = []
        var entries: [YAMLMappingEntry] = []
        /// A mapping's key waiting for its value.
        var pendingKey: (text: String, mark: SourceMark)?
        /// A mapping's keys so far, for the duplicate-key check.
        var seen: [String: SourceMark] = [:]

        init(isSequence: Bool, header: Header) {
            self.isSequence = isSequence
            self.header = header
        }
    }

    private struct Header {
        var mark: SourceMark
        var tag: String?
        var anchor: String?
        var id: Int
        var size: Int
        /// Levels of collections below this one, aliases included.
        var height: Int
    }

    /// Decoding, the unknown-key walk and releasing the tree all recurse once per level, so a file of
    /// ten thousand `[` must stop here with an error rather than overflow the stack later.
    /// Real files nest a handful of levels.
    static let maxDepth = 200

    let file: String
    let maxAliasExpansion: Int
    private(set) var root: YAMLNode?
    private var stack: [Frame] = []
    /// Completed anchored nodes with their size in nodes (what an alias to them expands to) and how
    /// many levels of collections they hold (how much deeper an alias to them makes the tree).
    private var anchors: [String: (node: YAMLNode, size: Int, height: Int)] = [:]
    private var openAnchors: Set<String> = []
    private var expanded = 0
    private var nextID = 0
    private var documents = 0

    init(file: String, maxAliasExpansion: Int) {
        self.file = file
        self.maxAliasExpansion = maxAliasExpansion
    }

    private func mark(_ m: yaml_mark_t) -> SourceMark {
        SourceMark(file: file, line: Int(m.line) + 1, column: Int(m.column) + 1)
    }

    private static func string(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        p.map { String(cString: $0) }
    }

    private mutating func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Handles one event; returns true at the end of the stream.
    mutating func handle(_ e: yaml_event_t) throws -> Bool {
        let at = mark(e.start_mark)
        switch e.type {
        case YAML_STREAM_START_EVENT, YAML_DOCUMENT_END_EVENT, YAML_NO_EVENT:
            return false
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw SourceError(at: at, "a second document starts here; the file must hold exactly one document",
                                kind: .structure)
            }
            return false
        case YAML_SCALAR_EVENT:
            let s = e.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: s.value, count: s.length), as: UTF8.self)
            let style: YAMLScalar.Style
            switch s.style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE: style = .literal
            case YAML_FOLDED_SCALAR_STYLE: style = .folded
            default: style = .plain
            }
            let node = YAMLNode(content: .scalar(YAMLScalar(text: text, style: style)), mark: at,
                                tag: Self.string(s.tag), id: newID())
            if let anchor = Self.string(s.anchor) { anchors[anchor] = (node, 1, 0) }
            try add(node, size: 1, height: 0)
        case YAML_ALIAS_EVENT:
            let name = Self.string(e.data.alias.anchor) ?? ""
            if openAnchors.contains(name) {
                throw SourceError(at: at, "alias *\(Excerpt.of(name)) refers to the list or mapping that contains it; recursive aliases are not supported",
                                kind: .structure)
            }
            guard let target = anchors[name] else {
                throw SourceError(at: at, "alias *\(Excerpt.of(name)) has no anchor &\(Excerpt.of(name)) before it", kind: .structure)
            }
            expanded += target.size
            if expanded > maxAliasExpansion {
                throw SourceError(at: at, "aliases expand to more than \(maxAliasExpansion) values; refusing to expand further (an alias bomb?)",
                                kind: .structure)
            }
            if stack.count + target.height > Self.maxDepth {
                throw SourceError(at: at, "lists and mappings are nested more than \(Self.maxDepth) levels deep",
                                kind: .structure)
            }
            try add(target.node, size: target.size, height: target.height, aliasMark: at)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            let isSequence = e.type == YAML_SEQUENCE_START_EVENT
            try refuseCollectionKey(at: at, isSequence: isSequence)
            if stack.count >= Self.maxDepth {
                throw SourceError(at: at, "lists and mappings are nested more than \(Self.maxDepth) levels deep",
                                kind: .structure)
            }
            let anchor = Self.string(isSequence ? e.data.sequence_start.anchor : e.data.mapping_start.anchor)
            let tag = Self.string(isSequence ? e.data.sequence_start.tag : e.data.mapping_start.tag)
            if let anchor { openAnchors.insert(anchor) }
            let header = Header(mark: at, tag: tag, anchor: anchor, id: newID(), size: 1, height: 1)
            stack.append(Frame(isSequence: isSequence, header: header))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return false }
            let header = frame.header
            let node = YAMLNode(content: frame.isSequence ? .sequence(frame.items) : .mapping(frame.entries),
                                mark: header.mark, tag: header.tag, id: header.id)
            if let anchor = header.anchor {
                openAnchors.remove(anchor)
                anchors[anchor] = (node, header.size, header.height)
            }
            try add(node, size: header.size, height: header.height)
        default:
            return false
        }
        return false
    }

    /// Keys are text; a list or mapping in key position is almost always an indentation slip.
    private func refuseCollectionKey(at: SourceMark, isSequence: Bool) throws {
        if let top = stack.last, !top.isSequence, top.pendingKey == nil {
            throw SourceError(at: at, "a \(isSequence ? "list" : "mapping") cannot be used as a key; keys must be text",
                            kind: .structure)
        }
    }

    /// Attaches a finished node to the open collection, or makes it the root.
    private mutating func add(_ node: YAMLNode, size: Int, height: Int, aliasMark: SourceMark? = nil) throws {
        guard let frame = stack.last else {
            root = node
            return
        }
        frame.header.size += size
        frame.header.height = max(frame.header.height, height + 1)
        if frame.isSequence {
            frame.items.append(node)
        } else if let key = frame.pendingKey {
            frame.entries.append(YAMLMappingEntry(key: key.text, keyMark: key.mark, value: node))
            frame.pendingKey = nil
        } else {
            // An alias used as a key: it must name a scalar.
            let keyMark = aliasMark ?? node.mark
            guard let scalar = node.scalar else {
                throw SourceError(at: keyMark, "a list or mapping cannot be used as a key; keys must be text",
                                kind: .structure)
            }
            if let first = frame.seen[scalar.text] {
                throw SourceError(at: keyMark, "duplicate key \(Wording.excerpt(scalar.text)) (first used at line \(first.line))",
                                kind: .structure)
            }
            frame.seen[scalar.text] = keyMark
            frame.pendingKey = (scalar.text, keyMark)
        }
    }
}
