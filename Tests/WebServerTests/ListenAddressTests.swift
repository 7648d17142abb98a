import Testing
@testable import WebServer

/// `--http`'s value: numeric addresses and a port, loopback when only the port is given.
@Suite struct ListenAddressTests {
    @Test func aPortAloneIsLoopback() throws {
        let address = try ListenAddress(parsing: "8080")
        #expect(address.description == "127.0.0.1:8080")
        #expect(address.isLoopback)
    }

    @Test func addressesAndPorts() throws {
        #expect(try ListenAddress(parsing: "0.0.0.0:80").isLoopback == false)
        #expect(try ListenAddress(parsing: "127.0.0.2:80").isLoopback)
        #expect(try ListenAddress(parsing: "localhost:0").description == "127.0.0.1:0")
        let v6 = try ListenAddress(parsing: "[::1]:8443")
        #expect(v6.isIPv6 && v6.isLoopback && v6.description == "[::1]:8443")
        #expect(try ListenAddress(parsing: "[::]:8443").isLoopback == false)
    }

    @Test func whatIsNoAddressIsRefusedWithTheReason() {
        for text in ["", "http", "80000", "1.2.3:80", "gateway.local:80", "::1:80", "[::1]80", "10.0.0.1:"] {
            #expect(throws: ListenAddressError.self, "\(text)") { try ListenAddress(parsing: text) }
        }
    }
}

/// How the server writes an event and compares a password.
@Suite struct EventStreamTests {
    @Test func dataLinesEndedByABlankLine() {
        #expect(String(decoding: EventStream.event(Array("{\"a\": 1}".utf8)), as: UTF8.self) == "data: {\"a\": 1}\n\n")
        // A line break inside the data is a second data line, never the end of the event.
        #expect(String(decoding: EventStream.event(Array("one\r\ntwo".utf8)), as: UTF8.self) == "data: one\ndata: two\n\n")
    }

    @Test func passwordsCompareWhole() {
        let auth = BasicAuthentication(user: "site", password: "s3cret", realm: "r")
        #expect(auth.accepts(user: "site", password: "s3cret"))
        #expect(!auth.accepts(user: "site", password: "s3cre"))
        #expect(!auth.accepts(user: "site", password: "s3cret!"))
        #expect(!auth.accepts(user: "sit", password: "s3cret"))
        #expect(!auth.accepts(user: "", password: ""))
    }
}
