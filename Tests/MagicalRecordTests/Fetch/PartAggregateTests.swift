import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// An aggregate over a large entity folds each part of its records on a thread of its own
/// and merges the parts in id order: the results are a single thread's (doubles to their
/// last bits), unsaved changes count in place of their records, and a damaged record stops
/// it with the error a single thread reports.
@Suite struct PartAggregateTests {
    private static let attributes = ["salary", "height", "age", "lastName"]
    private static let predicates: [String?] = [nil, "age > 40", "salary == nil", "age > 100"]

    @Test func partsAggregateAsOneThreadDoes() throws {
        let serial = try FetchStack().savingEmployees(seed: 34)
        let parallel = try FetchStack.inParts().savingEmployees(seed: 34)
        #expect(try parallel.main.stack.store.snapshot().recordParts("Employee", perThread: 4).ranges.count == 16)
        for attribute in Self.attributes {
            for operation in AggregateOperation.allCases where attribute != "lastName" || !operation.isArithmetic {
                for format in Self.predicates {
                    let predicate = try format.map { try ObjectPredicate(format: $0) }
                    let expected = try serial.main.aggregate(operation, onAttribute: attribute, entityName: "Employee", with: predicate)
                    let found = try parallel.main.aggregate(operation, onAttribute: attribute, entityName: "Employee", with: predicate)
                    #expect(Self.agree(found, expected), "\(operation) of \(attribute) where \(format ?? "true")")
                    for groupBy in ["age", "lastName"] {
                        let expectedRows = try serial.main.aggregate(operation, onAttribute: attribute, entityName: "Employee", with: predicate, groupBy: groupBy)
                        let rows = try parallel.main.aggregate(operation, onAttribute: attribute, entityName: "Employee", with: predicate, groupBy: groupBy)
                        #expect(rows.count == expectedRows.count)
                        for (row, expectedRow) in zip(rows, expectedRows) {
                            #expect(row[groupBy] == expectedRow[groupBy])
                            #expect(Self.agree(row["result"] ?? .null, expectedRow["result"] ?? .null), "\(operation) of \(attribute) by \(groupBy)")
                        }
                    }
                }
            }
        }
    }

    /// Through a to-one, each part reads the targets through the view: their unsaved
    /// changes too.
    @Test func partsAggregateThroughAToOneAsOneThreadDoes() throws {
        var results: [[[String: AttributeValue]]] = []
        for stack in [try FetchStack().savingEmployees(seed: 34), try FetchStack.inParts().savingEmployees(seed: 34)] {
            let departments = try (0..<4).map { number in
                try stack.main.insert("Department", [
                    "departmentID": .integer(Int64(number)), "name": .string("D\(number % 3)"), "budget": .decimal(Decimal(number * 1_000)),
                ])
            }
            // Every ninth employee has none.
            for (index, employee) in try stack.main.fetch(fetchRequest("Employee")).enumerated() where index % 9 != 0 {
                try employee.setRelatedObject(departments[index % departments.count], forKey: "department")
            }
            try stack.main.saveToPersistentStore()
            try departments[1].setValue(.string("Renamed"), forKey: "name")
            var rows: [[String: AttributeValue]] = []
            for format in [nil, "age > 40"] as [String?] {
                let predicate = try format.map { try ObjectPredicate(format: $0) }
                rows += try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", with: predicate, groupBy: "department.name")
                rows += try stack.main.aggregate(.max, onAttribute: "department.budget", entityName: "Employee", with: predicate, groupBy: "age")
                rows.append(["total": try stack.main.aggregate(.sum, onAttribute: "department.budget", entityName: "Employee", with: predicate)])
            }
            results.append(rows)
        }
        #expect(results[0].count > 50)
        #expect(results[0].contains { $0["department.name"] == .string("Renamed") })
        #expect(results[1] == results[0])
    }

