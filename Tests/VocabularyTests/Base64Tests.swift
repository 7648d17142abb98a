import Testing
import Vocabulary

/// Base64 as the phone exchange carries binary structures: RFC 4648's vectors both ways, and
/// every malformed text refused rather than read loosely.
@Suite struct Base64Tests {
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
                      ("foobar", "Zm9vYmFy")])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func everyByteValueSurvivesTheRoundTrip() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test(arguments: ["Zg", "Zg=", "Z===", "Zg==Zg==", "Zm9v\n", "Zm 9v", "Zm9-", "Zh==", "Zm9=", "Zg=a", "éé=="])
    func malformedTextIsRefused(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
