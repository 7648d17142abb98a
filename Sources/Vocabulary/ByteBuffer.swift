/// Bytes appended at the end of storage of their own, grown by doubling and written through a
/// pointer: room is reserved once for a run of bytes (`reserve`), where an array checks its
/// uniqueness and capacity, and calls a closure, at every append. Copies share the storage until
/// one of them writes, as an array's would. What `JSONBytes` writes into, and the MQTT client's
/// live packets: the agent appends a few hundred keys and values and a few dozen packet parts a
/// notification.
public struct ByteBuffer: Sendable {
    @usableFromInline var storage: Storage
    /// How many bytes are written: ``count``, stored where the inlined `advance` can add to it.
    @usableFromInline var written = 0
    public var count: Int { written }

    /// `capacity`: a guess at the size, so that the usual contents need a single allocation.
    public init(capacity: Int) { storage = Storage(capacity: Swift.max(capacity, 16)) }

    /// Room for `maximum` more bytes, in storage of this buffer's own: where they go. The caller
    /// says how many it wrote there with `advance(by:)`.
    @inlinable @inline(__always)
    public mutating func reserve(_ maximum: Int) -> UnsafeMutablePointer<UInt8> {
        if count + maximum > storage.capacity || !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy(count: count, capacity: Swift.max(count + maximum, storage.capacity * 2))
        }
        return storage.base + count
    }

    /// Storage of this buffer's own, copied if it is shared: what `reserveOwned` relies on.
    @usableFromInline mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(count: count, capacity: storage.capacity) }
    }

    /// `reserve` without asking whether the storage is this buffer's own: for a holder that made
    /// it so (`makeUnique`) and cannot be copied since (`JSONBytes`), so that a payload's few
    /// dozen writes skip the runtime's reference count check each.
    @inlinable @inline(__always)
    mutating func reserveOwned(_ maximum: Int) -> UnsafeMutablePointer<UInt8> {
        if count + maximum > storage.capacity {
            storage = storage.copy(count: count, capacity: Swift.max(count + maximum, storage.capacity * 2))
        }
        return storage.base + count
    }

    /// Counts `amount` bytes written at the pointer `reserve` gave.
    @inlinable @inline(__always)
    public mutating func advance(by amount: Int) {
        precondition(amount >= 0 && count + amount <= storage.capacity, "\(amount) bytes written beyond the room reserved")
        written += amount
    }

    public mutating func append(_ byte: UInt8) {
        reserve(1)[0] = byte
        written += 1
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(reserve(bytes.count)).copyMemory(from: base, byteCount: bytes.count)
        written += bytes.count
    }

    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { append(UnsafeRawBufferPointer(bytes)) }

    /// The last byte written, nil before the first.
    public var last: UInt8? { count > 0 ? storage.base[count - 1] : nil }

    /// Lends the bytes of `range` (positions among what was written) for the time of the call.
    public func withBytes<R, E: Error>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "bytes \(range) of \(count) written")
        return try body(UnsafeRawBufferPointer(start: storage.base + range.lowerBound, count: range.count))
    }

    /// The bytes written, as an array of their own.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage.base, count: count)) }

    /// Forgets what was written and keeps the room for the next bytes.
    public mutating func removeAll() { written = 0 }

    /// Bytes on the heap, freed with the last buffer that refers to them. Written only through a
    /// buffer that holds the one reference (`reserve`), so bytes that buffers share are never
    /// changed: as sendable as an array's storage.
    @usableFromInline final class Storage: @unchecked Sendable {
        @usableFromInline let base: UnsafeMutablePointer<UInt8>
        @usableFromInline let capacity: Int

        @usableFromInline init(capacity: Int) {
            base = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        /// The first `count` bytes in new storage of `capacity`.
        @usableFromInline func copy(count: Int, capacity: Int) -> Storage {
            let copy = Storage(capacity: capacity)
            copy.base.update(from: base, count: count)
            return copy
        }

        deinit { base.deallocate() }
    }
}
