@testable import UCIBench
import Testing

/// `uwb2mqtt-bench link-order`: which functions of a callgrind profile go into the agent's link
/// order, and in what order.
@Suite struct LinkOrderTests {
    /// A profile in callgrind's compressed form: names in full once, then by number; a callee's
    /// inclusive cost on the line after `calls=`; functions of another object between.
    static let profile = """
        version: 1
        creator: callgrind-3.19.0
        events: Ir
        ob=(1) /build/uwb2mqtt
        fl=(1) ???
        fn=(1) main
        0 10
        cfn=(2) hot
        calls=1000 0
        0 50000
        cfn=(3) cold
        calls=1 0
        0 300
        ob=(2) /usr/lib/libc.so.6
        fn=(4) memcpy
        0 90000
        ob=(1)
        fn=(2)
        0 40000
        cob=(2)
        cfn=(4)
        calls=10 0
        0 90000
        fn=(3)
        0 300
        fn=(5) onlyCalls
        cfn=(2)
        calls=1 0
        0 10000
        fn=(2)
        0 10000

        """

    @Test func theBinarysFunctionsComeHottestFirstByTheirOwnCost() {
        var executed = ExecutedFunctions()
        executed.add(callgrindText: Self.profile[...], objectPath: "/build/uwb2mqtt")
        // hot: 40,000 + 10,000 of its own (the 90,000 of memcpy and the callers' inclusive lines
        // are not its); a function whose cost is all in its callees still ran and is listed.
        #expect(executed.selfCost == ["main": 10, "hot": 50_000, "cold": 300, "onlyCalls": 0])
        #expect(executed.linkOrder == ["hot", "cold", "main", "onlyCalls"])
    }

    @Test func anotherObjectsProfileAddsNothing() {
        var executed = ExecutedFunctions()
        executed.add(callgrindText: Self.profile[...], objectPath: "/other/uwb2mqtt")
        #expect(executed.linkOrder.isEmpty)
    }

    @Test func profilesOfSeveralRunsAddUp() {
        var executed = ExecutedFunctions()
        executed.add(callgrindText: Self.profile[...], objectPath: "/build/uwb2mqtt")
        executed.add(callgrindText: "ob=(1) /build/uwb2mqtt\nfn=(1) main\n0 60000\n", objectPath: "/build/uwb2mqtt")
        #expect(executed.linkOrder == ["main", "hot", "cold", "onlyCalls"])
    }
}
