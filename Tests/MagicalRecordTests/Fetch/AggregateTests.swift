import Foundation
import Testing
@testable import MagicalRecord

/// sum, min, max, average and count over an attribute, with and without a group-by key:
/// exact integer sums, decimals past Int64, nil values skipped, `.null` for nothing.
@Suite struct AggregateTests {
    /// The company, saved to the store.
    private func savedCompany() throws -> (FetchStack, Company) {
        let stack = try FetchStack()
        let company = try Company(in: stack.main)
        try stack.main.saveToPersistentStore()
        return (stack, company)
    }

    /// A stack with one employee per salary, inserted in order and saved.
    private func salaries(_ values: [Int64]) throws -> FetchStack {
        let stack = try FetchStack()
        for (index, salary) in values.enumerated() {
            try stack.main.insert("Employee", ["employeeID": .integer(Int64(index + 1)), "salary": .integer(salary)])
        }
        try stack.main.saveToPersistentStore()
        return stack
    }

    private func sumOfSalaries(_ stack: FetchStack) throws -> AttributeValue {
        try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee")
    }

    // MARK: Sums and averages

    @Test func aSumOfIntegersIsExactPastTwoToThe53() throws {
        let twoTo53: Int64 = 1 << 53
        let stack = try salaries([twoTo53 + 1, twoTo53 + 1, 1])
        #expect(try sumOfSalaries(stack) == .integer(2 * twoTo53 + 3))
        #expect(try stack.main.aggregate(.average, onAttribute: "salary", entityName: "Employee") == .double(6_004_799_503_160_662))
    }

    @Test func aSumPastInt64IsADecimal() throws {
        let past = try salaries([.max, .max, 2])
        #expect(try sumOfSalaries(past) == .decimal(Decimal(Int64.max) * 2 + 2))
        let below = try salaries([.min, -1])
        #expect(try sumOfSalaries(below) == .decimal(Decimal(Int64.min) - 1))
        let averaged = try salaries([.max, .max])
        #expect(try averaged.main.aggregate(.average, onAttribute: "salary", entityName: "Employee") == .double(Double(Int64.max)))
    }

    /// The type of a sum depends on the sum, not on the order the objects are read in:
    /// Int64.max + 1 - 2 fits in Int64.
    @Test func aSumBackInsideInt64IsAnInteger() throws {
        let expected = AttributeValue.integer(.max - 1)
        #expect(try sumOfSalaries(salaries([-2, 1, .max])) == expected)
        let overflowingOnTheWay = try sumOfSalaries(salaries([.max, 1, -2]))
        #expect(overflowingOnTheWay == expected)
    }

    @Test func eachKindOfNumberSumsAndAveragesInItsOwnKind() throws {
        let (stack, _) = try savedCompany()
        #expect(try stack.main.aggregate(.sum, onAttribute: "age", entityName: "Employee") == .integer(231))
        #expect(try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee") == .integer(435_000))
        #expect(try stack.main.aggregate(.average, onAttribute: "age", entityName: "Employee") == .double(46.2))
        #expect(try stack.main.aggregate(.sum, onAttribute: "budget", entityName: "Department") == .decimal(Decimal(string: "3500.50")!))
        #expect(try stack.main.aggregate(.average, onAttribute: "budget", entityName: "Department") == .decimal(Decimal(string: "1750.25")!))

        guard case .double(let heights) = try stack.main.aggregate(.sum, onAttribute: "height", entityName: "Employee"),
              case .double(let meanHeight) = try stack.main.aggregate(.average, onAttribute: "height", entityName: "Employee") else {
            Issue.record("sums and averages of Double attributes should be Doubles")
            return
        }
        #expect(abs(heights - 6.73) < 1e-12)
        #expect(abs(meanHeight - 6.73 / 4) < 1e-12)
    }

    // MARK: Minimum, maximum, count

    @Test func minAndMaxKeepTheAttributesType() throws {
        let (stack, _) = try savedCompany()
        let cases: [(AggregateOperation, String, String, AttributeValue)] = [
            (.min, "lastName", "Employee", .string("Hopper")),
            (.max, "lastName", "Employee", .string("Ångström")),
            (.min, "born", "Employee", utcDay("1815-12-10")),
            (.max, "born", "Employee", utcDay("1996-03-01")),
            (.min, "age", "Employee", .integer(28)),
            (.max, "height", "Employee", .double(1.78)),
            (.min, "budget", "Department", .decimal(Decimal(string: "1000.50")!)),
            (.max, "department.budget", "Employee", .decimal(2500)),
        ]
        for (operation, attribute, entity, expected) in cases {
            #expect(try stack.main.aggregate(operation, onAttribute: attribute, entityName: entity) == expected, "\(operation) of \(entity).\(attribute)")
        }
    }

