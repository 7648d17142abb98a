import Vocabulary

/// The header at the start of every recording file (RecordingFormat).
public struct RecordingHeader: Hashable, Sendable {
    public var version: UInt16
    /// When the file was started, microseconds since the epoch; record times are offsets from it.
    public var startTime: Int64
    /// 0 for the first file of a recording, one more for each rotation: orders a rotated set.
    public var segment: UInt32
    /// Free text chosen by the writer; the agent writes a JSON object (peers, gateway id, version).
    public var metadata: String

    public init(startTime: Int64, segment: UInt32 = 0, metadata: String = "", version: UInt16 = RecordingFormat.version) {
        self.version = version
        self.startTime = startTime
        self.segment = segment
        self.metadata = metadata
    }

    /// The header's bytes, CRC included.
    public func encoded() -> [UInt8] {
        var out = RecordingFormat.magic
        let meta = Array(metadata.utf8)
        out.appendLittleEndian(version)
        out.appendLittleEndian(UInt16(0))
        out.appendLittleEndian(UInt64(bitPattern: startTime))
        out.appendLittleEndian(segment)
        out.appendLittleEndian(UInt32(meta.count))
        out += meta
        out.appendLittleEndian(CRC32.checksum(out))
        return out
    }

    /// What reading a header found.
    public enum Decoded: Hashable, Sendable {
        /// A valid header of `length` bytes.
        case header(RecordingHeader, length: Int)
        /// The file does not start with the magic: not a recording at all.
        case notARecording
        /// A recording of a version this code does not read.
        case unsupportedVersion(UInt16)
        /// The magic is there but the header is cut short or fails its CRC (power cut while the
        /// file was being created, or damage).
        case damaged(String)
    }

    /// Reads the header at the start of `bytes`.
    public static func decode(_ bytes: [UInt8]) -> Decoded {
        let magic = RecordingFormat.magic
        guard bytes.count >= magic.count else {
            return bytes.elementsEqual(magic.prefix(bytes.count)) && !bytes.isEmpty ? .damaged("header cut short after \(bytes.count) bytes") : .notARecording
        }
        guard bytes[0..<magic.count].elementsEqual(magic) else { return .notARecording }
        guard bytes.count >= RecordingFormat.headerFixedLength else { return .damaged("header cut short after \(bytes.count) bytes") }
        let version = bytes.littleEndian(UInt16.self, at: 8)
        guard version == RecordingFormat.version else { return .unsupportedVersion(version) }
        let start = Int64(bitPattern: bytes.littleEndian(UInt64.self, at: 12))
        let segment = bytes.littleEndian(UInt32.self, at: 20)
        let metaLength = Int(bytes.littleEndian(UInt32.self, at: 24))
        guard metaLength <= RecordingFormat.maximumMetadataLength else { return .damaged("metadata length \(metaLength) is too large") }
        let length = RecordingFormat.headerFixedLength + metaLength
        guard bytes.count >= length else { return .damaged("header cut short after \(bytes.count) of \(length) bytes") }
        guard CRC32.checksum(bytes, 0..<(length - 4)) == bytes.littleEndian(UInt32.self, at: length - 4) else {
            return .damaged("header checksum mismatch")
        }
        let metadata = String(decoding: bytes[28..<(28 + metaLength)], as: UTF8.self)
        return .header(RecordingHeader(startTime: start, segment: segment, metadata: metadata, version: version), length: length)
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }

    /// The little-endian integer at `offset`; the caller has checked the bounds.
    func littleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        var value: T = 0
        for index in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(self[offset + index]) }
        return value
    }
}
