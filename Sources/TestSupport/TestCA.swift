/// A throw-away certificate authority made with the `openssl` command line, for TLS tests against
/// a real broker: a CA, a server certificate for `localhost` and `127.0.0.1` (CN and SAN, so
/// hostname verification stays on), and a client certificate for mutual TLS.
///
/// EC P-256 keys keep generation fast; certificates are valid for two days. Everything lives in a
/// 0700 temporary directory that is removed with this object.
public final class TestCA: Sendable {
    public let directory: TemporaryDirectory
    public var caFile: String { directory.file("ca.crt") }
    public var serverCertFile: String { directory.file("server.crt") }
    public var serverKeyFile: String { directory.file("server.key") }
    public var clientCertFile: String { directory.file("client.crt") }
    public var clientKeyFile: String { directory.file("client.key") }

    private init(directory: TemporaryDirectory) {
        self.directory = directory
    }

    /// Generates the CA and both certificates. `name` becomes part of the CA's subject, so that
    /// two CAs made in one test (a trusted and an untrusted one) differ.
    public static func create(name: String = "uwb2mqtt test CA") async throws(TestSupportError) -> TestCA {
        let ca = TestCA(directory: try TemporaryDirectory(prefix: "uwb2mqtt-ca"))
        let openssl = "/usr/bin/openssl"
        let d = ca.directory
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        try await runCommand(openssl, ["req", "-x509"] + newKey + [
            "-keyout", d.file("ca.key"), "-out", ca.caFile, "-days", "2", "-subj", "/CN=\(name)",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ], in: d)

        try d.write("server.ext", """
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature,keyEncipherment
            extendedKeyUsage=serverAuth
            subjectAltName=DNS:localhost,IP:127.0.0.1

            """)
        try d.write("client.ext", """
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature,keyEncipherment
            extendedKeyUsage=clientAuth

            """)
        for (role, subject) in [("server", "/CN=localhost"), ("client", "/CN=uwb2mqtt-test-client")] {
            try await runCommand(openssl, ["req"] + newKey + [
                "-keyout", d.file("\(role).key"), "-out", d.file("\(role).csr"), "-subj", subject,
            ], in: d)
            try await runCommand(openssl, [
                "x509", "-req", "-in", d.file("\(role).csr"), "-CA", ca.caFile, "-CAkey", d.file("ca.key"),
                "-CAcreateserial", "-out", d.file("\(role).crt"), "-days", "2", "-extfile", d.file("\(role).ext"),
            ], in: d)
        }
        return ca
    }
}
