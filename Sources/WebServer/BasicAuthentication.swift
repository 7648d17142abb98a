/// HTTP basic authentication (RFC 7617): one user name and password for every request. The
/// password comes from a file (never an argument, never logged); the comparison takes the same
/// time whatever prefix matches.
public struct BasicAuthentication: Sendable {
    public let user: String
    let password: String
    /// What the browser's prompt names.
    public let realm: String

    public init(user: String, password: String, realm: String) {
        self.user = user
        self.password = password
        self.realm = realm
    }

    func accepts(user offeredUser: String, password offeredPassword: String) -> Bool {
        // Both compared, always: which of the two was wrong must not show in the time taken.
        let userMatches = Self.equal(Array(offeredUser.utf8), Array(user.utf8))
        let passwordMatches = Self.equal(Array(offeredPassword.utf8), Array(password.utf8))
        return userMatches && passwordMatches
    }

    /// Equal bytes, in a time that depends on the lengths only.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}

/// A certificate and its private key, PEM text read from files, for HTTPS.
public struct TLSCredentials: Sendable {
    let certificatePEM: [UInt8]
    let keyPEM: [UInt8]

    public init(certificatePEM: [UInt8], keyPEM: [UInt8]) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }
}
