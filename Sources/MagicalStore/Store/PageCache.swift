import Synchronization

/// Decoded pages by offset, shared by every snapshot of one store file. Pages are
/// immutable (copy-on-write), so a cached page never goes stale; eviction only bounds
/// memory, counted as what the pages really hold (``PageNode/memoryCost``: payload and
/// entry table), not as a number of pages.
///
/// A 16-way set-associative table rather than a `Dictionary`: point lookups hit the cache
/// once per tree level, and a multiplicative hash of the offset is several times cheaper
/// than `Hasher`; eviction is least-recently-used within the set a page goes to, when the
/// set is full or the cache is over its budget.
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
        var bytes = 0
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
            larger.bytes = bytes
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
    private let capacityBytes: Int

    /// Room for `capacityBytes` of pages as they sit in memory (at least the smallest
    /// table's worth of full pages of `pageSize` bytes, at most 64 TiB: any larger budget
    /// is as good as unbounded).
    init(capacityBytes: Int, pageSize: Int) {
        self.capacityBytes = min(max(capacityBytes, Self.initialSets * Self.ways * pageSize), 1 << 46)
        // Slots for twice the full pages the budget holds: pages are seldom full, and the
        // budget, not the table, should be what evicts.
        var sets = Self.initialSets
        while sets * Self.ways * pageSize < 2 * self.capacityBytes { sets *= 2 }
        maximumSlots = sets * Self.ways
        state = Mutex(Table(sets: Self.initialSets))
    }

    /// The memory the cached pages hold (for tests and statistics).
    var cachedBytes: Int { state.withLock { $0.bytes } }

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

    /// Drops the pages at `offsets` that are cached: a commit replaced them, and only
    /// snapshots taken before it, which read them from the file again, could still use them.
    func remove(_ offsets: [UInt64]) {
        guard !offsets.isEmpty else { return }
        state.withLock { table in
            for offset in offsets {
                let first = table.firstSlot(of: offset)
                for index in first..<first + Self.ways where table.slots[index].offset == offset {
                    guard let page = table.slots[index].page else { break }
                    table.bytes -= page.memoryCost
                    table.occupied -= 1
                    table.slots[index] = Slot()
                    break
                }
            }
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
            if let old = table.slots[victim].page {
                table.bytes -= old.memoryCost
            } else {
                table.occupied += 1
            }
            table.clock &+= 1
            table.slots[victim] = Slot(offset: page.offset, page: page, lastUse: table.clock)
            table.bytes += page.memoryCost
            // Over budget: the set's least recently used pages go, never the one just added.
            while table.bytes > capacityBytes {
                var oldest: Int?
                for index in first..<first + Self.ways where index != victim && table.slots[index].page != nil {
                    if oldest.map({ table.slots[index].lastUse < table.slots[$0].lastUse }) ?? true { oldest = index }
                }
                guard let oldest, let evicted = table.slots[oldest].page else { break }
                table.bytes -= evicted.memoryCost
                table.occupied -= 1
                table.slots[oldest] = Slot()
            }
        }
    }
}
