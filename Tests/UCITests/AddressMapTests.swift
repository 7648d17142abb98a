import Testing
import UCI

/// The table of values by MAC address that the agent looks peers up in for every measurement
/// behaves as a dictionary would, whatever comes and goes.
@Suite struct AddressMapTests {
    /// A random run of insertions, replacements and removals, short and extended addresses
    /// mixed (and the ones whose words coincide), checked against a dictionary after each step.
    @Test func agreesWithADictionaryThroughInsertsAndRemovals() {
        // Knuth's MMIX linear congruential generator, its high bits: seeded, so that a failure repeats.
        var state: UInt64 = 34
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 16
        }
        var map = AddressMap<Int>()
        var reference: [MacAddress: Int] = [:]
        let pool: [MacAddress] = (0..<300).flatMap { n -> [MacAddress] in
            [.short(UInt16(n)), .extended(UInt64(n) | 1 << 63), .extended(UInt64(n) &* 0x9E37_79B9_7F4A_7C15)]
        }
        for step in 0..<20_000 {
            let address = pool[Int(next() % UInt64(pool.count))]
            switch next() % 3 {
            case 0, 1:
                map[address] = step
                reference[address] = step
            default:
                #expect(map.removeValue(forKey: address) == reference.removeValue(forKey: address))
            }
            #expect(map.count == reference.count)
            if step % 997 == 0 {
                for address in pool { #expect(map[address] == reference[address]) }
            }
        }
        for address in pool { #expect(map[address] == reference[address]) }
    }

    @Test func aShortAddressAndTheExtendedOneWithTheSameWordAreTwoKeys() {
        var map = AddressMap<String>()
        map[.short(7)] = "short"
        map[.extended(7 | 1 << 63)] = "extended"
        #expect(map[.short(7)] == "short")
        #expect(map[.extended(7 | 1 << 63)] == "extended")
        map[.short(7)] = nil
        #expect(map[.short(7)] == nil)
        #expect(map[.extended(7 | 1 << 63)] == "extended")
        #expect(map.count == 1)
    }

    @Test func removingAllKeepsNothing() {
        var map = AddressMap<Int>()
        for n in 0..<100 { map[.short(UInt16(n))] = n }
        map.removeAll(keepingCapacity: true)
        #expect(map.count == 0)
        #expect((0..<100).allSatisfy { map[.short(UInt16($0))] == nil })
        map[.short(3)] = 3
        #expect(map[.short(3)] == 3)
    }
}
