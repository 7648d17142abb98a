// libFuzzer entry for the agent's core: bytes as the device would send them, read by the
// agent's device intake (`DeviceIntake`, with a recording's `RecordedSession`, as `replay` reads
// them), drive AgentCore with the example rules through the input `run` feeds it
// (`handle(.device(…))`). Every message it decides must be a JSON object on a topic of the gateway's own tree,
// and no range may carry an angle (the device reports no AoA: a missing direction is never
// invented).
import DeviceLink
import Foundation
import Gateway
import Proximity
import UCI
import RulesReading

private let exampleRules = try! RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: [
        AgentConfiguration.Peer(address: 1, name: "phone-anna"), AgentConfiguration.Peer(address: 2, name: "tool-cart"),
    ]))
    var core = AgentCore(configuration: configuration, eventIDPrefix: "gw:fuzz")
    core.replaceRules(exampleRules, at: 1_000)
    check(core.take(), configuration)
    var intake = DeviceIntake()
    var session = RecordedSession()
    var time = 1_000.0
    core.handle(.device(.stateChanged(.ranging, port: "/dev/ttyACM0")), at: AgentMoment.at(time))
    check(core.take(), configuration)
    // A few bytes at a time, each read later than the last, as a device's notifications come.
    var offset = 0
    while offset < bytes.count {
        let chunk = bytes[offset..<min(bytes.count, offset + 64)]
        offset += chunk.count
        time += 0.05
        for report in intake.take(chunk, at: time, session: &session) {
            core.handle(.device(report), at: AgentMoment.at(time))
            check(core.take(), configuration)
        }
    }
    core.handle(.timePassed(publisher: PublisherFigures()), at: AgentMoment.at(time + 10))
    check(core.take(), configuration)
    return 0
}

private func check(_ messages: [Outbox.Message], _ configuration: AgentConfiguration) {
    let root = configuration.topics.base + "/" + configuration.topics.gateway + "/"
    for message in messages {
        guard message.topic.hasPrefix(root) else { fatalError("outside the gateway's tree: \(message.topic)") }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any] else {
            fatalError("not a JSON object on \(message.topic): \(String(decoding: message.payload, as: UTF8.self))")
        }
        if message.topic.hasSuffix("/range"), !(object["azimuth_deg"] is NSNull) {
            fatalError("an angle from a device without AoA: \(object)")
        }
    }
}
