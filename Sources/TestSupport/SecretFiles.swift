/// Files a rules or config path may be pointed at by mistake, whose content must never reach a
/// message (issue #35): a private key in OpenSSH's format, a password file of one line. Made-up
/// contents, shaped like the real thing.
public enum SecretFiles {
    /// An ed25519 key as `ssh-keygen` writes it: armour lines around base64 of 70 columns. Not a
    /// key to anything.
    public static let openSSHPrivateKey = """
    -----BEGIN OPENSSH PRIVATE KEY-----
    b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
    QyNTUxOQAAACBq7Hc1T0kXq3mVz9yRZ2Wd0pL4nE8uS6fJb1cT5aG9rwAAAJh0Zm9yZXN0
    dGVzdAAAAAtzc2gtZWQyNTUxOQAAACBq7Hc1T0kXq3mVz9yRZ2Wd0pL4nE8uS6fJb1cT5a
    G9rwAAAEAmFq0x7bKp2vYwQe3TzR8nLs5dJ4gHc1uVf6oXiA9Wk2rscdzFQkkelqsCLfZl
    -----END OPENSSH PRIVATE KEY-----

    """

    /// A password file as `mqtt.password_file` holds one: the password alone on a line.
    public static let password = "s3cr3t-Passw0rd!\n"

    /// The runs of `window` characters of any line of `secret` that `text` contains: empty when
    /// nothing of the file shows. Eight characters is far below an excerpt (20) and above any
    /// chance overlap with the words of a message.
    public static func leaks(of secret: String, in text: String, window: Int = 8) -> [String] {
        var found: [String] = []
        for line in secret.split(separator: "\n") {
            let characters = Array(line)
            guard characters.count >= window else {
                if text.contains(line) { found.append(String(line)) }
                continue
            }
            for start in 0...(characters.count - window) {
                let run = String(characters[start..<(start + window)])
                if text.contains(run) {
                    found.append(run)
                    break
                }
            }
        }
        return found
    }
}
