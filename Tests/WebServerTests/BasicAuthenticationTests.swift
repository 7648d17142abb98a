import Testing
@testable import WebServer

/// The page's password: the user name and the password compared whole, both always.
@Suite struct BasicAuthenticationTests {
    @Test func passwordsCompareWhole() {
        let auth = BasicAuthentication(user: "site", password: "s3cret", realm: "r")
        #expect(auth.accepts(user: "site", password: "s3cret"))
        #expect(!auth.accepts(user: "site", password: "s3cre"))
        #expect(!auth.accepts(user: "site", password: "s3cret!"))
        #expect(!auth.accepts(user: "sit", password: "s3cret"))
        #expect(!auth.accepts(user: "", password: ""))
    }
}
