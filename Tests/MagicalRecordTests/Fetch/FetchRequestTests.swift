import Foundation
import Testing
@testable import MagicalRecord

/// What a fetch request returns: limits, offsets and pages; objects, ids, dictionaries
/// (distinct or not) and counts; subentities; and the typed errors of requests that
/// cannot run.
@Suite struct FetchRequestTests {
    /// The company, saved to the store.
    private func savedCompany() throws -> (FetchStack, Company) {
        let stack = try FetchStack()
        let company = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        return (stack, company)
    }

    // MARK: Limits, offsets, pages

    @Test func aLimitAndAnOffsetSliceTheSortedResults() throws {
        let (stack, company) = try savedCompany()
        let ids = company.employees.map(\.objectID)
        let cases: [(limit: Int, offset: Int, expected: ArraySlice<ObjectID>)] = [
            (0, 0, ids[...]), (2, 0, ids[0..<2]), (2, 1, ids[1..<3]), (0, 4, ids[4...]),
            (10, 4, ids[4...]), (1, 5, ids[5...]), (3, 6, []), (3, 60, []),
        ]
        for (limit, offset, expected) in cases {
            let request = try fetchRequest("Employee", sortedBy: "employeeID", limit: limit, offset: offset)
            #expect(try stack.main.fetchedIDs(request) == Array(expected), "limit \(limit), offset \(offset)")
            #expect(try stack.main.count(for: request) == expected.count, "limit \(limit), offset \(offset)")
        }
    }

    @Test func aPageIsAnOffsetAndALimit() throws {
        let (stack, company) = try savedCompany()
        let ids = company.employees.map(\.objectID)
        var request = try fetchRequest("Employee", sortedBy: "employeeID")
        request.setPage(1, size: 4)
        #expect((request.fetchOffset, request.fetchLimit) == (4, 4))
        #expect(try stack.main.fetchedIDs(request) == Array(ids[4...]))
        request.setPage(2, size: 2)
        #expect(try stack.main.fetchedIDs(request) == Array(ids[4..<6]))
        request.setPage(3, size: 2)
        #expect(try stack.main.fetchedIDs(request) == [])
        request.setPage(-1, size: 2)
        #expect((request.fetchOffset, request.fetchLimit) == (0, 2))
        request.setPage(3, size: -2)
        #expect((request.fetchOffset, request.fetchLimit) == (0, 0))
        #expect(try stack.main.fetchedIDs(request) == ids)
    }

