import CMicroHTTPD
import Testing
@testable import WebServer

/// How the server writes an event on a stream.
@Suite struct EventStreamTests {
    @Test func dataLinesEndedByABlankLine() {
        #expect(String(decoding: EventStream.event(Array("{\"a\": 1}".utf8)), as: UTF8.self) == "data: {\"a\": 1}\n\n")
        // A line break inside the data is a second data line, never the end of the event.
        #expect(String(decoding: EventStream.event(Array("one\r\ntwo".utf8)), as: UTF8.self) == "data: one\ndata: two\n\n")
    }

    /// A client given the whole state instead of its backlog holds it unread until it has read
    /// every byte of it; an ended stream forgets what waits and ends at the next read.
    @Test func aReplacementIsHeldUntilReadAndAnEndedStreamEnds() {
        let stream = EventStream()
        stream.send(data: Array(repeating: UInt8(ascii: "f"), count: 100))
        stream.replaceBacklog(with: Array(repeating: UInt8(ascii: "s"), count: 1_000))
        #expect(stream.holdsUnreadReplacement && stream.backlog == 1_000 + 8)
        var buffer = [CChar](repeating: 0, count: 600)
        #expect(buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, capacity: 600) } == 600)
        #expect(stream.holdsUnreadReplacement)
        #expect(buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, capacity: 600) } == 408)
        #expect(!stream.holdsUnreadReplacement && stream.backlog == 0)
        stream.send(data: Array(repeating: UInt8(ascii: "f"), count: 100))
        stream.end()
        #expect(stream.backlog == 0)
        let ended = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, capacity: 600) }
        #expect(ended == Int(MHD_CONTENT_READER_END_OF_STREAM))
        stream.send(data: [1])
        #expect(stream.backlog == 0)
    }
}
