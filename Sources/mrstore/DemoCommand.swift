import ArgumentParser
import Foundation
import MagicalStore

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Write sample people into a new store and read them back.",
        discussion: "The engine's demo (until the object layer lands): writes N person records into a tree `people` keyed by id, with an index tree `people.byLastName` keyed by (lastName, id), in one durable transaction; then point lookups, an index range scan and an aggregate, with timings."
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
        let people = SamplePeople(count: records)
        let opened = try Store(path: store, options: StoreOptions(durability: .full))

        let writeTime = try clock.measure {
            try opened.write { transaction in
                try transaction.createTree("people").putBatch(people.records)
                try transaction.createTree("people.byLastName").putBatch(people.lastNameIndex)
            }
        }
        print("wrote \(records) people and their index in one transaction: \(rate(records, writeTime))")

        let snapshot = try opened.read()
        let tree = try snapshot.tree("people")
        let index = try snapshot.tree("people.byLastName")
        var generator = SplitMix64(seed: 7)
        let lookups = min(records, 100_000)
        var found = 0
        let lookupTime = try clock.measure {
            for _ in 0..<lookups {
                let id = Int64.random(in: 0..<Int64(records), using: &generator)
                if try tree.get(KeyEncoding.encode([.int(id)])) != nil { found += 1 }
            }
        }
        print("looked up \(lookups) people by id (\(found) found): \(rate(lookups, lookupTime))")

        var matches = 0
        let scanTime = try clock.measure {
            try index.scan(.prefix(KeyEncoding.encode([.string("S")]).dropLast(1).map { $0 })) { _, _ in
                matches += 1
                return true
            }
        }
        print("index scan for last names starting with S: \(matches) people: \(rate(matches, scanTime))")

        var totalAge = 0
        let aggregateTime = try clock.measure {
            try tree.scan { _, value in
                if let person = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any],
                   let age = person["age"] as? Int {
                    totalAge += age
                }
                return true
            }
        }
        print("average age over \(tree.count) people: \(String(format: "%.2f", Double(totalAge) / Double(tree.count))): \(rate(tree.count, aggregateTime))")
        try opened.close()
    }

    private func rate(_ count: Int, _ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.3f s, %.0f per second", seconds, Double(count) / max(seconds, 1e-9))
    }
}

/// Deterministic sample people: ids 0..<count in shuffled order, names from short lists.
struct SamplePeople {
    static let firstNames = ["Ada", "Bo", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kofi", "Lena", "Mateo", "Nia", "Omar", "Pia", "Quinn", "Rosa", "Sven", "Tao", "Uma", "Vera", "Wen", "Yan", "Zoe"]
    static let lastNames = ["Abbott", "Baker", "Chandra", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova", "Jensen", "Kowalski", "Larsen", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi", "Santos", "Schmidt", "Silva", "Sato", "Tanaka", "Usman", "Varga", "Weber", "Yilmaz", "Zhang"]

    let records: [(key: [UInt8], value: [UInt8])]
    let lastNameIndex: [(key: [UInt8], value: [UInt8])]

    init(count: Int) {
        var generator = SplitMix64(seed: 42)
        var records: [(key: [UInt8], value: [UInt8])] = []
        var index: [(key: [UInt8], value: [UInt8])] = []
        records.reserveCapacity(count)
        index.reserveCapacity(count)
        for id in (0..<Int64(count)).shuffled(using: &generator) {
            let firstName = Self.firstNames.randomElement(using: &generator)!
            let lastName = Self.lastNames.randomElement(using: &generator)!
            let age = Int.random(in: 18...90, using: &generator)
            let json = #"{"id":\#(id),"firstName":"\#(firstName)","lastName":"\#(lastName)","age":\#(age)}"#
            records.append((KeyEncoding.encode([.int(id)]), Array(json.utf8)))
            index.append((KeyEncoding.encode([.string(lastName), .int(id)]), []))
        }
        self.records = records
        self.lastNameIndex = index
    }
}
