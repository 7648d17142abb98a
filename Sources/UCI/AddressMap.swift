/// Values by MAC address: what the agent looks up for every measurement (the peer's tracker,
/// its topics). A dictionary hashes the address with SipHash through `Hasher` at each lookup,
/// some 200 instructions; this table takes one multiplication of the address's word by an odd
/// constant, mixed with a seed of its own so that addresses picked to collide (a corrupted
/// byte stream names any it likes) cannot be picked in advance. Open addressing, linear
/// probing, at most half full; a removal shifts the entries after it back (no tombstones),
/// so lookups stay short however many come and go. Not ordered.
public struct AddressMap<Value: Sendable>: Sendable {
    private var keys: [MacAddress?]
    private var values: [Value?]
    private var shift: UInt64
    private let seed: UInt64
    public private(set) var count = 0

    public init() {
        keys = Array(repeating: nil, count: 8)
        values = Array(repeating: nil, count: 8)
        shift = 64 - 3
        seed = UInt64.random(in: 0...UInt64.max) | 1
    }

    public subscript(address: MacAddress) -> Value? {
        get {
            guard let index = find(address).found else { return nil }
            return values[index]
        }
        set {
            guard let newValue else {
                removeValue(forKey: address)
                return
            }
            let (found, free) = find(address)
            if let found {
                values[found] = newValue
                return
            }
            if 2 * (count + 1) > keys.count {
                grow()
                self[address] = newValue
                return
            }
            keys[free] = address
            values[free] = newValue
            count += 1
        }
    }

    /// Forgets `address`; its value, nil without one.
    @discardableResult
    public mutating func removeValue(forKey address: MacAddress) -> Value? {
        guard var hole = find(address).found else { return nil }
        let removed = values[hole]
        keys[hole] = nil
        values[hole] = nil
        count -= 1
        // Every entry of the run after the hole whose home is not between the hole and itself
        // would no longer be found past the hole: it moves into it, leaving a hole of its own.
        let mask = keys.count - 1
        var index = (hole + 1) & mask
        while let key = keys[index] {
            let home = self.home(key)
            let distanceToHole = (hole - home) & mask
            let distanceToIndex = (index - home) & mask
            if distanceToHole < distanceToIndex {
                keys[hole] = key
                values[hole] = values[index]
                keys[index] = nil
                values[index] = nil
                hole = index
            }
            index = (index + 1) & mask
        }
        return removed
    }

    public mutating func removeAll(keepingCapacity: Bool = false) {
        let capacity = keepingCapacity ? keys.count : 8
        keys = Array(repeating: nil, count: capacity)
        values = Array(repeating: nil, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        count = 0
    }

    /// Where `address` is, or else the free slot where it would go.
    private func find(_ address: MacAddress) -> (found: Int?, free: Int) {
        let mask = keys.count - 1
        var index = home(address)
        while let key = keys[index] {
            if key == address { return (index, index) }
            index = (index + 1) & mask
        }
        return (nil, index)
    }

    private func home(_ address: MacAddress) -> Int {
        let word: UInt64 = switch address {
        case let .short(value): UInt64(value) | 1 << 63
        case let .extended(value): value
        }
        return Int(truncatingIfNeeded: ((word ^ seed) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        let entries = zip(keys, values).compactMap { key, value in key.map { ($0, value!) } }
        let capacity = 2 * keys.count
        keys = Array(repeating: nil, count: capacity)
        values = Array(repeating: nil, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        count = 0
        for (key, value) in entries { self[key] = value }
    }
}
