import Foundation
import Testing
@testable import MagicalRecord

/// MagicalRecord's class-level API on ManagedObject subclasses: createEntity, the
/// findAll/findFirst/findBy families, pages, counts, deletes, request builders and
/// aggregateOperation, typed as the subclass. Every call names its context (`in:`): the
/// default context is the global stack's business (Setup tests).
@Suite struct ActiveRecordTests {
    final class Employee: ManagedObject {
        var lastName: String? { self["lastName"].stringValue }
    }

    final class Department: ManagedObject {}

    /// Stands for Dog but is never registered: contexts make plain ManagedObjects for it.
    final class Hound: ManagedObject {
        override class var entityName: String { "Dog" }
    }

    /// The company, saved, its objects made as the classes above.
    private func savedCompany() throws -> (FetchStack, Company) {
        ObjectClassRegistry.register(Employee.self)
        ObjectClassRegistry.register(Department.self)
        let stack = try FetchStack()
        let company = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        return (stack, company)
    }

    private func lastNames(_ employees: [Employee]) -> [String?] {
        employees.map(\.lastName)
    }

    // MARK: Creating and deleting

    @Test func createEntityMakesAnObjectOfTheClass() throws {
        let (stack, _) = try savedCompany()
        let newcomer = try Employee.createEntity(in: stack.main)
        #expect(newcomer.entity.name == "Employee")
        #expect(newcomer.isInserted)
        try newcomer.setValue(.integer(7), forKey: "employeeID")
        #expect(try Employee.countOfEntities(in: stack.main) == 7)
        #expect(try Employee.countOfEntities(in: stack.root) == 6)
        #expect(try Employee.findFirst(byAttribute: "employeeID", withValue: 7, in: stack.main) === newcomer)
        #expect(Employee.entityName == "Employee")
        #expect(Hound.entityName == "Dog")
    }

    @Test func truncateAllAndDeleteAllDeleteInTheContextUntilSaved() throws {
        let (stack, _) = try savedCompany()
        try Employee.deleteAll(matching: try ObjectPredicate(format: "age > %d", 40), in: stack.main)
        #expect(lastNames(try Employee.findAll(sortedBy: "employeeID", in: stack.main)) == ["Lovelace", "Zhou", nil])
        #expect(try Employee.countOfEntities(in: stack.root) == 6)
        try stack.main.saveToPersistentStore()
        #expect(try Employee.countOfEntities(in: stack.root) == 3)

        try Employee.truncateAll(in: stack.main)
        #expect(try Employee.hasAtLeastOneEntity(in: stack.main) == false)
        #expect(try Employee.hasAtLeastOneEntity(in: stack.root))
        #expect(try Department.countOfEntities(in: stack.main) == 3)
        try stack.main.saveToPersistentStore()
        #expect(try Employee.countOfEntities(in: stack.root) == 0)
    }

    @Test func deleteEntityDeletesInTheObjectsContext() throws {
        let (stack, company) = try savedCompany()
        try company.ada.deleteEntity()
        #expect(company.ada.isDeleted)
        #expect(try Employee.findBy(attribute: "lastName", value: "Lovelace", in: stack.main).isEmpty)
        let child = stack.child()
        try company.grace.deleteEntity(in: child)
        #expect(try Employee.countOfEntities(in: child) == 4)
        #expect(try Employee.countOfEntities(in: stack.main) == 5)
    }

    // MARK: Finding many

    @Test func findAllReturnsObjectsOfTheClass() throws {
        let (stack, company) = try savedCompany()
        let everyone = try Employee.findAll(in: stack.main)
        #expect(everyone.map(\.objectID) == company.employees.map(\.objectID))
        #expect(lastNames(try Employee.findAll(with: try ObjectPredicate(format: "department.name == %@", "Sales"), in: stack.main)) == ["Zhou", "Ångström"])
        #expect(try Department.findAll(in: stack.main).count == 3)
    }

