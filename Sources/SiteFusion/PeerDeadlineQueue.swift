/// The moments at which something about a peer can change without a new range (a loss, a dwell
/// that runs out, forgetting it), earliest first: what lets the tracker's `tick` visit only the
/// peers that are due, and the service sleep until the first of them, instead of walking every
/// peer ever seen a few times a second.
///
/// A binary min-heap, ordered by time and then by peer name so that peers due at the same moment
/// come out in a stable order. Entries are not removed when a peer's deadline moves: the tracker
/// pushes the new one and drops an entry that no longer matches its peer when it reaches the top
/// (comparing with the peer's current deadline), which keeps every change O(log n).
struct PeerDeadlineQueue: Sendable {
    struct Entry: Sendable {
        var time: Double
        var peer: String

        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && peer < other.peer)
        }
    }

    private var heap: [Entry] = []

    var count: Int { heap.count }
    /// The earliest entry (which may be stale: see the type's comment).
    var first: Entry? { heap.first }

    mutating func insert(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func removeFirst() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        siftDown(from: 0)
        return first
    }

    /// Replaces every entry with `entries` (the peers' current deadlines), in storage of their
    /// size: after many peers were forgotten or many stale entries piled up.
    mutating func rebuild(_ entries: [Entry]) {
        heap = []
        heap.reserveCapacity(entries.count)
        heap.append(contentsOf: entries)
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
