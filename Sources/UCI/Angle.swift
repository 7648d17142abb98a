/// An angle as UCI carries it: signed Q9.7 degrees (raw / 128), −180…180 for azimuth.
///
/// The raw value is kept so that a decode/encode round trip is exact; whether the angle is
/// meaningful is the FOM's business (FOM 0 means the device gave no angle, uci.md §5.3).
public struct Q9_7Angle: Hashable, Sendable, CustomStringConvertible {
    public var raw: Int16
    public init(raw: Int16) { self.raw = raw }
    /// The nearest representable angle to `degrees`, clamped to the Q9.7 range.
    public init(degrees: Double) {
        // Round half away from zero without libm: the core links nothing but the standard library.
        let scaled = degrees * 128
        let clamped = max(Double(Int16.min), min(Double(Int16.max), scaled >= 0 ? scaled + 0.5 : scaled - 0.5))
        raw = clamped.isNaN ? 0 : Int16(clamped)
    }
    public var degrees: Double { Double(raw) / 128 }
    public var description: String { "\(degrees)°" }

    /// Reads the two little-endian bytes of a signed Q9.7 field.
    init(_ reader: inout ByteReader, _ field: StaticString) throws(UCIDecodingError) {
        raw = try reader.i16(field)
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.append16(UInt16(bitPattern: raw))
    }
}
