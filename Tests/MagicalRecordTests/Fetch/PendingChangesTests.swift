import Foundation
import Testing
@testable import MagicalRecord

/// Fetches include the unsaved changes of the context and of its parents (the nearest
/// context's version winning), never those of its children; `includesPendingChanges =
/// false` reads the store alone; key paths through relationships read unsaved related
/// objects.
@Suite struct PendingChangesTests {
    /// The company, saved to the store.
    private func savedCompany() throws -> (FetchStack, Company) {
        let stack = try FetchStack()
        let company = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        return (stack, company)
    }

    private func ids(_ objects: ManagedObject...) -> [ObjectID] {
        objects.map(\.objectID)
    }

    @Test func fetchesSeeInsertsUpdatesAndDeletesUnsavedInTheContext() throws {
        let (stack, company) = try savedCompany()
        let newcomer = try stack.main.insert("Employee", ["employeeID": .integer(7), "lastName": .string("Noether"), "age": .integer(50)])
        try company.ada.setValue(.integer(60), forKey: "age")
        try stack.main.delete(company.grace)

        let olderThan40 = try fetchRequest("Employee", "age > 40", sortedBy: "age")
        #expect(try stack.main.plan(for: olderThan40) == "index age (1 range)")
        #expect(try stack.main.fetchedIDs(olderThan40) == ids(company.alan, company.zoe, newcomer, company.ada))
        #expect(try stack.main.count(for: olderThan40) == 4)
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "age == 36")) == [])
        #expect(try stack.main.count(for: fetchRequest("Employee")) == 6)
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", "lastName == 'Noether'")) == ids(newcomer))
    }

    @Test func aLimitedSortedFetchWithUnsavedChangesSortsEverything() throws {
        let (stack, company) = try savedCompany()
        let youngest = try fetchRequest("Employee", sortedBy: "age", limit: 3)
        #expect(try stack.main.plan(for: youngest) == "scan, in index order of age")
        #expect(try stack.main.fetchedIDs(youngest) == ids(company.nobody, company.yan, company.ada))

        try company.grace.setValue(.integer(20), forKey: "age")
        let kid = try stack.main.insert("Employee", ["employeeID": .integer(7), "age": .integer(12)])
        try stack.main.delete(company.nobody)
        #expect(try stack.main.plan(for: youngest) == "scan")
        #expect(try stack.main.fetchedIDs(youngest) == ids(kid, company.grace, company.yan))
    }

    @Test func aChangedIndexedValueIsFoundUnderItsNewValueOnly() throws {
        let (stack, company) = try savedCompany()
        try company.ada.setValue(.string("Byron"), forKey: "lastName")
        #expect(try stack.main.plan(for: fetchRequest("Employee", "lastName == 'Lovelace'")) == "index lastName (1 range)")
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", "lastName == 'Lovelace'")) == [])
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", "lastName == 'Byron'")) == ids(company.ada))
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", "lastName < 'C'")) == ids(company.ada))
    }

    @Test func anObjectInsertedAndDeletedUnsavedIsNotFetched() throws {
        let (stack, _) = try savedCompany()
        let ghost = try stack.main.insert("Employee", ["employeeID": .integer(7), "age": .integer(30)])
        try stack.main.delete(ghost)
        #expect(try stack.main.fetchedIDs(fetchRequest("Employee", "age == 30")) == [])
        #expect(try stack.main.count(for: fetchRequest("Employee")) == 6)
    }

    @Test func aContextSeesTheUnsavedChangesOfEveryParent() throws {
        let (stack, company) = try savedCompany()
        // In the root, unsaved: Ada is 60.
        try company.ada.setValue(.integer(60), forKey: "age")
        try stack.main.save()
        // In the main context, unsaved: Grace is gone, Noether arrives.
        try stack.main.delete(company.grace)
        let noether = try stack.main.insert("Employee", ["employeeID": .integer(7), "age": .integer(53)])
        // In a child, unsaved: Yan is 70.
        let child = stack.child()
        try child.existingObject(with: company.yan.objectID).setValue(.integer(70), forKey: "age")

        let olderThan40 = try fetchRequest("Employee", "age > 40", sortedBy: "age")
        #expect(try child.fetchObjectIDs(olderThan40) == ids(company.alan, company.zoe, noether, company.ada, company.yan))
        #expect(try stack.main.fetchObjectIDs(olderThan40) == ids(company.alan, company.zoe, noether, company.ada))
        #expect(try stack.root.fetchObjectIDs(olderThan40) == ids(company.alan, company.zoe, company.ada, company.grace))
        #expect(try child.count(for: olderThan40) == 5)
        #expect(try child.count(for: fetchRequest("Employee")) == 6)
        #expect(try stack.root.count(for: fetchRequest("Employee")) == 6)
    }

    @Test func aParentDoesNotSeeItsChildsUnsavedChanges() throws {
        let (stack, company) = try savedCompany()
        let child = stack.child()
        let intern = try child.insert("Employee", ["employeeID": .integer(7), "age": .integer(19)])
        try child.existingObject(with: company.zoe.objectID).setValue(.integer(19), forKey: "age")
        try child.delete(child.existingObject(with: company.yan.objectID))

        let teenagers = try fetchRequest("Employee", "age < 20", sortedBy: "employeeID")
        #expect(try child.fetchObjectIDs(teenagers) == ids(company.zoe, intern))
        #expect(try stack.main.fetchObjectIDs(teenagers) == [])
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "age == 28")) == ids(company.yan))
        #expect(try stack.main.count(for: fetchRequest("Employee")) == 6)
        #expect(try child.count(for: fetchRequest("Employee")) == 6)

        try child.save()
        #expect(try stack.main.fetchObjectIDs(teenagers) == ids(company.zoe, intern))
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "age == 28")) == [])
    }

    @Test func theNearestContextsVersionWins() throws {
        let (stack, company) = try savedCompany()
        try company.ada.setValue(.integer(60), forKey: "age")
        try company.grace.setValue(.integer(90), forKey: "age")
        let child = stack.child()
        try child.existingObject(with: company.ada.objectID).setValue(.integer(20), forKey: "age")
        try child.delete(child.existingObject(with: company.grace.objectID))

        #expect(try child.fetchObjectIDs(fetchRequest("Employee", "age > 50")) == [])
        #expect(try child.fetchObjectIDs(fetchRequest("Employee", "age < 30", sortedBy: "age")) == ids(company.ada, company.yan))
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "age > 50", sortedBy: "age")) == ids(company.ada, company.grace))
    }

    @Test func withoutPendingChangesAFetchReadsTheStoreAlone() throws {
        let (stack, company) = try savedCompany()
        let newcomer = try stack.main.insert("Employee", ["employeeID": .integer(7), "age": .integer(50)])
        try company.ada.setValue(.integer(60), forKey: "age")
        try stack.main.delete(company.grace)
        let child = stack.child()
        try child.existingObject(with: company.alan.objectID).setValue(.integer(1), forKey: "age")

        var olderThan40 = try fetchRequest("Employee", "age > 40", sortedBy: "age:NO", limit: 10)
        olderThan40.includesPendingChanges = false
        for context in [stack.main, child] {
            #expect(try context.fetchObjectIDs(olderThan40) == ids(company.grace, company.alan, company.zoe))
            #expect(try context.count(for: olderThan40) == 3)
            #expect(try context.plan(for: olderThan40) == "index age (1 range)")
        }
        var everyone = try fetchRequest("Employee", sortedBy: "age", limit: 2)
        everyone.includesPendingChanges = false
        #expect(try child.plan(for: everyone) == "scan, in index order of age")
        #expect(try child.fetchObjectIDs(everyone) == ids(company.nobody, company.yan))
        olderThan40.includesPendingChanges = true
        olderThan40.sortKeys = [SortKey("age")]
        #expect(try child.fetchObjectIDs(olderThan40) == ids(company.zoe, newcomer, company.ada))
    }

    @Test func toOneKeyPathsReadUnsavedRelatedObjects() throws {
        let (stack, company) = try savedCompany()
        try company.sales.setValue(.string("Marketing"), forKey: "name")
        let lab = try stack.main.insert("Department", ["departmentID": .integer(4), "name": .string("Lab")])
        try company.ada.setRelatedObject(lab, forKey: "department")

        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "department.name == 'Sales'")) == [])
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "department.name == 'Marketing'")) == ids(company.yan, company.zoe))
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "department.name == 'Lab'")) == ids(company.ada))
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "department == %@", lab)) == ids(company.ada))
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "department == nil")) == ids(company.nobody))

        let child = stack.child()
        try child.existingObject(with: company.research.objectID).setValue(.string("Ivory Tower"), forKey: "name")
        #expect(try child.fetchObjectIDs(fetchRequest("Employee", "department.name BEGINSWITH 'I'")) == ids(company.grace, company.alan))
        #expect(try child.fetchObjectIDs(fetchRequest("Employee", "department.name != nil", sortedBy: "department.name:NO,employeeID"))
            == ids(company.yan, company.zoe, company.ada, company.grace, company.alan))
        #expect(try stack.main.fetchObjectIDs(fetchRequest("Employee", "department.name BEGINSWITH 'I'")) == [])

        var names = try fetchRequest("Employee", "department != nil", sortedBy: "employeeID")
        names.resultType = .dictionaries
        names.propertiesToFetch = ["department.name"]
        #expect(try child.fetchDictionaries(names).map { $0["department.name"] }
            == ["Lab", "Ivory Tower", "Ivory Tower", "Marketing", "Marketing"].map { AttributeValue.string($0) })
    }

    @Test func toManyKeyPathsReadUnsavedTargets() throws {
        let (stack, company) = try savedCompany()
        try company.yan.setRelatedObject(company.research, forKey: "department")
        let anyZhou = try fetchRequest("Department", "ANY employees.lastName == 'Zhou'")
        #expect(try stack.main.fetchObjectIDs(anyZhou) == ids(company.research))
        #expect(try stack.root.fetchObjectIDs(anyZhou) == ids(company.sales))
        let child = stack.child()
        #expect(try child.fetchObjectIDs(anyZhou) == ids(company.research))
        #expect(try child.fetchObjectIDs(fetchRequest("Department", "employees.@count == 4")) == ids(company.research))
    }

    /// A child that changed Sales before the parent moved Yan out of it has not loaded
    /// Sales's employees: it sees the parent's targets.
    @Test func aNearerVersionTakesToManyTargetsItHasNotLoadedFromFartherOnes() throws {
        let (stack, company) = try savedCompany()
        let child = stack.child()
        try child.existingObject(with: company.sales.objectID).setValue(.string("Marketing"), forKey: "name")
        try company.yan.setRelatedObject(company.research, forKey: "department")
        let anyZhou = try fetchRequest("Department", "ANY employees.lastName == 'Zhou'")
        #expect(try child.fetchObjectIDs(anyZhou) == ids(company.research))
        #expect(try child.fetchObjectIDs(fetchRequest("Department", "name == 'Marketing' AND employees.@count == 1")) == ids(company.sales))
    }

    @Test func unsavedObjectsOfSubentitiesAreFetchedWithTheirParentEntity() throws {
        let stack = try FetchStack()
        let rex = try stack.main.insert("Dog", ["name": .string("Rex"), "legs": .integer(4)])
        try stack.main.saveToPersistentStore()
        let tom = try stack.main.insert("Cat", ["name": .string("Tom"), "legs": .integer(4)])
        let fourLegs = try fetchRequest("Animal", "legs == 4")
        #expect(try stack.main.plan(for: fourLegs) == "index legs (1 range)")
        #expect(try stack.main.fetchObjectIDs(fourLegs) == ids(rex, tom))
        #expect(try stack.main.count(for: fetchRequest("Animal")) == 2)
        #expect(try stack.root.count(for: fetchRequest("Animal")) == 1)
    }
}
