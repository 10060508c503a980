import Synchronization

/// Decoded pages by offset, shared by every snapshot of one store file. Pages are
/// immutable (copy-on-write), so a cached page never goes stale; eviction only bounds
/// memory.
///
/// A 16-way set-associative table rather than a `Dictionary`: point lookups hit the cache
/// once per tree level, and a multiplicative hash of the offset is several times cheaper
/// than `Hasher`; eviction is least-recently-used within a set.
final class PageCache: Sendable {
    private struct Slot {
        var offset: UInt64 = 0
        var page: PageNode?
        var lastUse: UInt64 = 0
    }

    /// Starts small and doubles as pages arrive, up to the capacity: opening a store (or
    /// checking one) costs no more than the pages it reads.
    private struct Table {
        var slots: [Slot]
        var setShift: UInt64
        var occupied = 0
        var clock: UInt64 = 0

        init(sets: Int) {
            slots = Array(repeating: Slot(), count: sets * PageCache.ways)
            setShift = UInt64(64 - sets.trailingZeroBitCount)
        }

        @inline(__always)
        func firstSlot(of offset: UInt64) -> Int {
            Int(truncatingIfNeeded: ((offset >> 3) &* 0x9E37_79B9_7F4A_7C15) >> setShift) * PageCache.ways
        }

        /// The same pages in twice the sets. Each set splits in two, so nothing is evicted.
        func doubled() -> Table {
            var larger = Table(sets: 2 * slots.count / PageCache.ways)
            larger.clock = clock
            for slot in slots where slot.page != nil {
                let first = larger.firstSlot(of: slot.offset)
                let free = (first..<first + PageCache.ways).first { larger.slots[$0].page == nil } ?? first
                larger.slots[free] = slot
                larger.occupied += 1
            }
            return larger
        }
    }

    private static let ways = 16
    private static let initialSets = 4
    private let state: Mutex<Table>
    private let maximumSlots: Int

    /// Room for about `capacityBytes` of full pages of `pageSize` bytes.
    init(capacityBytes: Int, pageSize: Int) {
        var sets = Self.initialSets
        while sets * Self.ways * pageSize < capacityBytes { sets *= 2 }
        maximumSlots = sets * Self.ways
        state = Mutex(Table(sets: Self.initialSets))
    }

    func page(at offset: UInt64) -> PageNode? {
        state.withLock { table in
            let first = table.firstSlot(of: offset)
            for index in first..<first + Self.ways where table.slots[index].offset == offset {
                table.clock &+= 1
                table.slots[index].lastUse = table.clock
                return table.slots[index].page
            }
            return nil
        }
    }

    func insert(_ page: PageNode) {
        state.withLock { table in
            if table.occupied * 4 >= table.slots.count * 3 && table.slots.count < maximumSlots {
                table = table.doubled()
            }
            let first = table.firstSlot(of: page.offset)
            var victim = first
            for index in first..<first + Self.ways {
                if table.slots[index].offset == page.offset || table.slots[index].page == nil {
                    victim = index
                    break
                }
                if table.slots[index].lastUse < table.slots[victim].lastUse { victim = index }
            }
            if table.slots[victim].page == nil { table.occupied += 1 }
            table.clock &+= 1
            table.slots[victim] = Slot(offset: page.offset, page: page, lastUse: table.clock)
        }
    }
}
