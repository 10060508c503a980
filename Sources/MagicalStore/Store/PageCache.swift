import Synchronization

/// Decoded pages by offset, shared by every snapshot of one store file. Pages are
/// immutable (copy-on-write), so a cached page never goes stale; eviction only bounds
/// memory.
///
/// A 4-way set-associative table rather than a `Dictionary`: point lookups hit the cache
/// once per tree level, and a multiplicative hash of the offset is several times cheaper
/// than `Hasher`; eviction is least-recently-used within a set.
final class PageCache: Sendable {
    private struct Slot {
        var offset: UInt64 = 0
        var page: PageNode?
        var lastUse: UInt64 = 0
    }

    private struct Table {
        var slots: [Slot]
        var clock: UInt64 = 0
    }

    private static let ways = 4
    private let state: Mutex<Table>
    private let setShift: UInt64

    /// Room for about `capacityBytes` of full pages of `pageSize` bytes.
    init(capacityBytes: Int, pageSize: Int) {
        var sets = 16
        while sets * Self.ways * pageSize < capacityBytes { sets *= 2 }
        setShift = UInt64(64 - sets.trailingZeroBitCount)
        state = Mutex(Table(slots: Array(repeating: Slot(), count: sets * Self.ways)))
    }

    @inline(__always)
    private func firstSlot(of offset: UInt64) -> Int {
        Int(truncatingIfNeeded: ((offset >> 3) &* 0x9E37_79B9_7F4A_7C15) >> setShift) * Self.ways
    }

    func page(at offset: UInt64) -> PageNode? {
        let first = firstSlot(of: offset)
        return state.withLock { table in
            for index in first..<first + Self.ways where table.slots[index].offset == offset {
                table.clock &+= 1
                table.slots[index].lastUse = table.clock
                return table.slots[index].page
            }
            return nil
        }
    }

    func insert(_ page: PageNode) {
        let first = firstSlot(of: page.offset)
        state.withLock { table in
            var victim = first
            for index in first..<first + Self.ways {
                if table.slots[index].offset == page.offset || table.slots[index].page == nil {
                    victim = index
                    break
                }
                if table.slots[index].lastUse < table.slots[victim].lastUse { victim = index }
            }
            table.clock &+= 1
            table.slots[victim] = Slot(offset: page.offset, page: page, lastUse: table.clock)
        }
    }
}
