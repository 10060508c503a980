import Foundation
import Testing
@testable import MagicalRecord

/// `mrstore fetch`, `count`, `aggregate` and `model` on a demo store, checked against the
/// library reading the same store.
@Suite struct ObjectCommandTests {
    typealias Run = MRStoreCommandTests

    /// A demo store of 300 people, and the library's view of it.
    final class DemoStore {
        let directory = MRStoreCommandTests.Directory()
        var path: String { directory.path + "/demo.store" }

        init() throws {
            let demo = try Run.run("demo", path, "--records", "300")
            #expect(demo.status == 0, "\(demo.errors)")
        }

        func withStack<T>(_ body: (PersistentStack) throws -> T) throws -> T {
            let stack = try PersistentStack(storeAt: URL(fileURLWithPath: path), readOnly: true)
            defer { try? stack.close() }
            return try body(stack)
        }
    }

    @Test func countMatchesTheLibrary() throws {
        let demo = try DemoStore()
        #expect(try Run.run("count", demo.path, "--entity", "Person").output == "300\n")
        let predicate = "age > 40 AND lastName BEGINSWITH 'S'"
        let expected = try demo.withStack {
            try $0.mainContext.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: predicate)))
        }
        #expect(expected > 0)
        #expect(try Run.run("count", demo.path, "--entity", "Person", "--where", predicate).output == "\(expected)\n")
    }

    @Test func fetchPrintsJSONWithRelationshipsAsKeys() throws {
        let demo = try DemoStore()
        let result = try Run.run(
            "fetch", demo.path, "--entity", "Person", "--where", "age >= 30", "--sort", "lastName:NO,personID",
            "--limit", "5", "--offset", "2", "--json"
        )
        #expect(result.status == 0, "\(result.errors)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        let expected = try demo.withStack { stack in
            var request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age >= 30"))
            request.sortKeys = try SortKey.parse("lastName:NO,personID")
            request.fetchLimit = 5
            request.fetchOffset = 2
            return try stack.mainContext.fetch(request).map { person in
                (person["personID"], person["lastName"], try person.relatedObject(forKey: "department")?["departmentID"])
            }
        }
        #expect(rows.count == 5)
        for (row, (key, lastName, department)) in zip(rows, expected) {
            #expect(row["personID"] as? Int64 == key.integerValue)
            #expect(row["lastName"] as? String == lastName.stringValue)
            #expect(row["department"] as? Int64 == department?.integerValue)
            #expect(Set(row.keys) == ["personID", "firstName", "lastName", "age", "salary", "department"])
        }

        let departments = try Run.run("fetch", demo.path, "--entity", "Department", "--where", "departmentID == 3", "--json")
        let department = try #require((try JSONSerialization.jsonObject(with: Data(departments.output.utf8)) as? [[String: Any]])?.first)
        let people = try #require(department["people"] as? [Int64])
        let count = try demo.withStack {
            try $0.mainContext.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "department.departmentID == 3")))
        }
        #expect(people.count == count)
    }

    @Test func fetchPrintsATableAndExplainsItsPlan() throws {
        let demo = try DemoStore()
        let table = try Run.run("fetch", demo.path, "--entity", "Department", "--sort", "departmentID", "--limit", "2")
        #expect(table.status == 0)
        let lines = table.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("departmentID  name") == true)
        #expect(lines[2].hasPrefix("0             Department 0"))
        #expect(lines.last == "(2 objects)")
        let plan = try Run.run("fetch", demo.path, "--entity", "Person", "--where", "personID IN {1, 2, 3}", "--explain")
        #expect(plan.output == "index personID (3 ranges)\n")
    }

    @Test func aggregatePrintsNumbersAndGroups() throws {
        let demo = try DemoStore()
        let (sum, groups) = try demo.withStack { stack in
            (
                try stack.mainContext.aggregate(.sum, onAttribute: "age", entityName: "Person"),
                try stack.mainContext.aggregate(.max, onAttribute: "salary", entityName: "Person", groupBy: "department.departmentID")
            )
        }
        let total = try Run.run("aggregate", demo.path, "--entity", "Person", "--op", "sum:", "--attribute", "age", "--json")
        #expect(total.output == "\(sum.integerValue ?? -1)\n")
        let none = try Run.run("aggregate", demo.path, "--entity", "Person", "--op", "min:", "--attribute", "age", "--where", "age > 1000", "--json")
        #expect(none.output == "null\n")
        let grouped = try Run.run(
            "aggregate", demo.path, "--entity", "Person", "--op", "max", "--attribute", "salary", "--group-by", "department.departmentID"
        )
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(grouped.output.utf8)) as? [[String: Any]])
        #expect(rows.count == groups.count)
        for (row, group) in zip(rows, groups) {
            #expect(row["department.departmentID"] as? Int64 == group["department.departmentID"]?.integerValue)
            #expect(row["result"] as? Double == group["result"]?.doubleValue)
        }
    }

    @Test func modelPrintsTheStoresOwnModel() throws {
        let demo = try DemoStore()
        let text = try Run.run("model", demo.path)
        #expect(text.output.hasPrefix("model Demo, version hash "))
        #expect(text.output.contains("attribute lastName: String, optional, indexed"))
        let json = try Run.run("model", demo.path, "--json")
        let description = try JSONModelDescription(data: Data(json.output.utf8))
        let hash = try demo.withStack { $0.model.versionHash }
        #expect(description.versions.current.versionHash == hash)
        #expect(description.currentSlots["Person"] != nil)
    }

    @Test(arguments: [
        (["fetch", "--entity", "Persn"], "no entity Persn"),
        (["count", "--entity", "Person", "--where", "age >"], "offset 5"),
        (["count", "--entity", "Person", "--where", "agee > 3"], "unknown key `agee`"),
        (["fetch", "--entity", "Person", "--sort", "agee"], "sort key \"agee\""),
        (["fetch", "--entity", "Person", "--sort", "age:MAYBE"], "is not YES or NO"),
        (["aggregate", "--entity", "Person", "--op", "median:", "--attribute", "age"], "unknown aggregate operation"),
        (["aggregate", "--entity", "Person", "--op", "sum:", "--attribute", "lastName"], "needs a number attribute"),
    ])
    func badRequestsExitNonZeroWithTheErrorOnStandardError(arguments: [String], message: String) throws {
        let demo = try DemoStore()
        var full = arguments
        full.insert(demo.path, at: 1)
        let result = try MRStoreCommandTests.run(full)
        #expect(result.status != 0)
        #expect(result.errors.contains(message), "\(result.errors)")
        #expect(result.output.isEmpty)
        #expect(result.errors.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 1, "one line, not also a log line")
    }

    @Test func aStoreWithoutAnObjectModelIsRefused() throws {
        let directory = MRStoreCommandTests.Directory()
        let missing = try Run.run("count", directory.path + "/missing.store", "--entity", "Person")
        #expect(missing.status != 0)
        #expect(missing.errors.contains("no store"))
    }
}
