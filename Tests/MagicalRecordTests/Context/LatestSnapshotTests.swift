import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The snapshot a stack hands out again to point gets (``ObjectStack/latestSnapshot()``):
/// the same one while nothing is committed, and never one a commit or compaction has left
/// behind, however that commit was made.
@Suite struct LatestSnapshotTests {
    /// The index lookup tests' class for Sample: the class registry is global, and tests
    /// run side by side.
    typealias Sample = IndexLookupTests.IndexedSample

    private static func name(of key: Int64, in context: ManagedObjectContext) throws -> AttributeValue? {
        try Sample.findFirst(byAttribute: "sampleID", withValue: key, in: context)?["name"]
    }

    @Test func findsSeeEveryCommitAndCompaction() throws {
        ObjectClassRegistry.register(Sample.self)
        let fetch = try FetchStack()
        let stack = fetch.root.stack
        let first = try fetch.main.insert("Sample", ["sampleID": .integer(1), "name": .string("one")])
        try fetch.main.saveToPersistentStore()
        #expect(try Self.name(of: 1, in: fetch.root) == .string("one"))
        let snapshot = try stack.latestSnapshot()
        #expect(try stack.latestSnapshot() === snapshot, "nothing committed: the same snapshot")

        // A save through the stack.
        try first.setValue(.string("uno"), forKey: "name")
        try fetch.main.saveToPersistentStore()
        #expect(try Self.name(of: 1, in: fetch.root) == .string("uno"))
        #expect(try stack.latestSnapshot() !== snapshot)

        // A commit through another stack of the same store, which this one hears nothing of.
        let other = ObjectStack(store: fetch.store).makeContexts().main
        _ = try other.insert("Sample", ["sampleID": .integer(2), "name": .string("two")])
        try other.saveToPersistentStore()
        #expect(try Self.name(of: 2, in: fetch.root) == .string("two"))

        // A compaction of the store itself moves every page to a new file.
        let beforeCompaction = try stack.latestSnapshot()
        _ = try fetch.store.compact()
        #expect(try stack.latestSnapshot() !== beforeCompaction)
        #expect(try Self.name(of: 1, in: fetch.root) == .string("uno"))
        #expect(try Self.name(of: 2, in: fetch.root) == .string("two"))
        #expect(try Self.name(of: 3, in: fetch.root) == nil)
    }
}
