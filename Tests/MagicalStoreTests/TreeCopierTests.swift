import Foundation
import Testing
@testable import MagicalStore

/// A compaction copies each tree range by range, the ranges filled on several threads
/// (``TreeCopier``): every entry arrives, in a sound tree, whatever the threads and ranges.
struct TreeCopierTests {
    static let pageSize = 1024

    /// Trees of scattered keys, rewritten often enough for most of the file to be dead,
    /// with overflow values, a tree of one entry and an empty one.
    static func makeStore(
        at path: String, threads: Int, entriesPerScanThread: Int, cacheBytes: Int = 1 << 20, fileSystem: any StorageFileSystem = PosixFileSystem()
    ) throws -> (Store, [String: [[UInt8]: [UInt8]]]) {
        let options = StoreOptions(
            durability: .none, pageSize: pageSize, cacheBytes: cacheBytes, fileSystem: fileSystem, scanThreads: threads,
            entriesPerScanThread: entriesPerScanThread
        )
        let store = try Store(path: path, options: options)
        var random = SeededGenerator(seed: 17)
        var trees: [String: [[UInt8]: [UInt8]]] = ["big": [:], "small": [:], "one": [:], "empty": [:]]
        for _ in 0..<(6 * testScale) {
            try store.write { transaction in
                for (name, keySpace) in [("big", 3_000), ("small", 300)] {
                    var batch: [(key: [UInt8], value: [UInt8])] = []
                    for _ in 0..<keySpace / 3 {
                        let key = numberKey(Int.random(in: 0..<keySpace, using: &random))
                        let value = BTreeTests.randomValue(&random, pageSize: pageSize)
                        batch.append((key: key, value: value))
                        trees[name]![key] = value
                    }
                    try transaction.openTree(name).putBatch(batch)
                }
            }
        }
        try store.write { transaction in
            try transaction.openTree("one").put(numberKey(1), [1])
            _ = try transaction.openTree("empty")
        }
        trees["one"] = [numberKey(1): [1]]
        return (store, trees)
    }

    static func contents(of store: Store, _ names: some Sequence<String>) throws -> [String: [[UInt8]: [UInt8]]] {
        let snapshot = try store.read()
        var seen: [String: [[UInt8]: [UInt8]]] = [:]
        for name in names {
            var entries: [[UInt8]: [UInt8]] = [:]
            try snapshot.tree(name).scan { key, value in
                entries[key] = value
                return true
            }
            seen[name] = entries
        }
        return seen
    }

    @Test(arguments: [1, 3])
    func aCompactionCopiedInRangesKeepsEveryEntryInASoundStore(threads: Int) throws {
        let directory = TemporaryDirectory()
        // Ranges of some 100 entries: the big tree is copied in dozens of them.
        let (store, trees) = try Self.makeStore(at: directory.file(), threads: threads, entriesPerScanThread: 50)
        #expect(try store.info().deadBytes > 0)
        try store.compact()
        #expect(try Self.contents(of: store, trees.keys) == trees)
        try store.close()

        let report = try StoreChecker(path: directory.file()).run()
        #expect(report.problems == [])
        #expect(report.leafDeltas == 0)
        let reopened = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: Self.pageSize))
        #expect(try Self.contents(of: reopened, trees.keys) == trees)
        for (name, entries) in trees { #expect(try reopened.read().tree(name).count == entries.count) }
        try reopened.close()
    }

    /// A range whose pages fail to read fails the compaction while the ranges after it are
    /// still being filled: the copy waits for them before it throws, the store keeps what
    /// it held, and it compacts once the file reads again.
    @Test(arguments: [1, 40, 400])
    func aRangeThatFailsToReadFailsTheCompactionAndKeepsTheStore(failingRead: Int) throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(base: memory)
        let path = "/copier.store"
        // A cache too small to hold the tree: the ranges read their pages from the file.
        let (store, trees) = try Self.makeStore(at: path, threads: 3, entriesPerScanThread: 50, cacheBytes: 1 << 14, fileSystem: faulty)
        faulty.inject(InjectedFault(kinds: [.read], atOperation: failingRead))
        #expect(throws: StoreError.self) { try store.compact() }
        faulty.clearFaults()
        #expect(try Self.contents(of: store, trees.keys) == trees)
        try store.compact()
        #expect(try Self.contents(of: store, trees.keys) == trees)
        try store.close()
        #expect(try StoreChecker(path: path, fileSystem: memory).run().problems == [])
    }

    /// In one range, each leaf is as full as a page allows: the next leaf's first entry
    /// would not have fitted in it. Entries arrive in runs copied from their old leaves,
    /// inline and overflow values mixed, and no run may stop short or overfill a leaf.
    @Test func eachLeafOfARangeTakesEveryEntryThatFits() throws {
        let directory = TemporaryDirectory()
        let (store, trees) = try Self.makeStore(at: directory.file(), threads: 1, entriesPerScanThread: 1 << 30)
        try store.compact()
        #expect(try Self.contents(of: store, trees.keys) == trees)
        let tree = try store.read().tree("big")
        let reader = tree.reader
        var level = [try reader.node(#require(tree.root))]
        while !level[0].isLeaf {
            level = try level.flatMap { node in try committedPage(node).children.map { try reader.node(.page($0)) } }
        }
        let leaves = try level.map { try committedPage($0) }
        #expect(leaves.count > 10)
        #expect(leaves.reduce(0) { $0 + $1.count } == trees["big"]!.count)
        let pagePayload = FileFormat.maximumPagePayload(pageSize: Self.pageSize)
        for (leaf, next) in zip(leaves, leaves.dropFirst()) {
            let location = next.entries[0]
            let firstEntryBytes = 2 + Int(location.valueStart) + Int(location.valueLength) - next.entryStart(at: 0)
            #expect(leaf.payload.count + firstEntryBytes > pagePayload)
        }
        try store.close()
    }

    private func committedPage(_ node: NodeView) throws -> PageNode {
        guard case .page(let page) = node else { throw StoreError.corrupt(offset: 0, reason: "a committed tree holds a changed node") }
        return page
    }

    /// Leaves are as full as one loader makes them, but for the last of each range.
    @Test func rangesCostAtMostAPartLeafEach() throws {
        func bigTreeBytes(threads: Int, entriesPerScanThread: Int) throws -> UInt64 {
            let directory = TemporaryDirectory()
            let (store, _) = try Self.makeStore(at: directory.file(), threads: threads, entriesPerScanThread: entriesPerScanThread)
            try store.compact()
            try store.close()
            let report = try StoreChecker(path: directory.file()).run()
            return try #require(report.trees.first { $0.name == "big" }).bytes
        }
        let whole = try bigTreeBytes(threads: 1, entriesPerScanThread: 1 << 30)
        let ranges = 3_000 / 100
        let inRanges = try bigTreeBytes(threads: 2, entriesPerScanThread: 50)
        #expect(inRanges <= whole + UInt64(ranges * 2 * Self.pageSize))
    }
}
