import Foundation
import Testing
@testable import MagicalRecord

/// Objects joining an unordered to-many through its inverse (`employee.department =
/// sales`) do not read the department's employees: the department records only the
/// addition, and every reader (the object, fetches, parents, the store) sees the whole set.
@Suite struct ToManyJoinTests {
    private func employees(_ department: ManagedObject) throws -> Set<AttributeValue> {
        Set(try department.relatedObjects(forKey: "employees").map { $0["employeeID"] })
    }

    private func saved() throws -> (FetchStack, ManagedObjectContext, ManagedObject) {
        let stack = try FetchStack()
        _ = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        let child = stack.child()
        let sales = try #require(try child.fetch(fetchRequest("Department", "name == 'Sales'")).first)
        return (stack, child, sales)
    }

    private func hire(_ id: Int64, into department: ManagedObject, in context: ManagedObjectContext) throws -> ManagedObject {
        let employee = try context.insert("Employee", ["employeeID": .integer(id), "lastName": .string("New \(id)")])
        try employee.setRelatedObject(department, forKey: "department")
        return employee
    }

    @Test func joiningRecordsOnlyTheAdditionAndReadsShowTheWholeSet() throws {
        let (stack, child, sales) = try saved()
        _ = try hire(7, into: sales, in: child)
        _ = try hire(8, into: sales, in: child)
        let position = try #require(sales.entity.slot(ofRelationship: "employees"))
        #expect(sales.state.relationships[position].addedIDs.count == 2, "nothing was read")

        let byFetch = try child.fetch(fetchRequest("Department", "employees.@count == 4"))
        #expect(byFetch.map { $0["name"] } == [.string("Sales")], "fetches see the stored two and the added two")
        #expect(try employees(sales) == [.integer(4), .integer(5), .integer(7), .integer(8)])

        try child.saveToPersistentStore()
        let fresh = stack.child()
        let stored = try #require(try fresh.fetch(fetchRequest("Department", "name == 'Sales'")).first)
        #expect(try employees(stored) == [.integer(4), .integer(5), .integer(7), .integer(8)])
    }

    @Test func additionsSavedIntoAParentJoinWhatItHasLoadedOrAdded() throws {
        let (stack, child, sales) = try saved()
        let mainSales = try #require(try stack.main.fetch(fetchRequest("Department", "name == 'Sales'")).first)
        #expect(try employees(mainSales) == [.integer(4), .integer(5)], "the parent has loaded the set")
        _ = try hire(7, into: sales, in: child)
        try child.save()
        #expect(try employees(mainSales) == [.integer(4), .integer(5), .integer(7)])

        let second = stack.child()
        let secondSales = try #require(try second.fetch(fetchRequest("Department", "name == 'Sales'")).first)
        _ = try hire(9, into: secondSales, in: second)
        try second.save()
        try stack.main.saveToPersistentStore()
        #expect(try employees(mainSales) == [.integer(4), .integer(5), .integer(7), .integer(9)])
        let count = try stack.root.count(for: fetchRequest("Employee", "department.name == 'Sales'"))
        #expect(count == 4)
    }

    @Test func movingAnEmployeeBetweenDepartmentsKeepsBothSidesRight() throws {
        let (stack, child, _) = try saved()
        let research = try #require(try child.fetch(fetchRequest("Department", "name == 'Research'")).first)
        let yan = try #require(try child.fetch(fetchRequest("Employee", "employeeID == 4")).first)
        try yan.setRelatedObject(research, forKey: "department")
        try child.saveToPersistentStore()
        let fresh = stack.child()
        let storedSales = try #require(try fresh.fetch(fetchRequest("Department", "name == 'Sales'")).first)
        let storedResearch = try #require(try fresh.fetch(fetchRequest("Department", "name == 'Research'")).first)
        #expect(try employees(storedSales) == [.integer(5)])
        #expect(try employees(storedResearch) == [.integer(1), .integer(2), .integer(3), .integer(4)])
    }

    @Test func aFailedStepUndoesTheAddition() throws {
        let (_, child, sales) = try saved()
        let undone = Result { () throws(MagicalRecordError) in
            try child.withSavepoint { () throws(MagicalRecordError) in
                let employee = try child.insertObject(entityName: "Employee")
                try employee.setValue(.integer(70), forKey: "employeeID")
                try employee.setRelatedObject(sales, forKey: "department")
                throw .invalidFetch("give up")
            }
        }
        #expect((try? undone.get()) == nil)
        #expect(try employees(sales) == [.integer(4), .integer(5)])
    }
}

@Suite struct TargetAdditionsTests {
    @Test func keepsTheOrderOfFirstAdditionAndEachTargetOnce() {
        let ids = (1...5).map { ObjectID(entityName: "Employee", number: $0) }
        var additions = TargetAdditions([ids[2], ids[0]])
        additions.append(ids[2])
        additions.append(ids[4])
        additions.append(ids[0])
        #expect(additions.ids == [ids[2], ids[0], ids[4]])
        #expect(additions.contains(ids[4]) && !additions.contains(ids[1]))
        #expect(additions == TargetAdditions([ids[2], ids[0], ids[4]]))
        #expect(additions != TargetAdditions([ids[0], ids[2], ids[4]]), "order counts")
    }

    /// Members appended as known new (the import's way, without a set of members) answer
    /// membership, and a checked change after them sees every one.
    @Test func membersAppendedAsNewAreFoundAndCheckedLater() {
        let ids = (1...6).map { ObjectID(entityName: "Employee", number: $0) }
        var additions = TargetAdditions()
        for id in ids.prefix(4) { additions.appendNew(id) }
        #expect(additions.contains(ids[3]) && !additions.contains(ids[4]))
        additions.append(ids[1])
        additions.remove(ids[0])
        additions.appendNew(ids[4])
        additions.append(ids[4])
        #expect(additions.ids == [ids[1], ids[2], ids[3], ids[4]])
        #expect(additions.contains(ids[4]) && !additions.contains(ids[0]))
        additions.remove(ids[4])
        #expect(!additions.contains(ids[4]) && additions == TargetAdditions([ids[1], ids[2], ids[3]]))
    }
}

extension RelationshipState {
    /// The ids an `added` state holds; empty for the others.
    var addedIDs: [ObjectID] {
        if case .added(let additions) = self { return additions.ids }
        return []
    }
}
