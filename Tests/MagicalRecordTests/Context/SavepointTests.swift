import Foundation
import Testing
@testable import MagicalRecord

/// Savepoints: a failed step is undone, and only that step.
@Suite struct SavepointTests {
    struct Failure: Error {}

    private func person(_ id: Int64, _ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let person = try context.insertObject(entityName: "Person")
        try person.setValue(.integer(id), forKey: "personID")
        try person.setValue(.string(name), forKey: "lastName")
        return person
    }

    @Test func aFailedStepUndoesInsertsChangesDeletesAndInverses() throws {
        let stack = try ContextSavingTests.Stack()
        let context = stack.main
        let kept = try person(1, "Kept", in: context)
        let sales = try context.insertObject(entityName: "Department")
        try sales.setValue(.integer(7), forKey: "departmentID")
        try context.save()
        let stateBefore = kept.state
        let changedBefore = context.changedObjects.count

        let result = Result { () throws(MagicalRecordError) in
            try context.withSavepoint { () throws(MagicalRecordError) in
                try kept.setValue(.string("Changed"), forKey: "lastName")
                try kept.setRelatedObject(sales, forKey: "department")
                _ = try? person(2, "New", in: context)
                try context.delete(sales)
                throw MagicalRecordError.blockFailed("step failed")
            }
        }
        guard case .failure = result else {
            Issue.record("the step should fail")
            return
        }
        #expect(kept.state == stateBefore)
        #expect(kept["lastName"] == .string("Kept"))
        #expect(try kept.relatedObject(forKey: "department") == nil)
        #expect(try sales.relatedObjects(forKey: "people").isEmpty)
        #expect(!sales.isDeleted)
        #expect(context.changedObjects.count == changedBefore)
        #expect(!context.hasChanges)
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 1)
    }

    @Test func aFailedStepRestoresBothToManysAnObjectMovedBetween() throws {
        let stack = try ContextSavingTests.Stack()
        let context = stack.main
        let sales = try context.insertObject(entityName: "Department")
        try sales.setValue(.integer(1), forKey: "departmentID")
        let support = try context.insertObject(entityName: "Department")
        try support.setValue(.integer(2), forKey: "departmentID")
        var people: [ManagedObject] = []
        for id in Int64(1)...6 {
            let member = try person(id, "P\(id)", in: context)
            try member.setRelatedObject(id <= 4 ? sales : support, forKey: "department")
            people.append(member)
        }
        try context.save()
        let salesBefore = try sales.relatedObjects(forKey: "people").map(\.objectID)
        let supportBefore = try support.relatedObjects(forKey: "people").map(\.objectID)

        let result = Result { () throws(MagicalRecordError) in
            try context.withSavepoint { () throws(MagicalRecordError) in
                try people[1].setRelatedObject(support, forKey: "department")
                try people[2].setRelatedObject(nil, forKey: "department")
                #expect(try sales.relatedObjects(forKey: "people").map(\.objectID) == [people[0], people[3]].map(\.objectID))
                #expect(Set(try support.relatedObjects(forKey: "people").map(\.objectID)) == Set([people[4], people[5], people[1]].map(\.objectID)))
                throw MagicalRecordError.blockFailed("step failed")
            }
        }
        guard case .failure = result else {
            Issue.record("the step should fail")
            return
        }
        #expect(try sales.relatedObjects(forKey: "people").map(\.objectID) == salesBefore)
        #expect(try support.relatedObjects(forKey: "people").map(\.objectID) == supportBefore)
        #expect(try people[1].relatedObject(forKey: "department") === sales)
        #expect(!context.hasChanges)
    }

    @Test func anInnerFailureKeepsTheOuterStepsWork() throws {
        let stack = try ContextSavingTests.Stack()
        let context = stack.main
        try context.withSavepoint { () throws(MagicalRecordError) in
            _ = try? person(1, "Outer", in: context)
            let inner = Result { () throws(MagicalRecordError) in
                try context.withSavepoint { () throws(MagicalRecordError) in
                    _ = try? person(2, "Inner", in: context)
                    throw MagicalRecordError.blockFailed("inner")
                }
            }
            #expect(throws: MagicalRecordError.self) { try inner.get() }
        }
        let names = try context.fetch(FetchRequest(entityName: "Person")).map { $0["lastName"] }
        #expect(names == [.string("Outer")])
        try context.save()
        try stack.root.save()
        #expect(try stack.root.count(for: FetchRequest(entityName: "Person")) == 1)
    }
}
