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
