import Testing
@testable import MagicalStore

/// The page cache starts small, grows to its capacity as pages arrive, keeps what fits,
/// and evicts the least recently used page of a full set.
@Suite struct PageCacheTests {
    func page(at offset: UInt64) throws -> PageNode {
        var entries = LeafEntries()
        entries.append(numberKey(Int(offset)), .inline([1]))
        var payload: [UInt8] = []
        entries.encode(into: &payload)
        return try PageNode(offset: offset, frameSize: 64, transaction: 1, isLeaf: true, payload: payload)
    }

    @Test func growsAndKeepsEveryPageWhileUnderCapacity() throws {
        // Room for 4,096 pages; 2,000 fit without any eviction in a table that grew.
        let cache = PageCache(capacityBytes: 4096 * 512, pageSize: 512)
        let offsets = (0..<2000).map { UInt64(4096 + $0 * 512) }
        for offset in offsets { cache.insert(try page(at: offset)) }
        let kept = offsets.filter { cache.page(at: $0)?.offset == $0 }
        #expect(kept.count == offsets.count)
        #expect(cache.page(at: 3) == nil)
    }

    /// A set that fills while the budget has room grows the table instead of evicting:
    /// evicted, a page of a tree that fits was read again on one point get in forty
    /// (storebench, 200k keys), each read a decompression and a parse.
    @Test func aFullSetGrowsTheTableWhileTheBudgetHasRoom() throws {
        for (count, seed) in [(150, 1), (1_460, 2), (5_000, 3), (7_300, 4)] as [(Int, UInt64)] {
            let cache = PageCache(capacityBytes: 16_384 * 512, pageSize: 512)
            // Compressed frames: offsets spaced by their varying sizes, as in a real file.
            var random = SeededGenerator(seed: seed)
            var offset: UInt64 = 4096
            let offsets = (0..<count).map { _ in
                defer { offset += UInt64.random(in: 20...600, using: &random) * 8 }
                return offset
            }
            for offset in offsets { cache.insert(try page(at: offset)) }
            let kept = offsets.filter { cache.page(at: $0) != nil }
            #expect(kept.count == count, "\(count - kept.count) of \(count) pages evicted under budget")
        }
    }

    @Test func anyBudgetIsTakenWithoutOverflow() throws {
        for capacity in [Int.min, -1, 0, 1, Int.max] {
            let cache = PageCache(capacityBytes: capacity, pageSize: 65_536)
            cache.insert(try page(at: 4096))
            #expect(cache.page(at: 4096) != nil)
        }
    }

    /// Pages count as what they hold in memory: the cache fills its budget and stays
    /// within it (give or take the page just added), whatever the pages' sizes.
    @Test func theBudgetCountsWhatPagesHold() throws {
        let capacity = 256 * 1024
        let cache = PageCache(capacityBytes: capacity, pageSize: 4096)
        var random = SeededGenerator(seed: 3)
        var offset: UInt64 = 4096
        var largest = 0
        for _ in 0..<3000 {
            let entries = Int.random(in: 1...120, using: &random)
            var leaf = LeafEntries()
            for key in (0..<entries).map(numberKey) { leaf.append(key, .inline([7, 7])) }
            var payload: [UInt8] = []
            leaf.encode(into: &payload)
            let page = try PageNode(offset: offset, frameSize: 64, transaction: 1, isLeaf: true, payload: payload)
            largest = max(largest, page.memoryCost)
            cache.insert(page)
            #expect(cache.cachedBytes <= capacity + largest)
            offset += UInt64(Int.random(in: 100...600, using: &random) * 8)
        }
        #expect(cache.cachedBytes >= capacity * 3 / 4)
    }

    /// A full cache that a scan cycles through, pages over 60% of its capacity: with 16
    /// ways a set rarely holds more of them than it has room for, so repeated scans find
    /// nine pages in ten (with 4 ways, one in five missed on every pass).
    @Test func repeatedScansOfATreeThatFitsStayCached() throws {
        let cache = PageCache(capacityBytes: 1024 * 512, pageSize: 512)
        for index in 0..<3000 { cache.insert(try page(at: UInt64(1 << 30) + UInt64(index * 512))) }
        // Compressed frames: offsets spaced by their varying sizes, as in a real file.
        var random = SeededGenerator(seed: 11)
        var offset: UInt64 = 4096
        let scanned = (0..<620).map { _ in
            defer { offset += UInt64.random(in: 100...600, using: &random) * 8 }
            return offset
        }
        var hits = 0
        for pass in 0..<3 {
            for offset in scanned {
                if cache.page(at: offset) != nil {
                    if pass == 2 { hits += 1 }
                } else {
                    cache.insert(try page(at: offset))
                }
            }
        }
        #expect(hits >= 550, "\(hits) of \(scanned.count) pages found on the third scan")
    }

    @Test func atCapacityTheLeastRecentlyUsedPageGoes() throws {
        // The smallest budget: 4 sets of 16 full pages; the table reaches twice that.
        let cache = PageCache(capacityBytes: 0, pageSize: 512)
        let offsets = (0..<1000).map { UInt64(4096 + $0 * 512) }
        let hot = offsets[0]
        cache.insert(try page(at: hot))
        for offset in offsets.dropFirst() {
            cache.insert(try page(at: offset))
            #expect(cache.page(at: hot) != nil, "a page used after every insert stays")
        }
        #expect(offsets.filter { cache.page(at: $0) != nil }.count <= 128)
    }

    @Test func removedPagesGoAndFreeTheirBytes() throws {
        let cache = PageCache(capacityBytes: 4096 * 512, pageSize: 512)
        let offsets = (0..<500).map { UInt64(4096 + $0 * 512) }
        for offset in offsets { cache.insert(try page(at: offset)) }
        let bytes = cache.cachedBytes
        let (gone, kept) = (offsets.filter { $0 % 3 == 0 }, offsets.filter { $0 % 3 != 0 })
        // Offsets never cached are passed over.
        cache.remove(gone + [3, 1 << 40])
        #expect(gone.allSatisfy { cache.page(at: $0) == nil })
        #expect(kept.allSatisfy { cache.page(at: $0) != nil })
        #expect(cache.cachedBytes == bytes - gone.count * (try page(at: 4096)).memoryCost)
        cache.remove(kept)
        #expect(cache.cachedBytes == 0)
        cache.insert(try page(at: gone[0]))
        #expect(cache.page(at: gone[0]) != nil)
    }
}
