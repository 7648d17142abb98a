/// How much a rules file may hold. Generous for a real site (a handful of zones, three or four
/// stage bands, a couple of approaches and rankings), and small enough that what a file costs
/// stays bounded whatever it holds: the agent's memory and its work per measurement (every rule
/// runs on every measurement of every peer), and what it publishes about the rules (the
/// retained `rules` payload lists every rule's distances and patterns). A file under the 1 MiB
/// file limit can otherwise hold 10,000 zones, which takes the agent past its unit's
/// `MemoryMax`.
///
/// A file beyond a bound is refused at the first item over it (`file:line:column`), like any
/// other invalid file: the active rules stay.
public enum RulesBounds {
    public static let zones = 64
    public static let stageBands = 16
    public static let approaches = 32
    public static let rankings = 16
    /// Entries of one rule's `peers:` list.
    public static let peersPerRule = 64
    /// Entries of one ranking's `base_scores`.
    public static let baseScoresPerRanking = 64
    /// Characters of a peer pattern or a `base_scores` key: a peer name is a topic segment of at
    /// most 64 characters, an address 18.
    public static let patternCharacters = 64
    /// Bytes of a band's `attributes` or a facing cue, as JSON: they go into every `feedback`
    /// payload of the band, or into each event the cue goes with.
    public static let attributeBytes = 1024
}
