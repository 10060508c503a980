import Foundation
import Testing
@testable import MagicalStore

/// A transaction's changed leaves are encoded on as many threads as it is told
/// (``WriteTransaction/encodingThreads``), its early pages and its commit alike: what it
/// writes reads back the same whatever the number.
@Suite struct EncodingThreadsTests {
    @Test(arguments: [1, 2, 3, 7])
    func aTransactionWritesTheSameEntriesOnAnyNumberOfThreads(threads: Int) throws {
        var random = SeededGenerator(seed: 11)
        let directory = TemporaryDirectory()
        let (store, stored) = try BatchSpillTests.makeStore(in: directory, random: &random)
        var reference = stored

        let transaction = try store.beginWrite()
        transaction.encodingThreads = threads
        let tree = try transaction.tree("tree")
        // Scattered keys spill passed leaves before the commit, in rounds of hundreds.
        let batch = BatchSpillTests.scatteredBatch(count: 6_000 * testScale, random: &random)
        try tree.putBatch(batch)
        for (key, value) in batch { reference[key] = value }
        try transaction.commit()

        try BatchSpillTests.expectStore(at: directory, closing: store, equals: reference)
    }

    @Test func noneOrFewerThreadsMeanOne() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        let transaction = try store.beginWrite()
        #expect(transaction.encodingThreads == ProcessInfo.processInfo.activeProcessorCount)
        transaction.encodingThreads = 0
        #expect(transaction.encodingThreads == 1)
        transaction.encodingThreads = -3
        #expect(transaction.encodingThreads == 1)
        transaction.rollback()
    }
}
