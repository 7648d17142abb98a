import Testing
@testable import WebServer

/// Wrong passwords per address: ten a minute, then refused until the minute is over; what it
/// remembers is bounded.
@Suite struct SignInThrottleTests {
    @Test func tenWrongPasswordsAMinuteThenRefusedUntilItIsOver() {
        var throttle = SignInThrottle()
        func refuses(_ address: String, _ time: Double) -> Bool { throttle.refuses(address, at: time) }
        for second in 0..<10 {
            #expect(!refuses("192.0.2.7", Double(second)))
            throttle.failed("192.0.2.7", at: Double(second))
        }
        #expect(refuses("192.0.2.7", 10))
        #expect(!refuses("192.0.2.8", 10))
        #expect(refuses("192.0.2.7", 59.9))
        #expect(!refuses("192.0.2.7", 60))
        throttle.failed("192.0.2.7", at: 61)
        #expect(!refuses("192.0.2.7", 61))
    }

    @Test func atMostSoManyAddressesAreRemembered() {
        var throttle = SignInThrottle()
        for n in 0..<(SignInThrottle.maximumAddresses + 10) {
            throttle.failed("2001:db8::\(String(n, radix: 16))", at: Double(n) / 1000)
        }
        #expect(throttle.addressCount == SignInThrottle.maximumAddresses)
    }
}
