import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Contexts over one store: inserting, relationships with their inverses, saving through
/// parents to the store, delete rules and validation.
@Suite struct ContextSavingTests {
    static let model = try! ObjectModel(entities: [
        EntityDescription("Department", relatedBy: "departmentID") {
            AttributeDescription("departmentID", .integer32, optional: false)
            AttributeDescription("name", .string)
            RelationshipDescription("people", to: "Person", inverse: "department", toMany: true, deleteRule: .deny)
        },
        EntityDescription("Person", relatedBy: "personID") {
            AttributeDescription("personID", .integer64, optional: false)
            AttributeDescription("lastName", .string, indexed: true)
            AttributeDescription("age", .integer16, default: .integer(0))
            RelationshipDescription("department", to: "Department", inverse: "people")
        },
    ])

    struct Stack {
        let store: ObjectStore
        let root: ManagedObjectContext
        let main: ManagedObjectContext

        init(path: String = "/test.store", fileSystem: MemoryFileSystem = MemoryFileSystem(tracksDurability: false)) throws {
            store = try ObjectStore(path: path, model: ContextSavingTests.model, options: StoreOptions(durability: .none, fileSystem: fileSystem))
            (root, main) = ObjectStack(store: store).makeContexts()
        }
    }

    private func person(_ id: Int64, _ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let person = try context.insertObject(entityName: "Person")
        try person.setValue(.integer(id), forKey: "personID")
        try person.setValue(.string(name), forKey: "lastName")
        return person
    }

    @Test func aChildSaveReachesTheStoreOnlyWhenTheParentsSave() throws {
        let stack = try Stack()
        let child = ManagedObjectContext.context(withParent: stack.main)
        let yan = try person(1, "Yan", in: child)
        try child.save()
        #expect(try stack.store.snapshot().state(of: yan.objectID) == nil)
        #expect(try stack.main.existingObject(with: yan.objectID)["lastName"] == .string("Yan"))
        try stack.main.save()
        #expect(try stack.store.snapshot().state(of: yan.objectID) == nil)
        try stack.root.save()
        let stored = try #require(try stack.store.snapshot().state(of: yan.objectID))
        #expect(stored.attributes[1] == .string("Yan"))
        #expect(try stack.store.snapshot().objects(of: Self.model.entity(named: "Person")!, where: "lastName", equals: .string("Yan")) == [yan.objectID])
    }

    @Test func relationshipsKeepTheirInverse() throws {
        let stack = try Stack()
        let context = stack.main
        let sales = try context.insertObject(entityName: "Department")
        try sales.setValue(.integer(7), forKey: "departmentID")
        let yan = try person(1, "Yan", in: context)
        let ada = try person(2, "Ada", in: context)
        try yan.setRelatedObject(sales, forKey: "department")
        try sales.addRelatedObject(ada, forKey: "people")
        #expect(try sales.relatedObjects(forKey: "people").map(\.objectID) == [yan.objectID, ada.objectID])
        #expect(try ada.relatedObject(forKey: "department")?.objectID == sales.objectID)
        try yan.setRelatedObject(nil, forKey: "department")
        #expect(try sales.relatedObjects(forKey: "people").map(\.objectID) == [ada.objectID])
        try context.saveToPersistentStore()

        let fresh = ManagedObjectContext.context(withParent: stack.root)
        let storedSales = try fresh.existingObject(with: sales.objectID)
        #expect(try storedSales.relatedObjects(forKey: "people").map(\.objectID) == [ada.objectID])
        #expect(try fresh.existingObject(with: ada.objectID).relatedObject(forKey: "department")?.objectID == sales.objectID)
    }

    @Test func aDenyRuleRefusesTheSaveAndLeavesTheStoreAlone() throws {
        let stack = try Stack()
        let sales = try stack.main.insertObject(entityName: "Department")
        try sales.setValue(.integer(7), forKey: "departmentID")
        let yan = try person(1, "Yan", in: stack.main)
        try yan.setRelatedObject(sales, forKey: "department")
        try stack.main.saveToPersistentStore()

        try stack.main.delete(sales)
        #expect(throws: MagicalRecordError.self) { try stack.main.save() }
        #expect(try stack.store.snapshot().state(of: sales.objectID) != nil)

        try stack.main.delete(yan)
        try stack.main.saveToPersistentStore()
        #expect(try stack.store.snapshot().state(of: sales.objectID) == nil)
        #expect(try stack.store.snapshot().state(of: yan.objectID) == nil)
    }