    /// `fetchLimit = Int.max` is a common way to ask for everything; with an offset,
    /// offset + limit must not overflow, whether the fetch sorts everything (by firstName)
    /// or reads an index in order (by employeeID). Run in child processes: an overflow traps.
    @Test(arguments: ["firstName", "employeeID"])
    func aLimitOfIntMaxWithAnOffsetReturnsTheRest(sortString: String) async {
        await #expect(processExitsWith: .success) { [sortString] in
            let stack = try FetchStack()
            _ = try Company(in: stack.main)
            try stack.main.saveToPersistentStore()
            let unlimited = try fetchRequest("Employee", sortedBy: sortString, offset: 4)
            var limited = unlimited
            limited.fetchLimit = .max
            #expect(try stack.main.fetchedIDs(limited) == stack.main.fetchedIDs(unlimited))
        }
    }

    @Test func aPageFarAwayDoesNotTrap() async {
        await #expect(processExitsWith: .success) {
            var request = FetchRequest(entityName: "Employee")
            request.setPage(.max, size: 2)
            #expect(request.fetchLimit == 2)
        }
    }

    @Test func aNegativeLimitOrOffsetIsATypedError() throws {
        let (stack, _) = try savedCompany()
        for (limit, offset) in [(-1, 0), (0, -1)] {
            let request = try fetchRequest("Employee", limit: limit, offset: offset)
            let error = fetchFailure { () throws(MagicalRecordError) in try stack.main.fetch(request) }
            guard case .invalidFetch? = error else {
                Issue.record("limit \(limit), offset \(offset) should be an invalid fetch, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func theBatchSizeChangesNothing() throws {
        let (stack, company) = try savedCompany()
        var request = try fetchRequest("Employee", "age > %d", 30, sortedBy: "age")
        request.fetchBatchSize = 1
        #expect(try stack.main.fetchedIDs(request) == [company.ada, company.alan, company.zoe, company.grace].map(\.objectID))
    }

    // MARK: Result types

    @Test func executeAnswersInTheRequestedResultType() throws {
        let (stack, company) = try savedCompany()
        var request = try fetchRequest("Employee", "age >= %d", 41, sortedBy: "lastName")
        let expected = [company.grace, company.alan, company.zoe]

        guard case .managedObjects(let objects) = try stack.main.execute(request) else { Issue.record("objects expected"); return }
        #expect(objects.map(\.objectID) == expected.map(\.objectID))

        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try stack.main.execute(request) else { Issue.record("object ids expected"); return }
        #expect(ids == expected.map(\.objectID))
        #expect(try stack.main.fetchObjectIDs(request) == ids)

        request.resultType = .dictionaries
        request.propertiesToFetch = ["lastName"]
        guard case .dictionaries(let rows) = try stack.main.execute(request) else { Issue.record("dictionaries expected"); return }
        #expect(rows == ["Hopper", "Turing", "Ångström"].map { ["lastName": .string($0)] })

        request.resultType = .count
        guard case .count(let count) = try stack.main.execute(request) else { Issue.record("a count expected"); return }
        #expect(count == 3)
    }

    @Test func fetchedObjectsAreTheContextsOwn() throws {
        let (stack, company) = try savedCompany()
        let request = try fetchRequest("Employee", "age > %d", 40, sortedBy: "employeeID")
        let first = try stack.main.fetch(request)
        #expect(first.map { ObjectIdentifier($0) } == [company.grace, company.alan, company.zoe].map { ObjectIdentifier($0) })
        let fresh = stack.child()
        let fetched = try fresh.fetch(request)
        #expect(fetched.allSatisfy { $0.managedObjectContext === fresh })
        #expect(try fresh.fetch(request).map { ObjectIdentifier($0) } == fetched.map { ObjectIdentifier($0) })
        #expect(fetched.map { $0["lastName"] } == [.string("Hopper"), .string("Turing"), .string("Ångström")])
    }

    // MARK: Dictionaries

    @Test func dictionariesHoldThePropertiesToFetchThroughToOneRelationships() throws {
        let (stack, _) = try savedCompany()
        var request = try fetchRequest("Employee", "employeeID IN %@", [3, 4, 6], sortedBy: "employeeID")
        request.resultType = .dictionaries
        request.propertiesToFetch = ["firstName", "department.name", "height"]
        #expect(try stack.main.fetchDictionaries(request) == [
            ["firstName": .string("Alan"), "department.name": .string("Research"), "height": .double(1.78)],
            ["firstName": .string("Yan"), "department.name": .string("Sales"), "height": .null],
            ["firstName": .null, "department.name": .null, "height": .null],
        ])
    }

    @Test func dictionariesWithoutPropertiesHoldEveryAttribute() throws {
        let (stack, _) = try savedCompany()
        var request = try fetchRequest("Department", sortedBy: "departmentID:NO", limit: 2)
        request.resultType = .dictionaries
        #expect(try stack.main.fetchDictionaries(request) == [
            ["departmentID": .integer(3), "name": .string("Empty"), "budget": .null],
            ["departmentID": .integer(2), "name": .string("Research"), "budget": .decimal(2500)],
        ])
    }

    @Test func distinctDictionariesDropRepeatsBeforeTheOffsetAndLimit() throws {
        let (stack, _) = try savedCompany()
        var request = try fetchRequest("Employee", sortedBy: "age")
        request.resultType = .dictionaries
        request.propertiesToFetch = ["age"]
        request.returnsDistinctResults = true
        let ages: [AttributeValue] = [.null, .integer(28), .integer(36), .integer(41), .integer(85)]
        #expect(try stack.main.fetchDictionaries(request) == ages.map { ["age": $0] })
        request.fetchOffset = 1
        request.fetchLimit = 3
        #expect(try stack.main.fetchDictionaries(request) == ages[1...3].map { ["age": $0] })

        request.propertiesToFetch = ["department.name"]
        request.sortKeys = try SortKey.parse("age:NO")
        request.fetchOffset = 0
        #expect(try stack.main.fetchDictionaries(request) == ["Research", "Sales", nil].map { ["department.name": $0.map(AttributeValue.string) ?? .null] })
    }

    /// `fetchDictionaries` honours `returnsDistinctResults` whatever the request's result
    /// type says: the rows are the same as for a request of type `.dictionaries`.
    @Test func distinctDictionariesDoNotDependOnTheResultType() throws {
        let (stack, _) = try savedCompany()
        var request = try fetchRequest("Employee", sortedBy: "age:NO", limit: 3)
        request.propertiesToFetch = ["department.name"]
        request.returnsDistinctResults = true
        var asDictionaries = request
        asDictionaries.resultType = .dictionaries
        let expected: [[String: AttributeValue]] = [["department.name": .string("Research")], ["department.name": .string("Sales")], ["department.name": .null]]
        #expect(try stack.main.fetchDictionaries(asDictionaries) == expected)
        #expect(try stack.main.plan(for: asDictionaries) == "scan")
        #expect(try stack.main.plan(for: request) == "scan", "distinct rows rule out stopping early")
        let rows = try stack.main.fetchDictionaries(request)
        #expect(rows == expected)
    }

    /// Distinct rows part values as predicates do: "é" precomposed and decomposed are two
    /// values (strings compare by UTF-8 bytes), 0.1 and 0.10 one.
    @Test func distinctDictionariesPartValuesAsPredicatesDo() throws {
        let stack = try FetchStack()
        let rows: [(String, String)] = [("\u{E9}", "0.1"), ("e\u{301}", "0.10"), ("\u{E9}", "0.1")]
        for (index, (name, amount)) in rows.enumerated() {
            try stack.main.insert("Sample", ["sampleID": .integer(Int64(index + 1)), "name": .string(name), "amount": .decimal(Decimal(string: amount)!)])
        }
        try stack.main.saveToPersistentStore()
        var request = try fetchRequest("Sample", sortedBy: "name")
        request.resultType = .dictionaries
        request.returnsDistinctResults = true
        request.propertiesToFetch = ["amount"]
        #expect(try stack.main.fetchDictionaries(request).count == 1)
        request.propertiesToFetch = ["name"]
        let names = try stack.main.fetchDictionaries(request).map { $0["name"]?.stringValue.map { Array($0.utf8) } }
        #expect(names == [Array("e\u{301}".utf8), Array("\u{E9}".utf8)])
    }

    @Test(arguments: ["shoeSize", "department", "department.employees", "department.nickname"])
    func aPropertyToFetchThatIsNoAttributeIsATypedError(property: String) throws {
        let (stack, _) = try savedCompany()
        var request = try fetchRequest("Employee")
        request.resultType = .dictionaries
        request.propertiesToFetch = ["firstName", property]
        let error = fetchFailure { () throws(MagicalRecordError) in try stack.main.execute(request) }
        guard case .invalidFetch(let reason)? = error else {
            Issue.record("fetching property \(property) should be an invalid fetch, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(property))
    }

    // MARK: Counts and subentities

    @Test func countsMatchTheObjectsFetched() throws {
        let (stack, _) = try savedCompany()
        for format in ["age > 30", "age == nil", "department.name == 'Sales'", "firstName BEGINSWITH 'A'", "TRUEPREDICATE", "FALSEPREDICATE"] {
            let request = try fetchRequest("Employee", format)
            #expect(try stack.main.count(for: request) == stack.main.fetch(request).count, "\(format)")
        }
        #expect(try stack.main.count(for: fetchRequest("Employee")) == 6)
        #expect(try stack.main.count(for: fetchRequest("Department")) == 3)
    }

    @Test func aFetchOfAnEntityIncludesItsSubentities() throws {
        let stack = try FetchStack()
        let rex = try stack.main.insert("Dog", ["name": .string("Rex"), "legs": .integer(4)])
        let tom = try stack.main.insert("Cat", ["name": .string("Tom"), "legs": .integer(4)])
        let tripod = try stack.main.insert("Dog", ["name": .string("Tripod"), "legs": .integer(3)])
        try stack.main.saveToPersistentStore()
        #expect(try stack.main.fetchedIDs(fetchRequest("Animal", sortedBy: "name")) == [rex, tom, tripod].map(\.objectID))
        #expect(try stack.main.fetchedIDs(fetchRequest("Animal", "legs == 4")) == [rex, tom].map(\.objectID))
        #expect(try stack.main.fetchedIDs(fetchRequest("Dog", sortedBy: "legs")) == [tripod, rex].map(\.objectID))
        #expect(try stack.main.count(for: fetchRequest("Animal")) == 3)
        #expect(try stack.main.count(for: fetchRequest("Cat", "lives == 9")) == 1)
        #expect(try stack.main.fetchedIDs(fetchRequest("Animal", sortedBy: "legs", limit: 1)) == [tripod.objectID])
    }

    // MARK: Requests that cannot run

    @Test func anUnknownEntityIsATypedError() throws {
        let (stack, _) = try savedCompany()
        let request = FetchRequest(entityName: "Nobody")
        let error = fetchFailure { () throws(MagicalRecordError) in try stack.main.fetch(request) }
        guard case .model(.unknownEntity("Nobody"))? = error else {
            Issue.record("an unknown entity should be reported, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: ["shoeSize > 40", "department.nickname == 'x'", "age == 'old'", "department.employees.age > 3", "lastName > 4"])
    func aPredicateThatDoesNotFitTheEntityIsATypedError(format: String) throws {
        let (stack, _) = try savedCompany()
        let request = try fetchRequest("Employee", format)
        let runs: [(String, () throws(MagicalRecordError) -> Void)] = [
            ("fetch", { () throws(MagicalRecordError) in _ = try stack.main.fetch(request) }),
            ("fetchObjectIDs", { () throws(MagicalRecordError) in _ = try stack.main.fetchObjectIDs(request) }),
            ("fetchDictionaries", { () throws(MagicalRecordError) in _ = try stack.main.fetchDictionaries(request) }),
            ("count", { () throws(MagicalRecordError) in _ = try stack.main.count(for: request) }),
            ("plan", { () throws(MagicalRecordError) in _ = try stack.main.plan(for: request) }),
        ]
        for (name, run) in runs {
            let error = fetchFailure(run)
            guard case .predicate(_, entity: "Employee")? = error else {
                Issue.record("\(name) with \(format) should fail on its predicate, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func aPredicateErrorSaysWhatIsWrong() throws {
        let (stack, _) = try savedCompany()
        let request = try fetchRequest("Employee", "shoeSize > 40")
        let error = fetchFailure { () throws(MagicalRecordError) in try stack.main.fetch(request) }
        guard case .predicate(.unknownKey("shoeSize", entity: "Employee", offset: 0), entity: "Employee")? = error else {
            Issue.record("shoeSize should be an unknown key at offset 0, got \(String(describing: error))")
            return
        }
    }
}
