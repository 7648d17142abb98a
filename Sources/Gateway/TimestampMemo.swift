import Vocabulary

/// The RFC 3339 text of the last time rendered, kept for the next payload with the same time.
///
/// The measurements of one UWB notification (one per peer, up to eight) share its receive time,
/// and each gives a `range` and usually a `feedback` payload: rendering the same text again for
/// each would cost a heap allocation apiece, because 24 UTF-8 bytes do not fit an inline small
/// string. One entry is enough for that; the text is exactly ``Timestamp/rfc3339(_:)``'s.
/// Owned by the agent loop; not shared.
struct TimestampMemo {
    private var seconds = Double.nan
    private var text = ""

    /// `Timestamp.rfc3339(secondsSinceEpoch)`, rendered only when the time differs from the last.
    /// Equal doubles give equal text (`0.0` and `-0.0` too); NaN equals nothing and is rendered
    /// each time, as the epoch.
    mutating func rfc3339(_ secondsSinceEpoch: Double) -> String {
        if secondsSinceEpoch != seconds {
            seconds = secondsSinceEpoch
            text = Timestamp.rfc3339(secondsSinceEpoch)
        }
        return text
    }
}
