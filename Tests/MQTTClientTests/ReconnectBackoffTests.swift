@testable import MQTTClient
import Testing

/// The delay before the next connection attempt follows cli-and-config.md: 1 s, 2 s, 4 s …
/// capped at 60 s.
@Suite struct ReconnectBackoffTests {
    @Test func doublesUpToTheCap() {
        let delays = (0..<9).map { ReconnectBackoff.delaySeconds(attempt: $0, min: 1, max: 60) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(ReconnectBackoff.delaySeconds(attempt: 200, min: 1, max: 60) == 60)
        #expect(ReconnectBackoff.delaySeconds(attempt: 62, min: 3, max: 86_400) == 86_400)
    }
}