    @Test func countCountsTheValuesThatAreNotNil() throws {
        let (stack, _) = try savedCompany()
        #expect(try stack.main.aggregate(.count, onAttribute: "height", entityName: "Employee") == .integer(4))
        #expect(try stack.main.aggregate(.count, onAttribute: "lastName", entityName: "Employee") == .integer(5))
        #expect(try stack.main.aggregate(.count, onAttribute: "employeeID", entityName: "Employee") == .integer(6))
        #expect(try stack.main.aggregate(.count, onAttribute: "department.name", entityName: "Employee") == .integer(5))
    }

    @Test func nothingToAggregateIsNullAndCountsZero() throws {
        let (stack, _) = try savedCompany()
        for predicate in [try ObjectPredicate(format: "age > 100"), try ObjectPredicate(format: "employeeID == 6")] {
            for operation in [AggregateOperation.sum, .min, .max, .average] {
                #expect(try stack.main.aggregate(operation, onAttribute: "salary", entityName: "Employee", with: predicate) == .null, "\(operation) where \(predicate)")
            }
            #expect(try stack.main.aggregate(.count, onAttribute: "salary", entityName: "Employee", with: predicate) == .integer(0))
        }
    }

    // MARK: Predicates and unsaved changes

    @Test func aPredicateNarrowsWhatIsAggregated() throws {
        let (stack, _) = try savedCompany()
        let research = try ObjectPredicate(format: "department.name == %@", "Research")
        #expect(try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", with: research) == .integer(305_000))
        #expect(try stack.main.aggregate(.max, onAttribute: "age", entityName: "Employee", with: try ObjectPredicate(format: "age < 40")) == .integer(36))
    }

    @Test func aggregatesSeeUnsavedChanges() throws {
        let (stack, company) = try savedCompany()
        try company.grace.setValue(.integer(1), forKey: "salary")
        try stack.main.delete(company.ada)
        try stack.main.insert("Employee", ["employeeID": .integer(7), "salary": .integer(1_000_000)])
        #expect(try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee") == .integer(1_225_001))
        let child = stack.child()
        try child.existingObject(with: company.yan.objectID).setValue(.integer(0), forKey: "salary")
        #expect(try child.aggregate(.sum, onAttribute: "salary", entityName: "Employee") == .integer(1_165_001))
        #expect(try child.aggregate(.max, onAttribute: "salary", entityName: "Employee") == .integer(1_000_000))
        #expect(try stack.root.aggregate(.sum, onAttribute: "salary", entityName: "Employee") == .integer(435_000))
    }

    // MARK: Group by

