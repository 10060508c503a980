import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// `findFirst(byAttribute:withValue:)` on an integer key through the key's hints: one
/// tree read when the hint holds, and the index's answer whenever it does not.
@Suite struct KeyHintLookupTests {
    /// The index lookup tests' class for Sample: the class registry is global, and tests
    /// run side by side.
    typealias HintedSample = IndexLookupTests.IndexedSample

    private static func hints(_ stack: FetchStack) throws -> KeyHints {
        try #require(try stack.store.coder(for: "Sample").keyHints)
    }

    private static func find(_ key: Int64, in context: ManagedObjectContext) throws -> ManagedObject? {
        try HintedSample.findFirst(byAttribute: "sampleID", withValue: key, in: context)
    }

    @Test func aSaveLeavesHintsThatFindersTake() throws {
        ObjectClassRegistry.register(HintedSample.self)
        let stack = try FetchStack()
        var saved: [Int64: ObjectID] = [:]
        for key in Int64(1)...40 { saved[key] = try stack.main.insert("Sample", ["sampleID": .integer(key)]).objectID }
        try stack.main.saveToPersistentStore()
        let hints = try Self.hints(stack)
        for key in Int64(1)...40 { #expect(try Self.find(key, in: stack.root)?.objectID == saved[key]) }
        #expect(hints.answeredCount == 40, "every find took its hint")
        #expect(try Self.find(41, in: stack.root) == nil)
        // An entity without a key has no hints.
        #expect(try stack.store.coder(for: "Dog").keyHints == nil)
    }

    /// Hints left behind by a changed key, a deletion, a key given to another object and
    /// hints that were never true: each find still answers as the index does.
    @Test func staleHintsFallBackToTheIndex() throws {
        ObjectClassRegistry.register(HintedSample.self)
        let stack = try FetchStack()
        let renamed = try stack.main.insert("Sample", ["sampleID": .integer(1)])
        let deleted = try stack.main.insert("Sample", ["sampleID": .integer(2)])
        let other = try stack.main.insert("Sample", ["sampleID": .integer(3)])
        try stack.main.saveToPersistentStore()
        let hints = try Self.hints(stack)

        try renamed.setValue(.integer(100), forKey: "sampleID")
        try stack.main.delete(deleted)
        try stack.main.saveToPersistentStore()
        #expect(try Self.find(1, in: stack.root) == nil, "the hint for 1 names a record that now holds 100")
        #expect(try Self.find(100, in: stack.root)?.objectID == renamed.objectID)
        #expect(try Self.find(2, in: stack.root) == nil, "the hint for 2 names a deleted record")

        let reborn = try stack.main.insert("Sample", ["sampleID": .integer(2)])
        try stack.main.saveToPersistentStore()
        #expect(reborn.objectID != deleted.objectID)
        #expect(try Self.find(2, in: stack.root)?.objectID == reborn.objectID)

        // Hints that were never true: a number no object has, and another object's.
        hints.note(key: 3, number: 9_999)
        #expect(try Self.find(3, in: stack.root)?.objectID == other.objectID)
        hints.note(key: 3, number: renamed.objectID.number)
        #expect(try Self.find(3, in: stack.root)?.objectID == other.objectID)
        hints.note(key: 4, number: other.objectID.number)
        #expect(try Self.find(4, in: stack.root) == nil)
    }

    /// A find in a context with unsaved changes of the entity takes the general fetch,
    /// whatever the hints say; one without them returns the object it has registered.
    @Test func hintsServeOnlyWhereTheShortWayMay() throws {
        ObjectClassRegistry.register(HintedSample.self)
        let stack = try FetchStack()
        let saved = try stack.main.insert("Sample", ["sampleID": .integer(7)])
        try stack.main.saveToPersistentStore()
        let hints = try Self.hints(stack)

        #expect(try Self.find(7, in: stack.main) === saved, "the registered object")
        let before = hints.answeredCount
        try saved.setValue(.integer(8), forKey: "sampleID")
        #expect(try Self.find(8, in: stack.main) === saved, "the unsaved key, through the general fetch")
        #expect(try Self.find(7, in: stack.main) == nil)
        #expect(hints.answeredCount == before, "no hint taken with unsaved changes")
    }

    /// Once the table holds every key (here: marked so while the entity had none), a key
    /// it has no slot for is found absent by the table alone; stale hints (a changed key,
    /// a deleted object) still fall back to the index, and a snapshot older than the
    /// table's completeness is not answered by it.
    @Test func aCompleteTableAnswersAnAbsentKey() throws {
        ObjectClassRegistry.register(HintedSample.self)
        let stack = try FetchStack()
        let hints = try Self.hints(stack)
        hints.markComplete(asOf: try stack.store.snapshot().transaction.transactionID)
        var objects: [Int64: ManagedObject] = [:]
        for key in Int64(1)...30 { objects[key] = try stack.main.insert("Sample", ["sampleID": .integer(key)]) }
        try stack.main.saveToPersistentStore()
        try objects[1]!.setValue(.integer(100), forKey: "sampleID")
        try stack.main.delete(objects[2]!)
        try stack.main.saveToPersistentStore()

        var before = hints.answeredCount
        for key in Int64(31)...60 { #expect(try Self.find(key, in: stack.root) == nil) }
        #expect(hints.answeredCount == before + 30, "each absent key answered by the table")
        #expect(try Self.find(1, in: stack.root) == nil, "a hint for a key changed since")
        #expect(try Self.find(2, in: stack.root) == nil, "a hint for a deleted object")
        #expect(try Self.find(100, in: stack.root)?.objectID == objects[1]!.objectID)
        for key in Int64(3)...30 { #expect(try Self.find(key, in: stack.root)?.objectID == objects[key]!.objectID) }

        // Complete only from a later commit on: the index answers.
        let later = try FetchStack()
        let laterHints = try Self.hints(later)
        _ = try later.main.insert("Sample", ["sampleID": .integer(5)])
        try later.main.saveToPersistentStore()
        laterHints.markComplete(asOf: try later.store.snapshot().transaction.transactionID + 1)
        before = laterHints.answeredCount
        #expect(try Self.find(6, in: later.root) == nil)
        #expect(laterHints.answeredCount == before, "no answer for a snapshot before the table's completeness")
    }

    /// The short way is taken: a reopened store's table, marked complete though it never
    /// saw the stored key, is believed, and the index is not read.
    @Test func anAbsentKeyIsNotLookedForInTheIndex() throws {
        ObjectClassRegistry.register(HintedSample.self)
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        func open() throws -> ObjectStore {
            try ObjectStore(path: "/hints.store", model: FetchModel.model, options: StoreOptions(durability: .none, fileSystem: fileSystem))
        }
        do {
            let store = try open()
            defer { try? store.close() }
            let (_, main) = ObjectStack(store: store).makeContexts()
            _ = try main.insert("Sample", ["sampleID": .integer(5)])
            try main.saveToPersistentStore()
        }
        let store = try open()
        defer { try? store.close() }
        let (root, _) = ObjectStack(store: store).makeContexts()
        let hints = try #require(try store.coder(for: "Sample").keyHints)
        hints.markComplete(asOf: try store.snapshot().transaction.transactionID)
        #expect(try Self.find(5, in: root) == nil, "the table's word, not the index's")
    }
}
