import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The default stack: setup variants, the contexts it hands out, saving with blocks, and
/// what happens without a stack or with the wrong model.
extension GlobalStackTests {
@Suite struct StackSetupTests {
    static let model = try! ObjectModel(entities: [
        EntityDescription("Note", relatedBy: "noteID") {
            AttributeDescription("noteID", .integer64, optional: false)
            AttributeDescription("text", .string)
        },
    ])

    static let otherModel = try! ObjectModel(entities: [
        EntityDescription("Note", relatedBy: "noteID") {
            AttributeDescription("noteID", .integer64, optional: false)
            AttributeDescription("body", .string)
        },
    ])

    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stack-" + UUID().uuidString)
        init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static func addNote(_ number: Int64, _ text: String, in context: ManagedObjectContext) throws {
        let note = try context.insertObject(entityName: "Note")
        try note.setValue(.integer(number), forKey: "noteID")
        try note.setValue(.string(text), forKey: "text")
    }

    static func noteCount(in context: ManagedObjectContext) throws -> Int {
        try context.count(for: FetchRequest(entityName: "Note"))
    }

    @Test func theContextsHangTogetherAsMagicalRecordsDo() throws {
        try GlobalStack.with(model: Self.model) { () throws in
            let root = try ManagedObjectContext.rootSaving
            let main = try ManagedObjectContext.default
            #expect(root.parent == nil)
            #expect(root.concurrencyType == .privateQueue)
            #expect(main.parent === root)
            #expect(main.concurrencyType == .mainQueue)
            #expect(try ManagedObjectContext.context().parent === main)
            #expect(try ManagedObjectContext.newMainQueueContext().parent === root)
            #expect(try ManagedObjectContext.newPrivateQueueContext().parent === root)
            let scratch = ManagedObjectContext.context(withParent: main)
            #expect(scratch.parent === main)
            ManagedObjectContext.setDefaultContext(scratch)
            #expect(try ManagedObjectContext.default === scratch)
        }
    }

    @Test func withoutAStackCallsFailWithStackNotSetUp() {
        do {
            MagicalRecord.cleanUp()
            let result = Result { () throws(MagicalRecordError) in _ = try ManagedObjectContext.default }
            guard case .failure(.stackNotSetUp) = result else {
                Issue.record("expected stackNotSetUp, got \(result)")
                return
            }
            let saved = Result { () throws(MagicalRecordError) in try MagicalRecord.saveWithBlockAndWait { _ in } }
            guard case .failure(.stackNotSetUp) = saved else {
                Issue.record("expected stackNotSetUp, got \(saved)")
                return
            }
        }
    }

    @Test func aStoreAtAURLKeepsItsObjectsAcrossSetups() throws {
        let directory = Directory()
        let url = directory.url.appendingPathComponent("notes.store")
        do {
            try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: Self.model)
            try MagicalRecord.saveWithBlockAndWait { context in
                for number in Int64(1)...3 { try Self.addNote(number, "note \(number)", in: context) }
            }
            MagicalRecord.cleanUp()
            try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: Self.model, scanThreads: 2)
            defer { MagicalRecord.cleanUp() }
            #expect(try Self.noteCount(in: ManagedObjectContext.default) == 3)
            #expect(try ManagedObjectContext.default.stack.store.store.options.scanThreads == 2)
        }
    }

    @Test func aStoreWrittenWithAnotherModelIsRefusedWithTheDifferences() throws {
        let directory = Directory()
        let url = directory.url.appendingPathComponent("notes.store")
        do {
            try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: Self.model)
            try MagicalRecord.saveWithBlockAndWait { try Self.addNote(1, "kept", in: $0) }
            MagicalRecord.cleanUp()
            let before = try Data(contentsOf: url)
            let result = Result { () throws(MagicalRecordError) in
                try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: Self.otherModel)
            }
            guard case .failure(.modelMismatch(_, let differences)) = result else {
                Issue.record("expected modelMismatch, got \(result)")
                return
            }
            #expect(differences.contains { $0.contains("text") })
            #expect(differences.contains { $0.contains("body") })
            #expect(try Data(contentsOf: url) == before, "a refused store is left byte for byte")
            try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: Self.model)
            defer { MagicalRecord.cleanUp() }
            #expect(try Self.noteCount(in: ManagedObjectContext.default) == 1)
        }
    }

    @Test func namedStoresLiveInTheXDGDataDirectory() throws {
        let directory = Directory()
        do {
            let previous = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
            setenv("XDG_DATA_HOME", directory.url.path, 1)
            defer {
                if let previous { setenv("XDG_DATA_HOME", previous, 1) } else { unsetenv("XDG_DATA_HOME") }
            }
            let expected = directory.url.appendingPathComponent(ProcessInfo.processInfo.processName)
            #expect(MagicalRecord.defaultStoreDirectory.path == expected.path)
            try MagicalRecord.setupCoreDataStack(withStoreNamed: "Named.store", model: Self.model)
            defer { MagicalRecord.cleanUp() }
            try MagicalRecord.saveWithBlockAndWait { try Self.addNote(1, "named", in: $0) }
            #expect(FileManager.default.fileExists(atPath: expected.appendingPathComponent("Named.store").path))
        }
    }

    @Test func aFailingBlockSavesNothing() throws {
        struct Refusal: Error {}
        try GlobalStack.with(model: Self.model) { () throws in
            let result = Result { () throws(MagicalRecordError) in
                try MagicalRecord.saveWithBlockAndWait { context in
                    try Self.addNote(1, "half", in: context)
                    throw Refusal()
                }
            }
            guard case .failure(.blockFailed(let reason)) = result else {
                Issue.record("expected blockFailed, got \(result)")
                return
            }
            #expect(reason.contains("Refusal"))
            let stored = try Self.noteCount(in: ManagedObjectContext.rootSaving)
            let seen = try Self.noteCount(in: ManagedObjectContext.default)
            #expect(stored == 0 && seen == 0)
        }
    }

    @Test func saveWithBlockCompletesOnTheCompletionQueueWithoutAMainLoop() throws {
        try GlobalStack.with(model: Self.model) { () throws in
            let done = DispatchSemaphore(value: 0)
            let outcome = Outcome()
            MagicalRecord.saveWithBlock({ context in
                try Self.addNote(7, "background", in: context)
            }, completion: { result in
                outcome.set(result)
                done.signal()
            })
            #expect(done.wait(timeout: .now() + 30) == .success, "the completion ran")
            guard case .success = outcome.value else {
                Issue.record("save failed: \(String(describing: outcome.value))")
                return
            }
            #expect(try Self.noteCount(in: ManagedObjectContext.default) == 1)
        }
    }

    @Test func asyncSaveReachesTheStore() async throws {
        try MagicalRecord.setupCoreDataStackWithInMemoryStore(model: Self.model)
        defer { MagicalRecord.cleanUp() }
        try await MagicalRecord.save { context in try Self.addNote(9, "async", in: context) }
        let root = try ManagedObjectContext.rootSaving
        #expect(try Self.noteCount(in: root) == 1)
    }

    /// Holds a completion's result across threads.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Result<Void, MagicalRecordError>?
        var value: Result<Void, MagicalRecordError>? { lock.withLock { stored } }
        func set(_ result: Result<Void, MagicalRecordError>) { lock.withLock { stored = result } }
    }
}
}
