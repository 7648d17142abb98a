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

    /// callgrind's names for a recursion's contexts and for code without a symbol are not the
    /// linker's: the first count as their function, the second are left out.
    @Test func recursionContextsCountAsTheirFunctionAndAddressesAreLeftOut() {
        var executed = ExecutedFunctions()
        executed.add(callgrindText: "ob=(1) /build/uwb2mqtt\nfn=(1) release\n0 100\nfn=(2) release'2\n0 50\nfn=(3) 0x000000000060d270\n0 900\n",
                     objectPath: "/build/uwb2mqtt")
        #expect(executed.selfCost == ["release": 150])
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

    /// An lld link map: a section per function of our own, one section for all of a prebuilt
    /// library object's code.
    static let map = """
                     VMA              LMA     Size Align Out     In      Symbol
                  289ad0           289ad0   b8cc7e    16 .text
                  289ad0           289ad0      128     16         /build/Gateway.build/AgentCore.swift.o:(.text.$hot)
                  289ad0           289ad0      128      1                 $hot
                  38d650           38d650   187000     16         /opt/swift/usr/lib/swift_static/linux/libswiftCore.a(Swift.o):(.text)
                  38d650           38d650      fd6      1                 $stdlibFunction
                  38e630           38e630      100      1                 $otherStdlibFunction
                  e7dd20           e7dd20       17      4 .init
                  e7dd20           e7dd20       17      4         /lib/x86_64-linux-gnu/crti.o:(.init)
                  e7dd20           e7dd20        0      1                 _init

        """

    @Test func theLinkMapNamesTheSymbolsOfLargeSections() {
        let map = LinkerMap(text: Self.map[...])
        #expect(map.sectionSize == ["$hot": 0x128, "$stdlibFunction": 0x187000, "$otherStdlibFunction": 0x187000, "_init": 0x17])
        #expect(map.symbols(inSectionsLargerThan: largestOrderedSection) == ["$stdlibFunction", "$otherStdlibFunction"])
    }
}
