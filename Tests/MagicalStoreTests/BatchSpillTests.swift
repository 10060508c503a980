import Foundation
import Testing
@testable import MagicalStore

/// A batch of scattered keys into a large tree writes the subtrees it has passed before the
/// commit (Spec F13a): the transaction still reads, changes, commits and rolls them back
/// as if they had waited in memory, and the commit's live bytes stay exact.
@Suite struct BatchSpillTests {
    static let pageSize = 512

    /// A store whose tree spans thousands of small leaves, and the entries in it.
    static func makeStore(in directory: TemporaryDirectory, random: inout SeededGenerator) throws -> (Store, [[UInt8]: [UInt8]]) {
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: pageSize, cacheBytes: 1 << 20))
        var entries: [[UInt8]: [UInt8]] = [:]
        for number in stride(from: 0, to: 20_000 * testScale, by: 2) {
            entries[numberKey(number)] = random.bytes(count: Int.random(in: 10...60, using: &random))
        }
        try store.write { try $0.createTree("tree").putBatch(entries.map { ($0.key, $0.value) }) }
        return (store, entries)
    }

    /// Scattered keys, some new and some replacing, a few values large enough to overflow.
    static func scatteredBatch(count: Int, random: inout SeededGenerator) -> [(key: [UInt8], value: [UInt8])] {
        (0..<count).map { _ in
            let size = Int.random(in: 0..<50, using: &random) == 0 ? pageSize * 2 : Int.random(in: 1...60, using: &random)
            return (numberKey(Int.random(in: 0..<22_000 * testScale, using: &random)), random.bytes(count: size))
        }
    }

    static func fileSize(_ path: String) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    @Test func aSpillingTransactionReadsChangesAndCommitsItsEarlyPages() throws {
        var random = SeededGenerator(seed: 7)
        let directory = TemporaryDirectory()
        let (store, stored) = try Self.makeStore(in: directory, random: &random)
        var reference = stored
        let sizeBefore = Self.fileSize(directory.file())

        let transaction = try store.beginWrite()
        let tree = try transaction.tree("tree")
        let batch = Self.scatteredBatch(count: 6_000 * testScale, random: &random)
        try tree.putBatch(batch)
        for (key, value) in batch { reference[key] = value }
        // Passed leaves went to the file before the commit.
        #expect(Self.fileSize(directory.file()) > sizeBefore + UInt64(MutableTree.leavesPerSpill * Self.pageSize / 4))

        // The same transaction comes back to pages it spilled: reads, a second batch, deletes.
        for (key, value) in reference.shuffled(using: &random).prefix(500) { #expect(try tree.get(key) == value) }
        let second = Self.scatteredBatch(count: 3_000 * testScale, random: &random)
        try tree.putBatch(second)
        for (key, value) in second { reference[key] = value }
        for key in reference.keys.shuffled(using: &random).prefix(2_000) {
            #expect(try tree.delete(key))
            reference.removeValue(forKey: key)
        }
        #expect(tree.count == reference.count)
        var scanned: [[UInt8]: [UInt8]] = [:]
        try tree.scan { key, value in
            scanned[key] = value
            return true
        }
        #expect(scanned == reference)
        try transaction.commit()

        try Self.expectStore(at: directory, closing: store, equals: reference)
    }

    @Test func aRolledBackSpillLeavesTheStoreAsItWas() throws {
        var random = SeededGenerator(seed: 8)
        let directory = TemporaryDirectory()
        let (store, reference) = try Self.makeStore(in: directory, random: &random)
        let sizeBefore = Self.fileSize(directory.file())

        let transaction = try store.beginWrite()
        try transaction.tree("tree").putBatch(Self.scatteredBatch(count: 6_000 * testScale, random: &random))
        #expect(Self.fileSize(directory.file()) > sizeBefore)
        transaction.rollback()

        #expect(Self.fileSize(directory.file()) == sizeBefore)
        #expect(try allEntries(store.read().tree("tree")) == reference)
        // The next transaction writes where the spilled pages were, and reads only its own.
        let batch = Self.scatteredBatch(count: 6_000 * testScale, random: &random)
        try store.write { try $0.tree("tree").putBatch(batch) }
        var expected = reference
        for (key, value) in batch { expected[key] = value }
        try Self.expectStore(at: directory, closing: store, equals: expected)
    }

    @Test func aTreeDroppedAfterSpillingFreesItsEarlyPages() throws {
        var random = SeededGenerator(seed: 9)
        let directory = TemporaryDirectory()
        let (store, _) = try Self.makeStore(in: directory, random: &random)
        try store.write { transaction in
            try transaction.tree("tree").putBatch(Self.scatteredBatch(count: 6_000 * testScale, random: &random))
            try transaction.dropTree("tree")
            try transaction.createTree("other").put([1], [2])
        }
        try store.close()
        // The checker compares the commit's live bytes with what is reachable.
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
    }

    @Test func aTransactionWhoseEarlyPagesFailedCanOnlyRollBack() throws {
        var random = SeededGenerator(seed: 10)
        let faulty = FaultInjectingFileSystem(base: MemoryFileSystem())
        let options = StoreOptions(durability: .none, pageSize: Self.pageSize, fileSystem: faulty)
        let path = "/store/test.store"
        let store = try Store(path: path, options: options)
        var reference: [[UInt8]: [UInt8]] = [:]
        for number in stride(from: 0, to: 20_000, by: 2) { reference[numberKey(number)] = random.bytes(count: 30) }
        try store.write { try $0.createTree("tree").putBatch(reference.map { ($0.key, $0.value) }) }

        // The first write after this is the batch's first early page.
        faulty.inject(InjectedFault(kinds: [.write], atOperation: 1, errno: EIO))
        let transaction = try store.beginWrite()
        let batch = Self.scatteredBatch(count: 6_000, random: &random)
        var batchError: StoreError?
        do {
            try transaction.tree("tree").putBatch(batch)
        } catch {
            batchError = error as? StoreError
        }
        guard let batchError, case .io(_, _, EIO) = batchError else {
            Issue.record("expected the batch to fail with EIO, got \(String(describing: batchError))")
            return
        }
        // The commit ends the transaction with the batch's error, writing nothing.
        #expect(throws: batchError) { try transaction.commit() }
        #expect(throws: StoreError.closed) { try transaction.tree("tree") }

        #expect(try allEntries(store.read().tree("tree")) == reference)
        try store.write { try $0.tree("tree").putBatch(batch) }
        for (key, value) in batch { reference[key] = value }
        #expect(try allEntries(store.read().tree("tree")) == reference)
        try store.close()
        #expect(try StoreChecker(path: path, fileSystem: faulty).run().problems == [])
    }

    /// The same for a batch of deletes stopped by a failed read: part of it is applied, so
    /// the commit refuses it.
    @Test func aDeleteBatchStoppedPartWayCanOnlyRollBack() throws {
        var random = SeededGenerator(seed: 11)
        let faulty = FaultInjectingFileSystem(base: MemoryFileSystem())
        let options = StoreOptions(durability: .none, pageSize: Self.pageSize, cacheBytes: 0, fileSystem: faulty)
        let path = "/store/test.store"
        var reference: [[UInt8]: [UInt8]] = [:]
        for number in 0..<10_000 { reference[numberKey(number)] = random.bytes(count: 30) }
        let creating = try Store(path: path, options: options)
        try creating.write { try $0.createTree("tree").putBatch(reference.map { ($0.key, $0.value) }) }
        try creating.close()
        // Reopened, so the batch reads its pages from the file.
        let store = try Store(path: path, options: options)

        faulty.inject(InjectedFault(kinds: [.read], atOperation: 40, errno: EIO))
        let transaction = try store.beginWrite()
        let keys = Array(reference.keys.shuffled(using: &random).prefix(5_000))
        #expect(throws: StoreError.self) { try transaction.tree("tree").deleteBatch(keys) }
        #expect(throws: StoreError.self) { try transaction.commit() }

        #expect(try allEntries(store.read().tree("tree")) == reference)
        try store.close()
        #expect(try StoreChecker(path: path, fileSystem: faulty).run().problems == [])
    }

    static func expectStore(at directory: TemporaryDirectory, closing store: Store, equals reference: [[UInt8]: [UInt8]]) throws {
        #expect(try allEntries(store.read().tree("tree")) == reference)
        try store.close()
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
        let reopened = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        #expect(try allEntries(reopened.read().tree("tree")) == reference)
        #expect(try reopened.read().tree("tree").count == reference.count)
        try reopened.close()
    }
}
