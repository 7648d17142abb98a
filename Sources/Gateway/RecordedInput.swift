import Vocabulary

/// An input the core took that did not come from the device, as a recording keeps it (a record
/// with `RecordFlags.agentInput`, FORMAT.md): a phone joining, moving to a new session, leaving,
/// and the angles it reported. With them `replay` gives a phone's events as the live agent did;
/// without them it would see a phone's rounds under its address only, and no direction.
///
/// Written as a JSON object with one member named after the kind:
/// `{"phone_joined": {"name": "phone-anna", "address": "0xCDAB", "session_id": 7}}`,
/// `{"phone_moved": {"name", "from", "to", "session_id"}}`, `{"phone_left": {"address"}}`,
/// `{"phone_reported": {"address", "azimuth_deg", "elevation_deg", "measured_at"}}` (addresses in
/// the config's notation, `measured_at` RFC 3339). A report is recorded after its checks, without
/// its token: what counted, not what was sent.
public enum RecordedInput: Equatable, Sendable {
    case phoneJoined(name: String, address: UInt16, sessionID: UInt32)
    case phoneMoved(name: String, from: UInt16, to: UInt16, sessionID: UInt32)
    case phoneLeft(address: UInt16)
    case phoneReported(address: UInt16, azimuthDeg: Double?, elevationDeg: Double?, measuredAt: Double)

    public var bytes: [UInt8] {
        func address(_ value: UInt16) -> JSONValue { .string(ShortAddress(value).description) }
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
        let (kind, fields): (String, [JSONMember]) = switch self {
        case let .phoneJoined(name, at, sessionID):
            ("phone_joined", [JSONMember("name", .string(name)), JSONMember("address", address(at)),
                              JSONMember("session_id", .int(Int64(sessionID)))])
        case let .phoneMoved(name, from, to, sessionID):
            ("phone_moved", [JSONMember("name", .string(name)), JSONMember("from", address(from)), JSONMember("to", address(to)),
                             JSONMember("session_id", .int(Int64(sessionID)))])
        case let .phoneLeft(at):
            ("phone_left", [JSONMember("address", address(at))])
        case let .phoneReported(at, azimuth, elevation, measuredAt):
            ("phone_reported", [JSONMember("address", address(at)), JSONMember("azimuth_deg", number(azimuth)),
                                JSONMember("elevation_deg", number(elevation)),
                                JSONMember("measured_at", .string(Timestamp.rfc3339(measuredAt)))])
        }
        return Array(JSONValue.object([JSONMember(kind, .object(fields))]).json.utf8)
    }

    /// Reads a record's bytes; nil for anything that is not one of the kinds above, whole.
    public init?(bytes: [UInt8]) {
        guard let outer = try? PayloadReader(bytes: bytes), case let .object(members) = outer.value, members.count == 1,
              let body = try? outer.object(members[0].key) else { return nil }
        func address(_ key: String) -> UInt16? {
            guard let text = try? body.string(key), text.hasPrefix("0x"), text.utf8.count == 6 else { return nil }
            return UInt16(text.dropFirst(2), radix: 16)
        }
        func sessionID() -> UInt32? {
            (try? body.integer("session_id", in: PayloadBounds(0...Double(UInt32.max), unit: ""))).flatMap { $0.map(UInt32.init) }
        }
        switch members[0].key {
        case "phone_joined":
            guard let name = try? body.string("name"), let at = address("address"), let id = sessionID() else { return nil }
            self = .phoneJoined(name: name, address: at, sessionID: id)
        case "phone_moved":
            guard let name = try? body.string("name"), let from = address("from"), let to = address("to"), let id = sessionID() else { return nil }
            self = .phoneMoved(name: name, from: from, to: to, sessionID: id)
        case "phone_left":
            guard let at = address("address") else { return nil }
            self = .phoneLeft(address: at)
        case "phone_reported":
            guard let at = address("address"), let text = try? body.string("measured_at"), let measuredAt = Timestamp.parse(text) else { return nil }
            // Null angles are news (no angle then); out-of-range ones are no report.
            do {
                self = .phoneReported(address: at, azimuthDeg: try body.number("azimuth_deg", in: PhoneReport.azimuthBounds),
                                      elevationDeg: try body.number("elevation_deg", in: PhoneReport.elevationBounds), measuredAt: measuredAt)
            } catch {
                return nil
            }
        default:
            return nil
        }
    }
}