    /// A group or sum through a to-one reads each match's reference in place: the same as
    /// reading each object's department, with departments sharing a name, employees without
    /// one, and unsaved changes at both ends (a department renamed, one deleted, employees
    /// moved, one added), on one thread and in parts.
    @Test func throughAToOneReadsAsTheObjectsDo() throws {
        for stack in [try FetchStack().savingEmployees(seed: 35), try FetchStack.inParts().savingEmployees(seed: 35)] {
            let departments = try (0..<5).map { number in
                try stack.main.insert("Department", [
                    "departmentID": .integer(Int64(number)), "name": .string("D\(number % 3)"), "budget": .decimal(Decimal(number * 1_000 + 1)),
                ])
            }
            let everyone = try stack.main.fetch(fetchRequest("Employee"))
            for (index, employee) in everyone.enumerated() where index % 9 != 0 {
                try employee.setRelatedObject(departments[index % departments.count], forKey: "department")
            }
            try stack.main.saveToPersistentStore()
            try departments[1].setValue(.string("Renamed"), forKey: "name")
            try stack.main.delete(departments[4])
            // Until a save propagates the delete, its employees still name it: it reads as none.
            var ofTheDeleted = Set(everyone.enumerated().filter { $0.offset % 9 != 0 && $0.offset % 5 == 4 }.map(\.element.objectID))
            for employee in everyone.enumerated().filter({ $0.offset % 50 == 4 || $0.offset % 50 == 1 }).map(\.element) {
                try employee.setRelatedObject(departments[2], forKey: "department")
                ofTheDeleted.remove(employee.objectID)
            }
            let added = try stack.main.insert("Employee", ["employeeID": .integer(99_999), "age": .integer(50), "salary": .integer(7)])
            try added.setRelatedObject(departments[0], forKey: "department")

            for format in [nil, "age > 40"] as [String?] {
                let predicate = try format.map { try ObjectPredicate(format: $0) }
                var sums: [AttributeValue: Int64] = [:]
                var counts: [AttributeValue: Int64] = [:]
                var budget: Decimal = 0
                var budgets: [AttributeValue: Decimal] = [:]
                for employee in try stack.main.fetch(FetchRequest(entityName: "Employee", predicate: predicate)) {
                    let department = ofTheDeleted.contains(employee.objectID) ? nil : try employee.relatedObject(forKey: "department")
                    let name = try department?.attributeValue(forKey: "name") ?? .null
                    counts[name, default: 0] += 1
                    if case .integer(let salary) = employee["salary"] { sums[name, default: 0] += salary }
                    if case .decimal(let amount)? = try department?.attributeValue(forKey: "budget") {
                        budget += amount
                        budgets[name, default: 0] += amount
                    }
                }
                let bySum = try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", with: predicate, groupBy: "department.name")
                #expect(Dictionary(uniqueKeysWithValues: bySum.map { ($0["department.name"]!, $0["result"]!) })
                    == counts.mapValues { _ in .null }.merging(sums.mapValues { .integer($0) }) { $1 })
                let byCount = try stack.main.aggregate(.count, onAttribute: "employeeID", entityName: "Employee", with: predicate, groupBy: "department.name")
                #expect(Dictionary(uniqueKeysWithValues: byCount.map { ($0["department.name"]!, $0["result"]!) }) == counts.mapValues { .integer($0) })
                #expect(counts.keys.contains(.string("Renamed")) && counts.keys.contains(.null) && !counts.keys.contains(.string("D1")))
                #expect(try stack.main.aggregate(.sum, onAttribute: "department.budget", entityName: "Employee", with: predicate) == .decimal(budget))
                // Both key paths through the one to-one.
                let byBudget = try stack.main.aggregate(.sum, onAttribute: "department.budget", entityName: "Employee", with: predicate, groupBy: "department.name")
                #expect(Dictionary(uniqueKeysWithValues: byBudget.map { ($0["department.name"]!, $0["result"]!) })
                    == counts.mapValues { _ in .null }.merging(budgets.mapValues { .decimal($0) }) { $1 })
            }
        }
    }

    /// The fold hands each match the target its to-one names, read in place from its
    /// record (or from its unsaved state), in every part.
    @Test func aFoldHandsEachMatchItsTargetInPlace() throws {
        let stack = try FetchStack.inParts().savingEmployees(seed: 36)
        let departments = try (0..<3).map { try stack.main.insert("Department", ["departmentID": .integer(Int64($0))]) }
        let everyone = try stack.main.fetch(fetchRequest("Employee"))
        for (index, employee) in everyone.enumerated() where index % 4 != 0 {
            try employee.setRelatedObject(departments[index % 3], forKey: "department")
        }
        try stack.main.saveToPersistentStore()
        try everyone[5].setRelatedObject(nil, forKey: "department")
        try everyone[8].setRelatedObject(departments[0], forKey: "department")

        let executor = try FetchExecutor(FetchRequest(entityName: "Employee"), in: stack.main)
        let position = try #require(executor.entity.slot(ofRelationship: "department"))
        let idPosition = try #require(executor.entity.slot(ofAttribute: "employeeID"))
        let partials = try #require(try executor.foldMatchingFields([idPosition], targetsOf: [position], start: { [(Int64, ObjectID?)]() }) { seen, attributes, targets in
            guard case .integer(let id) = attributes[idPosition] else { return }
            seen.append((id, targets[position]))
        })
        #expect(partials.count > 2)
        var found: [Int64: ObjectID?] = [:]
        for (id, target) in partials.joined() { found.updateValue(target, forKey: id) }
        var expected: [Int64: ObjectID?] = [:]
        for employee in everyone {
            guard case .integer(let id) = employee["employeeID"] else { continue }
            expected.updateValue(try employee.relatedObject(forKey: "department")?.objectID, forKey: id)
        }
        #expect(found.count == everyone.count)
        #expect(found.filter { expected[$0.key] != $0.value }.isEmpty)
        #expect(found.values.contains(nil) && found.values.contains(departments[0].objectID))
    }

    @Test func unsavedChangesCountInEveryPart() throws {
        let stack = try FetchStack.inParts().savingEmployees(seed: 34)
        let everyone = try stack.main.fetch(fetchRequest("Employee"))
        var expectedSum: Int64 = 0
        var expectedByAge: [Int64: Int64] = [:]
        for (index, employee) in everyone.enumerated() {
            // Every tenth changed, from every part of the id range; every 97th deleted.
            if index % 97 == 3 {
                try stack.main.delete(employee)
                continue
            }
            if index % 10 == 0 { try employee.setValue(.integer(1_000_000), forKey: "salary") }
            guard case .integer(let salary) = employee["salary"], case .integer(let age) = employee["age"] else { continue }
            expectedSum += salary
            expectedByAge[age, default: 0] += salary
        }
        let added = try stack.main.insert("Employee", ["employeeID": .integer(99_999), "age": .integer(18), "salary": .integer(7)])
        _ = added
        expectedSum += 7
        expectedByAge[18, default: 0] += 7
        #expect(try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee") == .integer(expectedSum))
        let rows = try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", groupBy: "age")
        let byAge = Dictionary(uniqueKeysWithValues: rows.compactMap { row -> (Int64, Int64)? in
            guard case .integer(let age)? = row["age"], case .integer(let sum)? = row["result"] else { return nil }
            return (age, sum)
        })
        #expect(byAge == expectedByAge)
    }

    @Test func aDamagedRecordStopsTheAggregateAsOnOneThread() throws {
        for stack in [try FetchStack().savingEmployees(seed: 34), try FetchStack.inParts().savingEmployees(seed: 34)] {
            try stack.store.store.write { transaction in
                let tree = try transaction.tree(StoreLayout.objectTree("Employee"))
                for number: Int64 in [1_100, 300] { try tree.put(StoreLayout.objectKey(number), [0xFF, 0xFF, 0xFF, 0xFF]) }
            }
            let plain = #expect(throws: MagicalRecordError.self) {
                try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee")
            }
            let grouped = #expect(throws: MagicalRecordError.self) {
                try stack.main.aggregate(.max, onAttribute: "height", entityName: "Employee", groupBy: "age")
            }
            for error in [plain, grouped] {
                guard case .damagedRecord(let id)? = error else {
                    Issue.record("expected a damaged record, got \(String(describing: error))")
                    continue
                }
                #expect(id == ObjectID(entityName: "Employee", number: 300))
            }
        }
    }

    /// Equal, doubles within their last bits (a sum's rounding depends on its grouping).
    private static func agree(_ found: AttributeValue, _ expected: AttributeValue) -> Bool {
        guard case .double(let value) = found, case .double(let wanted) = expected else { return found == expected }
        return abs(value - wanted) <= 1e-12 * max(abs(wanted), 1)
    }
}
