import Foundation
import Testing
import UCI
@testable import Simulator

/// Wire bytes of a command, as a host would write them.
func wire(_ command: UCICommand) -> [UInt8] { command.raw.encoded() }

func hex(_ text: String) -> [UInt8] { (try? Hex.bytes(text)) ?? [] }

/// Decodes everything the device wrote as a host would: through the host-side reassembler and
/// `UCIMessage(decoding:)`. Any discarded byte or decoding error fails the test.
func messages(_ outputs: [DeviceOutput], sourceLocation: SourceLocation = #_sourceLocation) -> [UCIMessage] {
    var reassembler = Reassembler(accepting: Reassembler.hostSide)
    var result: [UCIMessage] = []
    for event in reassembler.feed(outputs.writtenBytes) {
        switch event {
        case let .message(raw):
            do { result.append(try UCIMessage(decoding: raw)) } catch {
                Issue.record("undecodable \(raw.name): \(error)", sourceLocation: sourceLocation)
            }
        case let .discarded(discard):
            Issue.record("host discarded bytes: \(discard)", sourceLocation: sourceLocation)
        }
    }
    #expect(!reassembler.hasPartialPacket, "device left a partial packet", sourceLocation: sourceLocation)
    return result
}

/// Expects `json` to be refused as a scenario with a message that contains `message`.
func expectScenarioRejected(_ json: String, saying message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        Issue.record("decoded \(json)", sourceLocation: sourceLocation)
    } catch let DecodingError.dataCorrupted(context) {
        #expect(context.debugDescription.contains(message), "\(context.debugDescription)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
}

func responses(_ list: [UCIMessage]) -> [UCIResponse] { list.compactMap { if case let .response(r) = $0 { r } else { nil } } }
func notifications(_ list: [UCIMessage]) -> [UCINotification] {
    list.compactMap { if case let .notification(n) = $0 { n } else { nil } }
}
func sessionInfos(_ list: [UCIMessage]) -> [SessionInfo] {
    notifications(list).compactMap { if case let .sessionInfo(info) = $0 { info } else { nil } }
}

/// A scenario with peers at fixed distances and no noise, so numbers can be compared exactly.
func still(_ peers: [(UInt16, Double)], angles: (Double, Double)? = nil, aoa: Bool = false,
           noise: ScenarioNoise = .none, faults: [ScenarioFault] = [], duration: Double? = nil,
           atEnd: Scenario.EndBehavior = .loop) -> Scenario {
    Scenario(name: "test", seed: 99, duration: duration, atEnd: atEnd, device: ScenarioDevice(hasAoA: aoa), noise: noise,
             peers: peers.map { PeerTrack(address: $0.0, path: [.init(t: 0, distance: $0.1, azimuth: angles?.0, elevation: angles?.1)]) },
             faults: faults)
}

/// Reset, init session 7 and configure it with the §4.3 set for `peers`; returns the handle.
@discardableResult
func bringUp(_ device: inout SimulatedDevice, peers: [UInt16] = [1], at time: Double = 0,
             extra: [AppConfigParameter] = [], start: Bool = true) -> UInt32 {
    _ = device.receive(wire(.coreDeviceReset()), at: time)
    let initOut = messages(device.receive(wire(.sessionInit(sessionID: 7)), at: time))
    guard case let .response(.sessionInit(.ok, handle?))? = initOut.first else {
        Issue.record("SESSION_INIT failed: \(initOut)")
        return 0
    }
    let parameters = AppConfigParameter.dsTWR(role: .controller, ownAddress: 0, peers: peers) + extra
    _ = device.receive(wire(.sessionSetAppConfig(sessionHandle: handle, parameters)), at: time)
    if start { _ = device.receive(wire(.sessionStart(sessionHandle: handle)), at: time) }
    return handle
}
