import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Scans decode only what a predicate, a sort or an aggregate reads; what a fetch hands
/// out is still the whole object. Checked against plain Swift over the same rows, with
/// saved objects and unsaved changes mixed.
@Suite struct PartialDecodingTests {
    struct Row: Equatable {
        var id: Int64
        var firstName: String
        var lastName: String
        var age: Int64
        var salary: Int64
        var height: Double
        var department: Int64
    }

    /// 300 saved employees in three departments, then 20 of them changed and 10 added
    /// without saving: the main context sees both.
    private func company() throws -> (FetchStack, [Int64: Row]) {
        let stack = try FetchStack()
        var random = SplitMix64(seed: 11)
        var rows: [Int64: Row] = [:]
        var departments: [Int64: ManagedObject] = [:]
        for number in Int64(0)..<3 {
            let department = try stack.root.insertObject(entityName: "Department")
            try department.setValue(.integer(number), forKey: "departmentID")
            departments[number] = department
        }
        func write(_ row: Row, into object: ManagedObject) throws {
            try object.setValue(.integer(row.id), forKey: "employeeID")
            try object.setValue(.string(row.firstName), forKey: "firstName")
            try object.setValue(.string(row.lastName), forKey: "lastName")
            try object.setValue(.integer(row.age), forKey: "age")
            try object.setValue(.integer(row.salary), forKey: "salary")
            try object.setValue(.double(row.height), forKey: "height")
        }
        func randomRow(_ id: Int64) -> Row {
            Row(
                id: id, firstName: ["Ada", "Bo", "Cy"].randomElement(using: &random)!,
                lastName: ["Sato", "Silva", "Baker", "Moreau"].randomElement(using: &random)!,
                age: Int64.random(in: 18...70, using: &random), salary: Int64.random(in: 1...9, using: &random) * 10_000,
                height: Double.random(in: 1.5...2, using: &random), department: Int64.random(in: 0..<3, using: &random)
            )
        }
        for id in Int64(1)...300 {
            let row = randomRow(id)
            let employee = try stack.root.insertObject(entityName: "Employee")
            try write(row, into: employee)
            try employee.setRelatedObject(departments[row.department], forKey: "department")
            rows[id] = row
        }
        try stack.root.save()
        for id in Int64(1)...20 {
            let changed = randomRow(id * 7)
            let employee = try #require(try stack.main.fetch(FetchRequest(
                entityName: "Employee", predicate: try ObjectPredicate(format: "employeeID == %d", id * 7)
            )).first)
            try write(changed, into: employee)
            try employee.setRelatedObject(try stack.main.existingObject(with: departments[changed.department]!.objectID), forKey: "department")
            rows[id * 7] = changed
        }
        for id in Int64(301)...310 {
            let row = randomRow(id)
            let employee = try stack.main.insertObject(entityName: "Employee")
            try write(row, into: employee)
            try employee.setRelatedObject(try stack.main.existingObject(with: departments[row.department]!.objectID), forKey: "department")
            rows[id] = row
        }
        return (stack, rows)
    }

    private func row(of object: ManagedObject) throws -> Row {
        let department = try #require(try object.relatedObject(forKey: "department"))
        return Row(
            id: try #require(object["employeeID"].integerValue), firstName: object["firstName"].stringValue ?? "",
            lastName: object["lastName"].stringValue ?? "", age: try #require(object["age"].integerValue),
            salary: try #require(object["salary"].integerValue), height: try #require(object["height"].doubleValue),
            department: try #require(department["departmentID"].integerValue)
        )
    }

    @Test func aSortedPageHandsOutWholeObjects() throws {
        let (stack, rows) = try company()
        for (limit, offset) in [(1, 0), (10, 0), (10, 5), (50, 280), (400, 0)] {
            var request = FetchRequest(
                entityName: "Employee", predicate: try ObjectPredicate(format: "age > %d", 30),
                sortKeys: try SortKey.parse("lastName,salary:NO"), fetchLimit: limit
            )
            request.fetchOffset = offset
            let expected = rows.values.filter { $0.age > 30 }.sorted {
                ($0.lastName, -$0.salary, $0.id) < ($1.lastName, -$1.salary, $1.id)
            }.dropFirst(offset).prefix(limit)
            let fetched = try stack.main.fetch(request).map { try row(of: $0) }
            #expect(fetched == Array(expected), "limit \(limit), offset \(offset)")
        }
    }

    @Test func aFilteredFetchHandsOutWholeObjects() throws {
        let (stack, rows) = try company()
        let request = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "lastName BEGINSWITH %@", "S"))
        let fetched = try stack.main.fetch(request).map { try row(of: $0) }.sorted { $0.id < $1.id }
        #expect(fetched == rows.values.filter { $0.lastName.hasPrefix("S") }.sorted { $0.id < $1.id })
    }

    @Test func countsAndAggregatesReadOnlyWhatTheyNeedAndAgree() throws {
        let (stack, rows) = try company()
        let predicate = try ObjectPredicate(format: "age >= %d AND firstName != %@", 40, "Bo")
        let matching = rows.values.filter { $0.age >= 40 && $0.firstName != "Bo" }
        #expect(try stack.main.count(for: FetchRequest(entityName: "Employee", predicate: predicate)) == matching.count)

        let total = try stack.main.aggregate(.sum, onAttribute: "salary", entityName: "Employee", with: predicate)
        #expect(total == .integer(matching.reduce(0) { $0 + $1.salary }))

        let groups = try stack.main.aggregate(
            .max, onAttribute: "height", entityName: "Employee", with: predicate, groupBy: "department.departmentID"
        )
        let expected = Dictionary(grouping: matching, by: \.department).mapValues { $0.map(\.height).max()! }
        #expect(groups.count == expected.count)
        for group in groups {
            let department = try #require(group["department.departmentID"]?.integerValue)
            #expect(group["result"] == .double(expected[department]!))
        }
    }
}