    @Test func missingRequiredAttributesFailValidation() throws {
        let stack = try Stack()
        _ = try stack.main.insertObject(entityName: "Person")
        let outcome = Result { () throws(MagicalRecordError) in try stack.main.save() }
        guard case .failure(.validation(let failures)) = outcome else {
            Issue.record("the save should fail validation, got \(outcome)")
            return
        }
        #expect(failures.map(\.reason) == [.missingRequiredAttribute("personID")])
        #expect(stack.main.hasChanges)
    }

    @Test func aDuplicateKeyIsRefusedAtTheRoot() throws {
        let stack = try Stack()
        _ = try person(1, "Yan", in: stack.main)
        try stack.main.saveToPersistentStore()
        _ = try person(1, "Ada", in: stack.main)
        try stack.main.save()
        #expect(throws: MagicalRecordError.self) { try stack.root.save() }
        #expect(try stack.store.snapshot().count(of: Self.model.entity(named: "Person")!) == 1)
    }

    @Test func setValueChecksTypesAndRanges() throws {
        let stack = try Stack()
        let yan = try person(1, "Yan", in: stack.main)
        #expect(throws: MagicalRecordError.self) { try yan.setValue(.integer(70_000), forKey: "age") }
        #expect(throws: MagicalRecordError.self) { try yan.setValue(.string("old"), forKey: "age") }
        #expect(throws: MagicalRecordError.self) { try yan.setValue(.integer(1), forKey: "shoeSize") }
        try yan.setValue(.double(42), forKey: "age")
        #expect(yan["age"] == .integer(42))
    }

    @Test func theStoreKeepsObjectsAcrossReopening() throws {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        var id: ObjectID?
        do {
            let stack = try Stack(fileSystem: fileSystem)
            id = try person(1, "Yan", in: stack.main).objectID
            try stack.main.saveToPersistentStore()
            try stack.store.close()
        }
        let reopened = try Stack(fileSystem: fileSystem)
        #expect(try reopened.main.existingObject(with: #require(id))["lastName"] == .string("Yan"))
        let next = try reopened.main.insertObject(entityName: "Person")
        #expect(next.objectID.number > id!.number)
    }

    /// O8: an optional attribute with a default, set to nil, is stored nil (as Core Data
    /// keeps NULL), not read back as its default; fetches, filters, counts and aggregates
    /// see the nil too.
    @Test func aNilSetOverADefaultIsStoredAsNil() throws {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        var id: ObjectID?
        do {
            let stack = try Stack(fileSystem: fileSystem)
            let yan = try person(1, "Yan", in: stack.main)
            try yan.setValue(.null, forKey: "age")
            _ = try person(2, "Bo", in: stack.main)
            id = yan.objectID
            try stack.main.saveToPersistentStore()
            try stack.store.close()
        }
        let reopened = try Stack(fileSystem: fileSystem)
        #expect(try reopened.main.existingObject(with: #require(id))["age"] == .null)
        #expect(try reopened.store.snapshot().state(of: #require(id))?.attributes[2] == .null)
        func count(_ format: String) throws -> Int {
            try reopened.main.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: format)))
        }
        #expect(try count("age == nil") == 1)
        #expect(try count("age == 0") == 1)
        #expect(try reopened.main.aggregate(.count, onAttribute: "age", entityName: "Person") == .integer(1))
        let sorted = try reopened.main.fetch(FetchRequest(entityName: "Person", sortKeys: SortKey.parse("age")))
        #expect(sorted.map { $0["age"] } == [.null, .integer(0)])
    }

    @Test func objectIDsRoundTripThroughStrings() throws {
        let id = ObjectID(entityName: "Person", number: 42)
        #expect(ObjectID(uriRepresentation: id.uriRepresentation) == id)
        #expect(ObjectID(uriRepresentation: "x-magicalrecord:///Person/42") == nil)
        #expect(ObjectID(uriRepresentation: "nonsense") == nil)
    }
}
