import Foundation
import Testing
@testable import MagicalRecord
import MagicalStore

/// `mrstore migrate`: the plan, refusals that leave the store untouched, and kill -9 at
/// random moments of a migration that rewrites every record: the store is always at the
/// old model or the new one, whole, and passes `check`.
@Suite struct MigrateCommandTests {
    typealias Command = MRStoreCommandTests

    /// The demo's model with Person.age widened to Double (records rewritten), lastName
    /// renamed to surname (index kept) and a new nickname.
    static func targetModel(from store: String) throws -> ObjectModel {
        let stack = try PersistentStack(storeAt: URL(fileURLWithPath: store), readOnly: true)
        defer { try? stack.close() }
        var entities = stack.model.declarations
        let person = try #require(entities.firstIndex { $0.name == "Person" })
        for index in entities[person].attributes.indices {
            switch entities[person].attributes[index].name {
            case "age":
                entities[person].attributes[index].type = .double
                entities[person].attributes[index].defaultValue = .double(0)
            case "lastName":
                entities[person].attributes[index].name = "surname"
                entities[person].attributes[index].renamingIdentifier = "lastName"
            default: break
            }
        }
        entities[person].attributes.append(AttributeDescription("nickname", .string))
        return try ObjectModel(entities: entities, versionName: "Demo 2")
    }

    static func writeModel(_ model: ObjectModel, to path: String) throws {
        try JSONModelDescription(model).encoded(prettyPrinted: true).write(to: URL(fileURLWithPath: path))
    }

    @Test func dryRunPrintsThePlanAndChangesNothingThenMigrateDoesIt() throws {
        let directory = Command.Directory()
        let store = directory.path + "/demo.store"
        #expect(try Command.run("demo", store, "--records", "500").status == 0)
        let model = directory.path + "/v2.json"
        try Self.writeModel(try Self.targetModel(from: store), to: model)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))

        let dry = try Command.run("migrate", store, "--model", model, "--dry-run")
        #expect(dry.status == 0, "\(dry.errors)")
        #expect(dry.output.contains("Person.age: type changed from Integer 16 to Double: records rewritten (500 objects)"), "\(dry.output)")
        #expect(dry.output.contains("Person.surname: renamed from lastName: slot kept, nothing rewritten"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)

        let migrate = try Command.run("migrate", store, "--model", model)
        #expect(migrate.status == 0, "\(migrate.errors)")
        #expect(migrate.output.contains("migrated"))
        let count = try Command.run("count", store, "--entity", "Person", "--where", "surname != nil AND age >= 18.0")
        #expect(count.output.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("500"), "\(count.output) \(count.errors)")
        #expect(try Command.run("check", store).status == 0)
        #expect(try Command.run("model", store).output.hasPrefix("migrated from: Demo ("))
        // Already there: nothing to do.
        let again = try Command.run("migrate", store, "--model", model)
        #expect(again.status == 0)
        #expect(again.output.contains("no changes"))
    }

    @Test func anIncompatibleModelExitsTwoWithTheListAndTheStoreIsUntouched() throws {
        let directory = Command.Directory()
        let store = directory.path + "/demo.store"
        #expect(try Command.run("demo", store, "--records", "200").status == 0)
        let stack = try PersistentStack(storeAt: URL(fileURLWithPath: store), readOnly: true)
        var entities = stack.model.declarations
        try stack.close()
        let person = try #require(entities.firstIndex { $0.name == "Person" })
        let firstName = try #require(entities[person].attributes.firstIndex { $0.name == "firstName" })
        entities[person].attributes[firstName].type = .date
        let model = directory.path + "/bad.json"
        try Self.writeModel(try ObjectModel(entities: entities, versionName: "Bad"), to: model)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let result = try Command.run("migrate", store, "--model", model)
        #expect(result.status == 2)
        #expect(result.output.contains("Person.firstName: type changed from String to Date"), "\(result.output)")
        #expect(result.errors.contains("nothing was changed"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    /// MAGICALRECORD_MIGRATION_KILLS trials (default 6) of SIGKILL during a migration of a
    /// store of MAGICALRECORD_MIGRATION_RECORDS people (default 20,000).
    @Test func aKillAtAnyMomentLeavesTheOldModelOrTheNewOneWhole() throws {
        let trials = ProcessInfo.processInfo.environment["MAGICALRECORD_MIGRATION_KILLS"].flatMap(Int.init) ?? 6
        let records = ProcessInfo.processInfo.environment["MAGICALRECORD_MIGRATION_RECORDS"].flatMap(Int.init) ?? 20_000
        let directory = Command.Directory()
        let pristine = directory.path + "/pristine.store"
        #expect(try Command.run("demo", pristine, "--records", String(records)).status == 0)
        let target = try Self.targetModel(from: pristine)
        let model = directory.path + "/v2.json"
        try Self.writeModel(target, to: model)
        let oldHash = try PersistentStack(storeAt: URL(fileURLWithPath: pristine), readOnly: true).model.versionHash

        // How long an uninterrupted migration takes, to spread the kills over it.
        let timed = directory.path + "/timed.store"
        try FileManager.default.copyItem(atPath: pristine, toPath: timed)
        let started = Date()
        #expect(try Command.run("migrate", timed, "--model", model).status == 0)
        let duration = Date().timeIntervalSince(started)

        var generator = SplitMix64(seed: 7)
        var outcomes: [String: Int] = [:]
        for trial in 0..<trials {
            let store = directory.path + "/trial-\(trial).store"
            try FileManager.default.copyItem(atPath: pristine, toPath: store)
            let process = Process()
            process.executableURL = Command.executable
            process.arguments = ["migrate", store, "--model", model]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Some kills land after the commit (or the exit): those must find the new model.
            let delay = 1.4 * duration * Double(generator.next() % 1000) / 1000
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let reopened = try PersistentStack(storeAt: URL(fileURLWithPath: store), readOnly: true)
            let hash = reopened.model.versionHash
            #expect(hash == oldHash || hash == target.versionHash, "trial \(trial): hash \(hash)")
            let people = try reopened.rootContext.fetch(FetchRequest(entityName: "Person"))
            #expect(people.count == records, "trial \(trial)")
            let migrated = hash == target.versionHash
            if let sample = people.first {
                let age = try sample.attributeValue(forKey: "age")
                if migrated { #expect(age.doubleValue != nil && age.integerValue == nil, "trial \(trial): \(age)") }
                #expect(try sample.attributeValue(forKey: migrated ? "surname" : "lastName") != .null)
            }
            try reopened.close()
            // Opening for writing truncates a torn tail; then the file checks clean.
            try PersistentStack(storeAt: URL(fileURLWithPath: store)).close()
            #expect(try StoreChecker(path: store).run().isSound, "trial \(trial)")
            outcomes[migrated ? "new" : "old", default: 0] += 1
            try FileManager.default.removeItem(atPath: store)
        }
        print("migration kill trials: \(trials), store at the old model \(outcomes["old"] ?? 0), at the new one \(outcomes["new"] ?? 0); uninterrupted migration of \(records) people took \(String(format: "%.3f", duration)) s")
    }
}
