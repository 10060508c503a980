import Synchronization

/// Decoded pages by offset, shared by every snapshot of one store file. Pages are
/// immutable (copy-on-write), so a cached page never goes stale; eviction only bounds
/// memory, counted as what the pages really hold (``PageNode/memoryCost``: payload and
/// entry table), not as a number of pages.
///
/// A 16-way set-associative table rather than a `Dictionary`: point lookups hit the cache
/// once per tree level, and a multiplicative hash of the offset is several times cheaper
/// than `Hasher`; eviction is least-recently-used within the set a page goes to, when the
/// cache is over its budget, or when the set is full and the table at its largest (under
/// budget, a full set doubles the table instead).
final class PageCache: Sendable {
    /// Starts small and doubles as pages arrive, up to the capacity: opening a store (or
    /// checking one) costs no more than the pages it reads.
    ///
    /// The offsets apart from the rest of the slots: a lookup, several per point get,
    /// scans a set's offsets alone, 8 bytes a slot, not whole 24-byte slots.
    private struct Table {
        struct Slot {
            var page: PageNode?
            var lastUse: UInt64 = 0
        }

        /// 0 for an empty slot: no page lies in the file's header region.
        var offsets: [UInt64]
        /// By slot, the page and its last use together: a hit then reads and writes one
        /// cache line past the offsets (in two arrays, each cost a miss on every tree level
        /// of a point get).
        var slots: [Slot]
        var setShift: UInt64
        var occupied = 0
        var bytes = 0
        var clock: UInt64 = 0

        init(sets: Int) {
            offsets = Array(repeating: 0, count: sets * PageCache.ways)
            slots = Array(repeating: Slot(), count: sets * PageCache.ways)
            setShift = UInt64(64 - sets.trailingZeroBitCount)
        }

        var slotCount: Int { offsets.count }

        @inline(__always)
        func firstSlot(of offset: UInt64) -> Int {
            Int(truncatingIfNeeded: ((offset >> 3) &* 0x9E37_79B9_7F4A_7C15) >> setShift) * PageCache.ways
        }

        /// The slot holding the page at `offset` in the set from `first`, if any.
        @inline(__always)
        func slot(of offset: UInt64, from first: Int) -> Int? {
            offsets.withUnsafeBufferPointer { offsets in
                for index in first..<first + PageCache.ways where offsets[index] == offset { return index }
                return nil
            }
        }

        /// Whether the set from `first` has an empty slot or holds `offset` already.
        @inline(__always)
        func hasRoom(for offset: UInt64, from first: Int) -> Bool {
            offsets.withUnsafeBufferPointer { offsets in
                for index in first..<first + PageCache.ways where offsets[index] == offset || offsets[index] == 0 { return true }
                return false
            }
        }

        mutating func fill(_ index: Int, with page: PageNode) {
            clock &+= 1
            offsets[index] = page.offset
            slots[index].page = page
            slots[index].lastUse = clock
        }

        mutating func empty(_ index: Int) {
            offsets[index] = 0
            slots[index].page = nil
            slots[index].lastUse = 0
        }

        /// The same pages in twice the sets. Each set splits in two, so nothing is evicted.
        func doubled() -> Table {
            var larger = Table(sets: 2 * slotCount / PageCache.ways)
            larger.clock = clock
            larger.bytes = bytes
            for index in 0..<slotCount {
                guard let page = slots[index].page else { continue }
                let first = larger.firstSlot(of: page.offset)
                let free = (first..<first + PageCache.ways).first { larger.slots[$0].page == nil } ?? first
                larger.offsets[free] = page.offset
                larger.slots[free].page = page
                larger.slots[free].lastUse = slots[index].lastUse
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
            guard let index = table.slot(of: offset, from: table.firstSlot(of: offset)) else { return nil }
            table.clock &+= 1
            table.slots[index].lastUse = table.clock
            return table.slots[index].page
        }
    }

    /// Drops the pages at `offsets` that are cached: a commit replaced them, and only
    /// snapshots taken before it, which read them from the file again, could still use them.
    func remove(_ offsets: [UInt64]) {
        guard !offsets.isEmpty else { return }
        state.withLock { table in
            for offset in offsets {
                guard let index = table.slot(of: offset, from: table.firstSlot(of: offset)), let page = table.slots[index].page else { continue }
                table.bytes -= page.memoryCost
                table.occupied -= 1
                table.empty(index)
            }
        }
    }

    func insert(_ page: PageNode) {
        state.withLock { table in
            if table.occupied * 4 >= table.slotCount * 3 && table.slotCount < maximumSlots {
                table = table.doubled()
            }
            var first = table.firstSlot(of: page.offset)
            // A full set while the budget has room: grow, not evict. An evicted page of a
            // tree that fits is read again and again by random gets (storebench at 200k
            // keys: one get in 45 decompressed and parsed a page).
            while table.slotCount < maximumSlots, table.bytes + page.memoryCost <= capacityBytes,
                  !table.hasRoom(for: page.offset, from: first) {
                table = table.doubled()
                first = table.firstSlot(of: page.offset)
            }
            var victim = first
            for index in first..<first + Self.ways {
                if table.offsets[index] == page.offset || table.slots[index].page == nil {
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
            table.fill(victim, with: page)
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
                table.empty(oldest)
            }
        }
    }
}
