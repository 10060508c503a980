import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// To-many entries (Spec O13): an unordered one's value is the target's entity code
/// alone, its number being the key's last part; an ordered one keeps the number; values
/// written before O13, with the number, still read.
@Suite struct ToManyEntryTests {
    private func read(_ value: [UInt8], keyNumber: Int64?) -> (code: Int, number: Int64)? {
        value.withUnsafeBytes { StoreLayout.target($0) { keyNumber } }
    }

    @Test func valuesReadInBothForms() {
        let unordered = StoreLayout.targetValue(code: 3, number: 70_000, ordered: false)
        #expect(unordered == [3])
        #expect(read(unordered, keyNumber: 70_000).map { [$0.code, Int($0.number)] } == [3, 70_000])
        #expect(read(unordered, keyNumber: nil) == nil)
        let ordered = StoreLayout.targetValue(code: 3, number: 70_000, ordered: true)
        #expect(read(ordered, keyNumber: 2).map { [$0.code, Int($0.number)] } == [3, 70_000])
        // As written before O13: the number in the value, whatever the key says.
        var old: [UInt8] = []
        old.appendVarint(3)
        old.appendVarint(70_000)
        #expect(old == ordered)
        #expect(read(old + [0], keyNumber: 70_000) == nil)
        #expect(read([], keyNumber: 1) == nil)
        #expect(read([0x80], keyNumber: 1) == nil)
    }

    @Test func membersRoundTripWhicheverFormTheyWereWrittenIn() throws {
        let stack = try FetchStack()
        let department = try stack.main.insert("Department", ["departmentID": .integer(1)])
        var employees: [ManagedObject] = []
        for id in 1...50 {
            let employee = try stack.main.insert("Employee", ["employeeID": .integer(Int64(id))])
            try employee.setRelatedObject(department, forKey: "department")
            employees.append(employee)
        }
        try stack.main.saveToPersistentStore()
        let tree = StoreLayout.relationshipTree("Department", "employees")
        var values: [[UInt8]] = []
        try stack.store.store.read().tree(tree).scan(.all) { _, value in
            values.append(value)
            return true
        }
        #expect(values.count == 50)
        #expect(values.allSatisfy { $0.count == 1 })
        // One member rewritten as a library before O13 wrote it: the number in the value.
        let oldStyle = employees[7].objectID.number
        try stack.store.store.write { transaction in
            var value = values[0]
            value.appendVarint(Int(oldStyle))
            try transaction.tree(tree).put(KeyEncoding.encode(.int(department.objectID.number), .int(oldStyle)), value)
        }
        let snapshot = try stack.store.snapshot()
        let relationship = try #require(FetchModel.model.entity(named: "Department")?.relationships.first { $0.name == "employees" })
        let members = try snapshot.targets(of: department.objectID, relationship)
        #expect(Set(members) == Set(employees.map(\.objectID)))
    }
}
