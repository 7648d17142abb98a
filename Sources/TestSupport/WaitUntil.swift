import Foundation

/// Polls `condition` every 20 ms until it holds (true) or `timeout` seconds pass (false). The
/// agent under test runs in another process or on another thread, so what it does can only be
/// waited for; the suites wrap this in their own `eventually`, which records the failure.
public func waitUntil(timeout: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return false
}
