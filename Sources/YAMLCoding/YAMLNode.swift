import Vocabulary

/// One node of a parsed YAML document: a scalar, a sequence, or a mapping whose keys keep file order.
///
/// Nodes are values. An alias is resolved at parse time to the node its anchor names, so the tree never
/// holds an alias; the two places share one node (and one ``id``), which is how the decoder knows that the
/// keys of a mapping reached through two aliases are one set of keys.
public struct YAMLNode: Sendable {
    /// What the node holds.
    public enum Content: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLMappingEntry])
    }

    public var content: Content
    /// Where the node starts: the first character of a scalar, the `[`/`{` of a flow collection, the first
    /// `-` or key of a block collection.
    public var mark: SourceMark
    /// The explicit tag, if one was written (`!!str`, `!custom`), expanded as libyaml reports it
    /// (`tag:yaml.org,2002:str`). Nil when the node is untagged.
    public var tag: String?
    /// Identity within one parsed document; aliases share the id of their anchored node.
    let id: Int

    init(content: Content, mark: SourceMark, tag: String?, id: Int) {
        self.content = content
        self.mark = mark
        self.tag = tag
        self.id = id
    }

    /// The scalar, when the node is one.
    public var scalar: YAMLScalar? {
        if case .scalar(let s) = content { return s }
        return nil
    }

    /// True for a plain null scalar (`null`, `~`, empty) or one tagged `!!null`.
    public var isNull: Bool {
        guard let s = scalar else { return false }
        return CoreSchema.resolve(s, tag: tag) == .null
    }
}

/// One `key: value` pair of a mapping. Keys are always scalars (complex keys are rejected at parse time),
/// so the key is kept as its text plus its own mark: "unknown key" messages point at the key itself.
public struct YAMLMappingEntry: Sendable {
    public var key: String
    public var keyMark: SourceMark
    public var value: YAMLNode
}
