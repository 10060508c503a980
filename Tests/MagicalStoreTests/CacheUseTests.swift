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

    @Test func pagesCopiedForACommitAreNotCached() throws {
        let directory = TemporaryDirectory()
        try Self.makeStore(in: directory).close()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, cacheBytes: 64 << 20))
        try Self.rewriteEverything(store, value: 3)
        // What the commit wrote last is kept; the pages it copied, all of the old tree, are not.
        let afterRewrite = try Self.cachedBytes(store)
        try Self.readAll(store)
        let wholeTree = try Self.cachedBytes(store)
        #expect(afterRewrite < wholeTree / 2)
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