    @Test func groupByGivesOneRowPerValueInAscendingOrder() throws {
        let (stack, _) = try savedCompany()
        #expect(try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", groupBy: "department.name") == [
            ["department.name": .null, "result": .null],
            ["department.name": .string("Research"), "result": .integer(305_000)],
            ["department.name": .string("Sales"), "result": .integer(130_000)],
        ])
        #expect(try stack.main.aggregate(.count, onAttribute: "lastName", entityName: "Employee", groupBy: "age") == [
            ["age": .null, "result": .integer(0)],
            ["age": .integer(28), "result": .integer(1)],
            ["age": .integer(36), "result": .integer(1)],
            ["age": .integer(41), "result": .integer(2)],
            ["age": .integer(85), "result": .integer(1)],
        ])
        #expect(try stack.main.aggregate(.min, onAttribute: "firstName", entityName: "Employee", groupBy: "lastName").map { $0["lastName"] }
            == [.null, .string("Hopper"), .string("Lovelace"), .string("Turing"), .string("Zhou"), .string("Ångström")])
    }

    /// A group through a to-one reads each target once per aggregate, and sees the
    /// targets' and the links' unsaved changes: a renamed department, an employee moved.
    @Test func groupsThroughAToOneSeeUnsavedChangesOfBothEnds() throws {
        let (stack, company) = try savedCompany()
        try company.sales.setValue(.string("Marketing"), forKey: "name")
        try company.ada.setRelatedObject(company.empty, forKey: "department")
        try company.empty.setValue(.string("Research"), forKey: "name")
        #expect(try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", groupBy: "department.name") == [
            ["department.name": .null, "result": .null],
            ["department.name": .string("Marketing"), "result": .integer(130_000)],
            ["department.name": .string("Research"), "result": .integer(305_000)],
        ])
        #expect(try stack.main.aggregate(.max, onAttribute: "department.budget", entityName: "Employee", groupBy: "age") == [
            ["age": .null, "result": .null],
            ["age": .integer(28), "result": .decimal(Decimal(string: "1000.50")!)],
            ["age": .integer(36), "result": .null],
            ["age": .integer(41), "result": .decimal(2500)],
            ["age": .integer(85), "result": .decimal(2500)],
        ])
        #expect(try stack.root.aggregate(.sum, onAttribute: "salary", entityName: "Employee", groupBy: "department.name") == [
            ["department.name": .null, "result": .null],
            ["department.name": .string("Research"), "result": .integer(305_000)],
            ["department.name": .string("Sales"), "result": .integer(130_000)],
        ])
    }

    @Test func groupsComeFromMatchingObjectsOnly() throws {
        let (stack, _) = try savedCompany()
        let older = try ObjectPredicate(format: "age > 30")
        #expect(try stack.main.aggregate(.average, onAttribute: "salary", entityName: "Employee", with: older, groupBy: "age") == [
            ["age": .integer(36), "result": .double(90_000)],
            ["age": .integer(41), "result": .double(82_500)],
            ["age": .integer(85), "result": .double(120_000)],
        ])
        #expect(try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", with: try ObjectPredicate(format: "age > 100"), groupBy: "age") == [])
    }

    /// Groups part values as predicates do: "é" precomposed and decomposed are two values
    /// (strings compare by UTF-8 bytes), 0.1 and 0.10 one, NaN and NaN one.
    @Test func groupsPartValuesAsPredicatesDo() throws {
        let stack = try FetchStack()
        let rows: [(String, String, Double)] = [("\u{E9}", "0.1", .nan), ("e\u{301}", "0.10", .nan), ("\u{E9}", "0.1", 1)]
        for (index, (name, amount, ratio)) in rows.enumerated() {
            try stack.main.insert("Sample", [
                "sampleID": .integer(Int64(index + 1)), "name": .string(name), "amount": .decimal(Decimal(string: amount)!), "ratio": .double(ratio),
            ])
        }
        try stack.main.saveToPersistentStore()
        #expect(try stack.main.count(for: fetchRequest("Sample", "name == %@", "\u{E9}")) == 2)
        #expect(try stack.main.count(for: fetchRequest("Sample", "ratio == %@", Double.nan)) == 2)
        #expect(try stack.main.count(for: fetchRequest("Sample", "amount == %@", Decimal(string: "0.10")!)) == 3)

        let byAmount = try stack.main.aggregate(.count, onAttribute: "sampleID", entityName: "Sample", groupBy: "amount")
        #expect(byAmount == [["amount": .decimal(Decimal(string: "0.1")!), "result": .integer(3)]])
        let byRatio = try stack.main.aggregate(.count, onAttribute: "sampleID", entityName: "Sample", groupBy: "ratio")
        #expect(byRatio.map { $0["result"] } == [.integer(1), .integer(2)])
        let byName = try stack.main.aggregate(.count, onAttribute: "sampleID", entityName: "Sample", groupBy: "name")
        #expect(byName.map { $0["name"]?.stringValue.map { Array($0.utf8) } } == [Array("e\u{301}".utf8), Array("\u{E9}".utf8)])
        #expect(byName.map { $0["result"] } == [.integer(1), .integer(2)])
    }

    // MARK: Errors

    @Test func operationNamesParseWithOrWithoutAColonInAnyCase() throws {
        for operation in AggregateOperation.allCases {
            for text in [operation.rawValue, operation.rawValue + ":", operation.rawValue.uppercased() + ":"] {
                #expect(try AggregateOperation(parsing: text) == operation)
            }
        }
        for text in ["median:", "", ":", "sum::", "avg:"] {
            let error = fetchFailure { () throws(MagicalRecordError) in try AggregateOperation(parsing: text) }
            guard case .invalidFetch? = error else {
                Issue.record("\"\(text)\" should be an unknown operation, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test(arguments: [
        (AggregateOperation.sum, "shoeSize", "Employee"), (.sum, "lastName", "Employee"), (.average, "born", "Employee"),
        (.max, "department", "Employee"), (.min, "employees.salary", "Department"), (.count, "department.nickname", "Employee"),
    ])
    func anAttributeThatCannotBeAggregatedIsATypedError(operation: AggregateOperation, attribute: String, entity: String) throws {
        let (stack, _) = try savedCompany()
        let error = fetchFailure { () throws(MagicalRecordError) in try stack.main.aggregate(operation, onAttribute: attribute, entityName: entity) }
        guard case .invalidFetch(let reason)? = error else {
            Issue.record("\(operation) of \(entity).\(attribute) should be an invalid fetch, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(attribute))
    }

    @Test func aBadGroupByEntityOrPredicateIsATypedError() throws {
        let (stack, _) = try savedCompany()
        for groupBy in ["shoeSize", "department", "department.employees"] {
            let error = fetchFailure { () throws(MagicalRecordError) in
                try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", groupBy: groupBy)
            }
            guard case .invalidFetch(let reason)? = error, reason.contains(groupBy) else {
                Issue.record("grouping by \(groupBy) should be an invalid fetch, got \(String(describing: error))")
                continue
            }
        }
        let unknownEntity = fetchFailure { () throws(MagicalRecordError) in try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Nobody") }
        guard case .model(.unknownEntity("Nobody"))? = unknownEntity else {
            Issue.record("an unknown entity should be reported, got \(String(describing: unknownEntity))")
            return
        }
        let badPredicate = try ObjectPredicate(format: "shoeSize > 3")
        let predicateError = fetchFailure { () throws(MagicalRecordError) in
            try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", with: badPredicate)
        }
        guard case .predicate(.unknownKey, entity: "Employee")? = predicateError else {
            Issue.record("an unknown key should be reported, got \(String(describing: predicateError))")
            return
        }
    }
}
