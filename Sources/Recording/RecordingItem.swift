/// What a ``RecordingReader`` yields, in file order: an intact packet, or damage it stepped over.
public enum RecordingItem: Hashable, Sendable {
    case packet(RecordedPacket)
    case problem(RecordingProblem)
}
