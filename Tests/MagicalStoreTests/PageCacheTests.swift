import Testing
@testable import MagicalStore

/// The page cache starts small, grows to its capacity as pages arrive, keeps what fits,
/// and evicts the least recently used page of a full set.
@Suite struct PageCacheTests {
    func page(at offset: UInt64) throws -> PageNode {
        var payload: [UInt8] = []
        PageEncoder.leaf(keys: [numberKey(Int(offset))], values: [.inline([1])], into: &payload)
        return try PageNode(offset: offset, frameSize: 64, transaction: 1, isLeaf: true, payload: payload)
    }

    @Test func growsAndKeepsEveryPageWhileUnderCapacity() throws {
        // Room for 4,096 pages; 2,000 fit without any eviction in a table that grew.
        let cache = PageCache(capacityBytes: 4096 * 512, pageSize: 512)
        let offsets = (0..<2000).map { UInt64(4096 + $0 * 512) }
        for offset in offsets { cache.insert(try page(at: offset)) }
        let kept = offsets.filter { cache.page(at: $0)?.offset == $0 }
        // A set can fill before the table doubles: nearly all stay.
        #expect(kept.count > 1900)
        #expect(cache.page(at: 3) == nil)
    }

    @Test func atCapacityTheLeastRecentlyUsedPageGoes() throws {
        // The smallest table: 16 sets of 4.
        let cache = PageCache(capacityBytes: 0, pageSize: 512)
        let offsets = (0..<1000).map { UInt64(4096 + $0 * 512) }
        let hot = offsets[0]
        cache.insert(try page(at: hot))
        for offset in offsets.dropFirst() {
            cache.insert(try page(at: offset))
            #expect(cache.page(at: hot) != nil, "a page used after every insert stays")
        }
        #expect(offsets.filter { cache.page(at: $0) != nil }.count <= 64)
    }
}
