// libFuzzer entry for the rules loader, and for the engine on the rules it accepts: a few
// measurements through every rule must not trap.
import Vocabulary
import Proximity
import UCI
import YAMLCoding
import RulesReading

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    guard let rules = try? RulesFile.load(bytes: bytes, file: "fuzz.yaml") else { return 0 }
    let peer = PeerIdentity(address: .short(1), name: "phone-anna")
    var engine = ProximityEngine(rules: rules, peers: [peer], gateway: GatewayPose(position: SitePoint(x: 0, y: 0, z: 2), headingDeg: 90), deviceHasAoA: true)
    var t = 1_000.0
    for (index, cm) in [1200, 800, 90, 8, 8, 400, 65535, 1300].enumerated() {
        let m = TwoWayRangingMeasurement(macAddress: .short(1), status: cm == 65535 ? .rangingRxTimeout : .ok, distanceRaw: UInt16(cm),
                                         aoaAzimuth: Q9_7Angle(degrees: Double(index * 10 - 30)), aoaAzimuthFOM: 80,
                                         aoaElevation: Q9_7Angle(degrees: 5), aoaElevationFOM: 80)
        var outputs: [ProximityOutput] = []
        engine.ingest(peer: peer, measurement: m, at: t, into: &outputs)
        t += 0.2
        _ = engine.tick(at: t)
    }
    _ = engine.tick(at: t + 10)
    return 0
}
