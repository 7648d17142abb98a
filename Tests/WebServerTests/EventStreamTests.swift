import Testing
@testable import WebServer

/// How the server writes an event on a stream.
@Suite struct EventStreamTests {
    @Test func dataLinesEndedByABlankLine() {
        #expect(String(decoding: EventStream.event(Array("{\"a\": 1}".utf8)), as: UTF8.self) == "data: {\"a\": 1}\n\n")
        // A line break inside the data is a second data line, never the end of the event.
        #expect(String(decoding: EventStream.event(Array("one\r\ntwo".utf8)), as: UTF8.self) == "data: one\ndata: two\n\n")
    }
}
