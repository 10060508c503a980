import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The auto-migrating setups of seeds 000 and 004 (Spec/MIGRATION.md, G1): they migrate on
/// open where the plain setups refuse, and never delete a store.
extension GlobalStackTests {
@Suite struct AutoMigratingSetupTests {
    typealias Notes = StackSetupTests

    static let renamedModel = try! ObjectModel(entities: [
        EntityDescription("Note", relatedBy: "noteID") {
            AttributeDescription("noteID", .integer64, optional: false)
            AttributeDescription("body", .string, renamingIdentifier: "text")
            AttributeDescription("stars", .integer16, default: .integer(3))
        },
    ], versionName: "Notes 2")

    @Test func theURLVariantMigratesAndKeepsEveryNote() throws {
        let directory = Notes.Directory()
        let url = directory.url.appendingPathComponent("notes.store")
        try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: Notes.model)
        try MagicalRecord.saveWithBlockAndWait { context in
            for number in Int64(1)...3 { try Notes.addNote(number, "note \(number)", in: context) }
        }
        MagicalRecord.cleanUp()

        try MagicalRecord.setupCoreDataStackWithAutoMigratingSqliteStoreAtURL(url, model: Self.renamedModel)
        defer { MagicalRecord.cleanUp() }
        let notes = try ManagedObjectContext.default.fetch(FetchRequest(entityName: "Note", sortKeys: [SortKey("noteID")]))
        #expect(try notes.map { try $0.attributeValue(forKey: "body") } == [.string("note 1"), .string("note 2"), .string("note 3")])
        #expect(try notes.map { try $0.attributeValue(forKey: "stars") } == [.integer(3), .integer(3), .integer(3)])
        try MagicalRecord.saveWithBlockAndWait { context in
            let note = try context.insertObject(entityName: "Note")
            try note.setValue(.integer(4), forKey: "noteID")
            try note.setValue(.integer(5), forKey: "stars")
        }
        #expect(try Notes.noteCount(in: ManagedObjectContext.default) == 4)
    }

    @Test func theNamedVariantsMigrateTheStoreInTheDataDirectory() throws {
        let directory = Notes.Directory()
        let previous = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        setenv("XDG_DATA_HOME", directory.url.path, 1)
        defer {
            if let previous { setenv("XDG_DATA_HOME", previous, 1) } else { unsetenv("XDG_DATA_HOME") }
        }
        try MagicalRecord.setupCoreDataStack(model: Notes.model)
        try MagicalRecord.saveWithBlockAndWait { try Notes.addNote(1, "default", in: $0) }
        try MagicalRecord.setupCoreDataStack(withStoreNamed: "Named.store", model: Notes.model)
        try MagicalRecord.saveWithBlockAndWait { try Notes.addNote(1, "named", in: $0) }
        MagicalRecord.cleanUp()

        try MagicalRecord.setupAutoMigratingCoreDataStack(model: Self.renamedModel)
        let first = try ManagedObjectContext.default.fetch(FetchRequest(entityName: "Note"))
        #expect(try first.map { try $0.attributeValue(forKey: "body") } == [.string("default")])
        try MagicalRecord.setupCoreDataStackWithAutoMigratingSqliteStoreNamed("Named.store", model: Self.renamedModel)
        defer { MagicalRecord.cleanUp() }
        let second = try ManagedObjectContext.default.fetch(FetchRequest(entityName: "Note"))
        #expect(try second.map { try $0.attributeValue(forKey: "body") } == [.string("named")])
    }

    @Test func aChangeTheHashLeavesOutIsNoMigrationButTheStoreRecordsTheNewModel() throws {
        let directory = Notes.Directory()
        let url = directory.url.appendingPathComponent("notes.store")
        try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: Notes.model)
        try MagicalRecord.saveWithBlockAndWait { try Notes.addNote(1, "kept", in: $0) }
        MagicalRecord.cleanUp()
        let withDefault = try ObjectModel(entities: [
            EntityDescription("Note", relatedBy: "noteID") {
                AttributeDescription("noteID", .integer64, optional: false)
                AttributeDescription("text", .string, default: .string("(empty)"))
            },
        ])
        #expect(withDefault.versionHash == Notes.model.versionHash)
        try MagicalRecord.setupCoreDataStack(withStoreAt: url, model: withDefault)
        MagicalRecord.cleanUp()
        let stack = try PersistentStack(storeAt: url)
        #expect(stack.model.declarations == withDefault.declarations)
        #expect(stack.modelHistory == nil)
        try stack.close()
    }
}
}