    @Test func findAllSortsByAMagicalRecordSortString() throws {
        let (stack, _) = try savedCompany()
        #expect(lastNames(try Employee.findAll(sortedBy: "age:NO,firstName", in: stack.main)) == ["Hopper", "Turing", "Ångström", "Lovelace", "Zhou", nil])
        #expect(lastNames(try Employee.findAll(sortedBy: "department.name:YES,age", ascending: false, in: stack.main))
            == [nil, "Hopper", "Turing", "Lovelace", "Ångström", "Zhou"])
        let older = try ObjectPredicate(format: "age >= 41")
        #expect(lastNames(try Employee.findAll(with: older, sortedBy: "lastName", ascending: false, in: stack.main)) == ["Ångström", "Turing", "Hopper"])
    }

    @Test func findAllPagesThroughASortedFetch() throws {
        let (stack, _) = try savedCompany()
        let pages = try (0..<4).map { page in
            lastNames(try Employee.findAll(sortedBy: "employeeID", page: page, pageSize: 2, in: stack.main))
        }
        #expect(pages == [["Lovelace", "Hopper"], ["Turing", "Zhou"], ["Ångström", nil], []])
        let research = try ObjectPredicate(format: "department.name == 'Research'")
        #expect(lastNames(try Employee.findAll(with: research, sortedBy: "age", ascending: false, page: 1, pageSize: 2, in: stack.main)) == ["Lovelace"])
    }

    @Test func findByMatchesOneAttribute() throws {
        let (stack, company) = try savedCompany()
        #expect(lastNames(try Employee.findBy(attribute: "age", value: 41, in: stack.main)) == ["Turing", "Ångström"])
        #expect(lastNames(try Employee.findBy(attribute: "age", value: 41, orderedBy: "firstName", ascending: false, in: stack.main)) == ["Ångström", "Turing"])
        #expect(try Employee.findBy(attribute: "age", value: Int?.none, in: stack.main).map(\.objectID) == [company.nobody.objectID])
        #expect(lastNames(try Employee.findBy(attribute: "department", value: company.sales, in: stack.main)) == ["Zhou", "Ångström"])
        #expect(try Employee.findBy(attribute: "lastName", value: "Nobody", in: stack.main).isEmpty)
    }

    // MARK: Finding one

    @Test func findFirstReturnsOneObjectOrNil() throws {
        let (stack, company) = try savedCompany()
        #expect(try Employee.findFirst(in: stack.main) === company.ada)
        #expect(try Employee.findFirst(with: try ObjectPredicate(format: "age > 40"), in: stack.main) === company.grace)
        #expect(try Employee.findFirst(with: try ObjectPredicate(format: "age > 40"), sortedBy: "firstName", in: stack.main) === company.alan)
        #expect(try Employee.findFirst(orderedByAttribute: "age", ascending: false, in: stack.main) === company.grace)
        #expect(try Employee.findFirst(orderedByAttribute: "age", in: stack.main) === company.nobody)
        #expect(try Employee.findFirst(byAttribute: "lastName", withValue: "Turing", in: stack.main) === company.alan)
        #expect(try Employee.findFirst(byAttribute: "lastName", withValue: "Nobody", in: stack.main) == nil)
        #expect(try Employee.findFirst(with: try ObjectPredicate(format: "FALSEPREDICATE"), in: stack.main) == nil)
    }

    @Test func findFirstByAnIndexedAttributeReadsItsIndex() throws {
        let (stack, _) = try savedCompany()
        #expect(try stack.main.plan(for: Employee.requestFirst(byAttribute: "employeeID", withValue: 3)) == "index employeeID (1 range)")
        #expect(try stack.main.plan(for: Employee.requestFirst(byAttribute: "lastName", withValue: "Turing")) == "index lastName (1 range)")
        #expect(try stack.main.plan(for: Employee.requestFirst(byAttribute: "firstName", withValue: "Alan")) == "scan")
    }

    // MARK: Counting

    @Test func countsAndNumbersOfEntities() throws {
        let (stack, _) = try savedCompany()
        let older = try ObjectPredicate(format: "age > 40")
        #expect(try Employee.countOfEntities(in: stack.main) == 6)
        #expect(try Employee.countOfEntities(with: older, in: stack.main) == 3)
        #expect(try Employee.numberOfEntities(with: older, in: stack.main) == 3)
        #expect(try Department.numberOfEntities(in: stack.main) == 3)
        #expect(try Employee.hasAtLeastOneEntity(in: stack.main))
        #expect(try Hound.hasAtLeastOneEntity(in: stack.main) == false)
    }

    // MARK: Requests

    @Test func requestsCarryTheEntityPredicateSortAndLimit() throws {
        let (stack, company) = try savedCompany()
        let sorted = try Employee.requestAll(sortedBy: "lastName:NO,age", ascending: false)
        #expect(sorted.entityName == "Employee")
        #expect(sorted.sortKeys == [SortKey("lastName", ascending: false), SortKey("age", ascending: false)])
        #expect(sorted.fetchLimit == 0)
        #expect(Employee.requestFirst().fetchLimit == 1)
        let byName = try Employee.requestAll(where: "lastName", isEqualTo: "Zhou")
        #expect(try Employee.executeFetchRequest(byName, in: stack.main).map(\.objectID) == [company.yan.objectID])

        var everyone = Employee.requestAll()
        everyone.fetchLimit = 4
        everyone.sortKeys = [SortKey("age", ascending: false)]
        #expect(try Employee.executeFetchRequestAndReturnFirstObject(everyone, in: stack.main) === company.grace)
        #expect(try Employee.executeFetchRequest(everyone, in: stack.main).count == 4)
    }

    @Test func findersBuildTheSameEqualityTheFormatParserDoes() throws {
        let (_, company) = try savedCompany()
        let values: [(any PredicateArgumentConvertible)?] = [
            42, Int16(-3), "Zhou", "", nil, 2.5, Decimal(string: "1.25")!, true, Date(timeIntervalSince1970: 86_400),
            UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, company.yan, company.yan.objectID,
        ]
        for path in ["lastName", "department.name"] {
            for value in values {
                #expect(try Employee.equality(path, value) == ObjectPredicate(format: "%K == %@", path, value), "\(path) == \(String(describing: value))")
            }
        }
        // A list, or an empty key, goes through the parser (and gets its error).
        #expect(try Employee.equality("lastName", [1, 2]) == ObjectPredicate(format: "%K == %@", "lastName", [1, 2]))
        #expect(throws: MagicalRecordError.self) { try Employee.equality("department..name", 1) }
    }

    // MARK: Aggregates

    @Test func aggregateOperationTakesMagicalRecordsOperationNames() throws {
        let (stack, _) = try savedCompany()
        #expect(try Employee.aggregateOperation("sum:", onAttribute: "salary", in: stack.main) == .integer(435_000))
        #expect(try Employee.aggregateOperation("max:", onAttribute: "age", with: try ObjectPredicate(format: "age < 40"), in: stack.main) == .integer(36))
        #expect(try Employee.aggregateOperation("count:", onAttribute: "height", in: stack.main) == .integer(4))
        #expect(try Employee.aggregateOperation("sum:", onAttribute: "salary", groupBy: "department.name", in: stack.main).map { $0["result"] }
            == [.null, .integer(305_000), .integer(130_000)])
        #expect(try Department.aggregateOperation("average:", onAttribute: "budget", in: stack.main) == .decimal(Decimal(string: "1750.25")!))
    }

    // MARK: Errors

    @Test func badRequestsAreTypedErrors() throws {
        let (stack, _) = try savedCompany()
        let cases: [(String, MagicalRecordError?, (MagicalRecordError) -> Bool)] = [
            ("a bad sort string", fetchFailure { () throws(MagicalRecordError) in try Employee.findAll(sortedBy: "lastName:maybe", in: stack.main) }, {
                if case .invalidFetch = $0 { return true } else { return false }
            }),
            ("an unknown sort key", fetchFailure { () throws(MagicalRecordError) in try Employee.findAll(sortedBy: "shoeSize", in: stack.main) }, {
                if case .invalidFetch = $0 { return true } else { return false }
            }),
            ("an unknown attribute", fetchFailure { () throws(MagicalRecordError) in try Employee.findBy(attribute: "shoeSize", value: 3, in: stack.main) }, {
                if case .predicate(.unknownKey, entity: "Employee") = $0 { return true } else { return false }
            }),
            ("a value of the wrong type", fetchFailure { () throws(MagicalRecordError) in try Employee.findFirst(byAttribute: "age", withValue: "old", in: stack.main) }, {
                if case .predicate(.typeMismatch, entity: "Employee") = $0 { return true } else { return false }
            }),
            ("an unknown operation", fetchFailure { () throws(MagicalRecordError) in try Employee.aggregateOperation("median:", onAttribute: "age", in: stack.main) }, {
                if case .invalidFetch = $0 { return true } else { return false }
            }),
            ("an unregistered class", fetchFailure { () throws(MagicalRecordError) in try Hound.createEntity(in: stack.main) }, {
                if case .invalidClass(_, _, let problems) = $0 { return problems.joined().contains("register") } else { return false }
            }),
        ]
        for (name, error, isExpected) in cases {
            guard let error else {
                Issue.record("\(name) should fail")
                continue
            }
            #expect(isExpected(error), "\(name): \(error)")
        }
    }
}
