/// Reads a recording (one file or a rotated set) as a sequence of packets and problems.
///
/// Everything intact replays: a torn last record, a record with a bad CRC or any run of garbage
/// becomes one ``RecordingProblem`` with its offset, and reading resumes at the next intact record,
/// found by scanning for a record marker whose record passes its CRC. Files are loaded one at a
/// time as the iteration reaches them, so a rotated set needs the memory of its largest file only.
public struct RecordingReader: Sequence, Sendable {
    /// One file of the recording.
    public struct Segment: Hashable, Sendable {
        /// The path (or the name given to in-memory bytes).
        public var path: String
        /// The header; nil when it is damaged (the file is then reported and skipped).
        public var header: RecordingHeader?
        /// Size of the file when the reader was made.
        public var size: Int
        var headerLength: Int
        var headerDamage: String?
        var bytes: [UInt8]?
    }

    /// The files in replay order: ascending `segment`, then start time.
    public let segments: [Segment]

    /// Bytes in all files, for progress (``Iterator/position`` runs from 0 to this).
    public var totalBytes: Int { segments.reduce(0) { $0 + $1.size } }

    /// The first file's header: its metadata and start time describe the recording.
    public var header: RecordingHeader? { segments.lazy.compactMap(\.header).first }

    /// Reads one file.
    public init(path: String) throws(RecordingError) {
        try self.init(paths: [path])
    }

    /// Reads several files of one rotated recording, in the order of their headers' `segment`
    /// whatever order they are given in.
    public init(paths: [String]) throws(RecordingError) {
        var segments: [Segment] = []
        for path in paths {
            let prefix = try POSIXFile.readFile(path, limit: RecordingFormat.headerFixedLength + RecordingFormat.maximumMetadataLength)
            let size = try Self.fileSize(path)
            segments.append(try Self.segment(path: path, prefix: prefix, size: size, bytes: nil))
        }
        self.segments = Self.ordered(segments)
    }

    /// Reads `path` together with its rotated predecessors `path.1`, `path.2`, … that exist.
    public init(rotatedFrom path: String) throws(RecordingError) {
        try self.init(paths: Self.rotatedPaths(of: path))
    }

    /// Reads a recording held in memory (tests, and bytes that came from elsewhere).
    public init(bytes: [UInt8], name: String = "<memory>") throws(RecordingError) {
        segments = [try Self.segment(path: name, prefix: bytes, size: bytes.count, bytes: bytes)]
    }

    /// `path.N`, …, `path.1`, `path`: the rotated set of `path` that exists, oldest first. Stops at
    /// the first missing `path.k`.
    public static func rotatedPaths(of path: String) -> [String] {
        var older: [String] = []
        var index = 1
        while POSIXFile.exists(RotationPolicy.path(path, index: index)) {
            older.append(RotationPolicy.path(path, index: index))
            index += 1
        }
        return older.reversed() + (POSIXFile.exists(path) || older.isEmpty ? [path] : [])
    }

    /// Every packet and every problem, in order.
    public func readAll() -> (packets: [RecordedPacket], problems: [RecordingProblem]) {
        var packets: [RecordedPacket] = []
        var problems: [RecordingProblem] = []
        for item in self {
            switch item {
            case let .packet(p): packets.append(p)
            case let .problem(p): problems.append(p)
            }
        }
        return (packets, problems)
    }

    public func makeIterator() -> Iterator { Iterator(segments: segments) }

    /// Walks the files in order; ``position`` says how far it got, for a progress bar.
    public struct Iterator: IteratorProtocol {
        let segments: [Segment]
        var index = 0
        var bytes: [UInt8] = []
        var offset = 0
        var loaded = false
        var before = 0

        init(segments: [Segment]) { self.segments = segments }

        /// Bytes consumed so far across all files (0 … ``RecordingReader/totalBytes``).
        public var position: Int { before + (loaded ? offset : 0) }

        public mutating func next() -> RecordingItem? {
            while index < segments.count {
                let segment = segments[index]
                if !loaded {
                    if let damage = segment.headerDamage {
                        advance()
                        return .problem(RecordingProblem(kind: .damagedHeader, file: segment.path, offset: 0, length: segment.size, detail: damage))
                    }
                    if let held = segment.bytes {
                        bytes = held
                    } else {
                        do {
                            bytes = try POSIXFile.readFile(segment.path)
                        } catch {
                            advance()
                            return .problem(RecordingProblem(kind: .damagedHeader, file: segment.path, offset: 0, length: segment.size, detail: error.description))
                        }
                    }
                    offset = segment.headerLength
                    loaded = true
                }
                guard offset < bytes.count, let header = segment.header else {
                    advance()
                    continue
                }
                let found = RecordCodec.decode(bytes, at: offset, end: bytes.count, startTime: header.startTime)
                if case let .record(packet, next) = found {
                    offset = next
                    var packet = packet
                    packet.file = segment.path
                    return .packet(packet)
                }
                return .problem(resync(after: found, in: segment))
            }
            return nil
        }

        /// Skips from the damaged record at `offset` to the next intact one (or the end).
        private mutating func resync(after outcome: RecordCodec.Outcome, in segment: Segment) -> RecordingProblem {
            let start = offset
            let startTime = segment.header?.startTime ?? 0
            var resume = bytes.count
            var candidate = start + 1
            while candidate + RecordingFormat.minimumRecordLength <= bytes.count {
                if bytes[candidate] == RecordingFormat.recordMarker,
                   case .record = RecordCodec.decode(bytes, at: candidate, end: bytes.count, startTime: startTime) {
                    resume = candidate
                    break
                }
                candidate += 1
            }
            offset = resume
            let detail: String
            var kind = RecordingProblem.Kind.corrupted
            switch outcome {
            case .truncated:
                detail = "record cut short"
                if resume == bytes.count { kind = .truncated }
            case let .invalid(reason): detail = reason
            case .record: detail = ""
            }
            return RecordingProblem(kind: kind, file: segment.path, offset: start, length: resume - start, detail: detail)
        }

        private mutating func advance() {
            before += segments[index].size
            index += 1
            loaded = false
            bytes = []
            offset = 0
        }
    }

    private static func segment(path: String, prefix: [UInt8], size: Int, bytes: [UInt8]?) throws(RecordingError) -> Segment {
        switch RecordingHeader.decode(prefix) {
        case let .header(header, length):
            return Segment(path: path, header: header, size: size, headerLength: length, headerDamage: nil, bytes: bytes)
        case .notARecording:
            throw .notARecording(path: path)
        case let .unsupportedVersion(version):
            throw .unsupportedVersion(path: path, version: version)
        case let .damaged(detail):
            return Segment(path: path, header: nil, size: size, headerLength: 0, headerDamage: detail, bytes: bytes)
        }
    }

    /// Damaged files first (reported, nothing to replay), then by segment and start time.
    private static func ordered(_ segments: [Segment]) -> [Segment] {
        let damaged = segments.filter { $0.header == nil }
        let intact = segments.filter { $0.header != nil }.sorted {
            ($0.header!.segment, $0.header!.startTime) < ($1.header!.segment, $1.header!.startTime)
        }
        return damaged + intact
    }

    private static func fileSize(_ path: String) throws(RecordingError) -> Int {
        let fd = try POSIXFile.openForReading(path)
        defer { POSIXFile.closeDescriptor(fd) }
        return try POSIXFile.size(of: fd, path)
    }
}
