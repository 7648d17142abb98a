import Vocabulary

/// The secret a phone's reports carry (`report_token`): 32 random hex digits per session, handed
/// only to the app whose request started the session, so that no other client on the broker can
/// give a peer a direction. Never logged.
enum ReportToken {
    /// How a token is written, in answers and in reports.
    static let schema = JSONSchema.string.with("pattern", "^[0-9a-f]{32}$")
        .described("the session's report_token: 32 hex digits, new for every session; a secret of the app that asked")

    static func random(using random: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for _ in 0..<2 {
            var bits = random.next()
            for _ in 0..<16 {
                text.append(digits[Int(bits & 0xF)])
                bits >>= 4
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `given` is `expected`, in a time that depends on their lengths only: a client
    /// timing the answers learns nothing of the digits.
    static func equal(_ expected: String, _ given: String) -> Bool {
        let a = Array(expected.utf8), b = Array(given.utf8)
        guard a.count == b.count, !a.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
