/// Timer deadlines in order: a binary min-heap of (deadline, id). Cancelled timers stay in the
/// heap until they come up and are skipped by the loop (it looks the id up), so that cancelling
/// costs nothing but a dictionary removal.
struct TimerQueue {
    private var heap: [(deadline: Double, id: Int)] = []

    var earliest: Double? { heap.first?.deadline }
    var earliestID: Int? { heap.first?.id }
    var count: Int { heap.count }

    mutating func insert(deadline: Double, id: Int) {
        heap.append((deadline, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the earliest entry and returns its id; the queue must not be empty.
    mutating func removeEarliest() -> Int {
        let id = heap[0].id
        let last = heap.removeLast()
        guard !heap.isEmpty else { return id }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count && Self.precedes(heap[left], heap[first]) { first = left }
            if right < heap.count && Self.precedes(heap[right], heap[first]) { first = right }
            guard first != parent else { break }
            heap.swapAt(first, parent)
            parent = first
        }
        return id
    }

    /// Earlier deadline first; for equal deadlines the timer scheduled first (smaller id).
    private static func precedes(_ a: (deadline: Double, id: Int), _ b: (deadline: Double, id: Int)) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id)
    }
}
