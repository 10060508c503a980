import ArgumentParser
import Foundation
import MagicalRecord
import MagicalStore

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Import sample people and departments from JSON into a new store, then query it.",
        discussion: """
        Writes N sample people as a JSON file next to the store (each with its department \
        nested: Department {departmentID key, name}; Person {personID key, firstName, \
        lastName indexed, age, salary, department}), imports it into a new store with the \
        import mapping in one durable commit, then runs lookups by key, a predicate fetch, \
        a sorted page and aggregates, with timings.
        """
    )

    @Argument(help: "Where to create the store.")
    var store: String

    @Option(help: "How many people to write.")
    var records = 100_000

    @Flag(help: "Replace an existing file at the path.")
    var replace = false

    func run() throws {
        guard records > 0 else { throw ValidationError("--records must be positive") }
        if FileManager.default.fileExists(atPath: store) {
            guard replace else {
                printError("mrstore: \(store) exists; pass --replace to overwrite it")
                throw ExitCode(1)
            }
            try FileManager.default.removeItem(atPath: store)
        }
        try reportingErrors { try runDemo() }
    }

    private func runDemo() throws {
        let clock = ContinuousClock()
        let stack = try PersistentStack(storeAt: URL(fileURLWithPath: store), model: SamplePeople.model)
        defer { try? stack.close() }
        let context = stack.rootContext

        let jsonURL = URL(fileURLWithPath: store).deletingPathExtension().appendingPathExtension("json")
        let json = SamplePeople.json(count: records)
        try json.write(to: jsonURL)
        var imported: ImportResult?
        let importTime = try clock.measure {
            imported = try context.importRecords(contentsOf: jsonURL, entityName: "Person")
            try context.save()
        }
        guard let result = imported else { return }
        print(
            "imported \(result.recordsRead) people from \(jsonURL.lastPathComponent) (\(humanBytes(UInt64(json.count)))), "
                + "\(result.created) objects with their departments, one durable commit: \(rate(records, importTime))"
        )

        var generator = SplitMix64(seed: 7)
        let lookups = min(records, 20_000)
        var found = 0
        let lookupTime = try clock.measure {
            for _ in 0..<lookups {
                let key = Int64.random(in: 0..<Int64(records), using: &generator)
                let byKey = try ObjectPredicate(format: "personID == %@", key)
                found += try context.fetchObjectIDs(FetchRequest(entityName: "Person", predicate: byKey, fetchLimit: 1)).count
            }
        }
        print("found \(found) of \(lookups) people by key through the index: \(rate(lookups, lookupTime))")

        let predicate = try ObjectPredicate(format: "age > %d AND lastName BEGINSWITH %@", 40, "S")
        var matches = 0
        let scanTime = try clock.measure {
            matches = try context.count(for: FetchRequest(entityName: "Person", predicate: predicate))
        }
        print("people with age > 40 AND lastName BEGINSWITH 'S': \(matches): \(rate(records, scanTime)) scanned")

        var page: [ManagedObject] = []
        let sortTime = try clock.measure {
            page = try context.fetch(FetchRequest(
                entityName: "Person", sortKeys: try SortKey.parse("lastName,firstName:NO"), fetchLimit: 3
            ))
        }
        let names = page.map { "\(ObjectRendering.plain($0["firstName"])) \(ObjectRendering.plain($0["lastName"]))" }
        print("first 3 by lastName, firstName descending: \(names.joined(separator: ", ")): \(seconds(sortTime))")

        var average = AttributeValue.null
        var groups: [[String: AttributeValue]] = []
        let aggregateTime = try clock.measure {
            average = try context.aggregate(.average, onAttribute: "age", entityName: "Person")
            groups = try context.aggregate(.sum, onAttribute: "salary", entityName: "Person", groupBy: "department.departmentID")
        }
        print("average age \(String(format: "%.2f", average.doubleValue ?? 0)); salaries summed in \(groups.count) departments: \(seconds(aggregateTime))")
    }

    private func seconds(_ duration: Duration) -> String {
        String(format: "%.3f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    private func rate(_ count: Int, _ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.3f s, %.0f per second", seconds, Double(count) / max(seconds, 1e-9))
    }
}

/// The demo's model and deterministic sample data: person keys 0..<count in shuffled
/// order, names from short lists, 100 departments.
enum SamplePeople {
    static let firstNames = ["Ada", "Bo", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kofi", "Lena", "Mateo", "Nia", "Omar", "Pia", "Quinn", "Rosa", "Sven", "Tao", "Uma", "Vera", "Wen", "Yan", "Zoe"]
    static let lastNames = ["Abbott", "Baker", "Chandra", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova", "Jensen", "Kowalski", "Larsen", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi", "Santos", "Schmidt", "Silva", "Sato", "Tanaka", "Usman", "Varga", "Weber", "Yilmaz", "Zhang"]

    static let model = try! ObjectModel(entities: [
        EntityDescription("Department", relatedBy: "departmentID") {
            AttributeDescription("departmentID", .integer32, optional: false)
            AttributeDescription("name", .string)
            RelationshipDescription("people", to: "Person", inverse: "department", toMany: true)
        },
        EntityDescription("Person", relatedBy: "personID") {
            AttributeDescription("personID", .integer64, optional: false)
            AttributeDescription("firstName", .string)
            AttributeDescription("lastName", .string, indexed: true)
            AttributeDescription("age", .integer16, default: .integer(0))
            AttributeDescription("salary", .double, default: .double(0))
            RelationshipDescription("department", to: "Department", inverse: "people")
        },
    ], versionName: "Demo")

    /// `count` people as a JSON array, each with its department nested (imported once
    /// per department, found by key after that).
    static func json(count: Int) -> Data {
        var generator = SplitMix64(seed: 42)
        var text = "["
        text.reserveCapacity(count * 140)
        for (position, key) in (0..<Int64(count)).shuffled(using: &generator).enumerated() {
            let department = Int.random(in: 0..<100, using: &generator)
            if position > 0 { text += ",\n" }
            text += #"{"personID": \#(key), "firstName": "\#(firstNames.randomElement(using: &generator)!)", "#
            text += #""lastName": "\#(lastNames.randomElement(using: &generator)!)", "age": \#(Int.random(in: 18...90, using: &generator)), "#
            text += #""salary": \#(Int.random(in: 30_000...150_000, using: &generator)), "#
            text += #""department": {"departmentID": \#(department), "name": "Department \#(department)"}}"#
        }
        return Data((text + "]\n").utf8)
    }
}
