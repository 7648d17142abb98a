/// One of several `fuse` processes that split a site's tags between them (`shard: {index, count}`
/// in the fuse config): each tag belongs to exactly one shard, decided by its name alone, so that
/// every shard — whichever starts first, however often — agrees without talking to the others.
/// All of them read every range; each fuses, and publishes, its own tags only.
public struct FuseShard: Hashable, Sendable, Decodable {
    public var index: Int
    public var count: Int

    /// A site in one piece.
    public static let whole = FuseShard(index: 0, count: 1)

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Whether the tag whose topic segment is `peer` (`<base>/<gw>/peer/<peer>/range`) is this
    /// shard's: FNV-1a of its bytes, modulo `count` — read from the topic, before the payload is.
    public func owns<Bytes: Collection<UInt8>>(peer: Bytes) -> Bool {
        guard count > 1 else { return true }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in peer {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(count)) == index
    }
}
