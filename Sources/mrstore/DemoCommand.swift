import ArgumentParser
import Foundation
import MagicalRecord
import MagicalStore

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a store of sample people and departments, then query it.",
        discussion: """
        Creates a store with the sample model (Department {departmentID, name}; Person \
        {personID key, firstName, lastName indexed, age, salary, department}), saves N \
        people in 100 departments through a context in one durable commit, then runs \
        lookups by key, a predicate fetch, a sorted page and aggregates, with timings.
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

        let writeTime = try clock.measure {
            try SamplePeople.insert(count: records, in: context)
            try context.save()
        }
        print("saved \(records) people in 100 departments, one durable commit: \(rate(records, writeTime))")

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

    static func insert(count: Int, in context: ManagedObjectContext) throws {
        var generator = SplitMix64(seed: 42)
        var departments: [ManagedObject] = []
        for number in 0..<100 {
            let department = try context.insertObject(entityName: "Department")
            try department.setValue(.integer(Int64(number)), forKey: "departmentID")
            try department.setValue(.string("Department \(number)"), forKey: "name")
            departments.append(department)
        }
        for key in (0..<Int64(count)).shuffled(using: &generator) {
            let person = try context.insertObject(entityName: "Person")
            try person.setValue(.integer(key), forKey: "personID")
            try person.setValue(.string(firstNames.randomElement(using: &generator)!), forKey: "firstName")
            try person.setValue(.string(lastNames.randomElement(using: &generator)!), forKey: "lastName")
            try person.setValue(.integer(Int64.random(in: 18...90, using: &generator)), forKey: "age")
            try person.setValue(.double(Double(Int.random(in: 30_000...150_000, using: &generator))), forKey: "salary")
            try person.setRelatedObject(departments.randomElement(using: &generator)!, forKey: "department")
        }
    }
}
