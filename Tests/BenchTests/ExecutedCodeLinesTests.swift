@testable import UCIBench
import Testing

/// `make bench`'s code figure: the distinct 64-byte lines of code a callgrind window executed
/// (`--dump-instr=yes`), read from the profile's positions.
@Suite struct ExecutedCodeLinesTests {
    /// Positions are instruction addresses, absolute (`0x…`) or relative to the line before
    /// (`+…`, `-…`, `*` for the same), whatever function the line is in. The line after `calls=`
    /// is the call instruction's position with the callee's inclusive cost: it moves the
    /// position but is not code the caller ran again.
    static let profile = """
        version: 1
        creator: callgrind-3.19.0
        positions: instr line
        events: Ir
        ob=(1) /build/uwb2mqtt
        fl=(1) ???
        fn=(1) caller
        0x1000 0 5
        +4 0 2
        +60 0 1
        calls=1 0x2000 0
        +0x100 0 100
        -0x100 0 1
        * 0 1
        fn=(2) callee
        0x2000 0 7
        -8 0 1

        """

    @Test func countsEachLineOnceAndNotTheCallsPositions() {
        // 0x1000 and 0x1004 share a line; 0x1040 and 0x1040 again (after the call) another; the
        // call at 0x1140 alone is not counted; 0x2000 and 0x1ff8 are two more.
        #expect(executedCodeLines(inCallgrindProfile: Self.profile[...]) == 4)
    }

    @Test func anEmptyWindowExecutedNothing() {
        #expect(executedCodeLines(inCallgrindProfile: "version: 1\npositions: instr line\nevents: Ir\n") == 0)
    }
}
