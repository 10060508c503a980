import Testing
@testable import MagicalStore

/// What the page cache keeps across writes: pages readers may want, not the ones a commit
/// replaced, copied on the way to being replaced, or read once by compaction.
@Suite struct CacheUseTests {
    static let entries = 6_000

    /// A store with a cache big enough for the tree several times over.
    static func makeStore(in directory: TemporaryDirectory) throws -> Store {
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024, cacheBytes: 64 << 20))
        try store.write { transaction in
            try transaction.createTree("tree").putBatch((0..<entries).map { (numberKey($0 * 2), [UInt8](repeating: 1, count: 40)) })
        }
        return store
    }

    static func cachedBytes(_ store: Store) throws -> Int {
        try store.writerSnapshot().file.cache.cachedBytes
    }

    static func readAll(_ store: Store) throws {
        _ = try allEntries(store.read().tree("tree"))
    }

    /// The store of ``makeStore(in:)`` reopened with an empty cache and read whole: the
    /// store, and what its cache then holds (the tree's pages).
    static func reopenedAndRead(in directory: TemporaryDirectory) throws -> (Store, Int) {
        try makeStore(in: directory).close()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, cacheBytes: 64 << 20))
        try readAll(store)
        return (store, try cachedBytes(store))
    }

    /// Every leaf rewritten by one scattered batch: new values and new keys between.
    static func rewriteEverything(_ store: Store, value: UInt8) throws {
        var random = SeededGenerator(seed: UInt64(value))
        let batch = (0..<entries).map { (numberKey($0 * 2 + 1), [value]) }.shuffled(using: &random)
            + (0..<entries).map { (numberKey($0 * 2), [UInt8](repeating: value, count: 40)) }
        try store.write { try $0.tree("tree").putBatch(batch) }
    }

    @Test func aCommitTakesThePagesItReplacedOutOfTheCache() throws {
        let directory = TemporaryDirectory()
        let store = try Self.makeStore(in: directory)
        try Self.readAll(store)
        let oneTree = try Self.cachedBytes(store)
        try Self.rewriteEverything(store, value: 2)
        try Self.readAll(store)
        // The new tree's pages, not both trees'.
        let afterRewrite = try Self.cachedBytes(store)
        #expect(afterRewrite > oneTree / 2 && afterRewrite < oneTree * 2)
        try store.close()
    }

    /// A scattered batch copies every leaf, and the next batch reads them all again: the
    /// copies it wrote stay cached in place of the pages they replace, never beside them,
    /// and so do the right halves of the leaves it split in the middle.
    @Test func aCommitsCopiesTakeThePlaceOfThePagesTheyReplace() throws {
        let directory = TemporaryDirectory()
        let (store, oldTree) = try Self.reopenedAndRead(in: directory)
        try Self.rewriteEverything(store, value: 3)
        let afterRewrite = try Self.cachedBytes(store)
        try Self.readAll(store)
        let newTree = try Self.cachedBytes(store)
        // Every leaf split: the new tree is half as large again as the old one.
        #expect(afterRewrite > oldTree, "the copies and the split halves are cached")
        #expect(newTree - afterRewrite < oldTree / 20, "reading the new tree finds its leaves cached")
        #expect(newTree < oldTree * 9 / 5, "the old pages are not")
        try store.close()
    }

    /// A commit caches the leaves it copied from pages, in their place, but not those it
    /// made: an import appends leaves nobody reads soon, and they are cached when read.
    @Test func aCommitCachesTheLeavesItCopiedNotThoseItMade() throws {
        let directory = TemporaryDirectory()
        let (store, tree) = try Self.reopenedAndRead(in: directory)
        // New values in place, no splits: every leaf copied, and the copies stay cached.
        try store.write { try $0.tree("tree").putBatch((0..<Self.entries).map { (numberKey($0 * 2), [UInt8](repeating: 4, count: 40)) }) }
        let afterCopies = try Self.cachedBytes(store)
        #expect(afterCopies > tree * 9 / 10 && afterCopies < tree * 11 / 10)
        // Appended keys: the last leaf copied, a hundred or so made.
        let appended = (0..<Self.entries / 2).map { (numberKey(Self.entries * 2 + $0), [UInt8](repeating: 5, count: 40)) }
        try store.write { try $0.tree("tree").putBatch(appended) }
        let afterAppend = try Self.cachedBytes(store)
        try Self.readAll(store)
        let afterRead = try Self.cachedBytes(store)
        #expect(afterRead - afterCopies > tree / 3, "the appended leaves are cached once read")
        #expect(afterAppend - afterCopies < (afterRead - afterCopies) / 10, "not when written")
        try store.close()
    }

    /// What a transaction keeps of the copies it writes before its commit stops at a
    /// quarter of the cache (give or take one round of leaves): a batch of any size holds
    /// no more until it commits.
    @Test func copiesKeptBeforeTheCommitStopAtAQuarterOfTheCache() throws {
        let directory = TemporaryDirectory()
        try Self.makeStore(in: directory).close()
        let cacheBytes = 256 << 10
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, cacheBytes: cacheBytes))
        var random = SeededGenerator(seed: 5)
        try store.write { transaction in
            let tree = try transaction.tree("tree")
            for round in 0..<4 {
                let batch = (0..<Self.entries).map { (numberKey($0 * 2), [UInt8](repeating: UInt8(round + 10), count: 40)) }.shuffled(using: &random)
                try tree.putBatch(batch)
            }
            let writer = try transaction.pageWriter()
            let kept = writer.writtenPages.reduce(0) { $0 + $1.memoryCost }
            let oneRound = MutableTree.leavesPerSpill * (1024 + 1024)
            #expect(kept > 0 && kept <= cacheBytes / 4 + oneRound)
        }
        try store.close()
    }

    @Test func compactionReadsPastTheCache() throws {
        let directory = TemporaryDirectory()
        try Self.makeStore(in: directory).close()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, cacheBytes: 64 << 20))
        try Self.rewriteEverything(store, value: 4)
        let oldFile = try store.writerSnapshot().file
        let before = oldFile.cache.cachedBytes
        try store.compact()
        #expect(oldFile.cache.cachedBytes == before)
        let newFileCache = try Self.cachedBytes(store)
        #expect(newFileCache == 0)
        #expect(try allEntries(store.read().tree("tree")).count == Self.entries * 2)
        try store.close()
    }
}
