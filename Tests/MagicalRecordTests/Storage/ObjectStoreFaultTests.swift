import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The object layer under power loss and I/O errors: after a cut at any I/O of a series
/// of saves, the store holds the objects of one save at or after the last acknowledged
/// one, and its indexes and relationships agree with its records; a save that fails on
/// an I/O error is a typed store error, keeps the context's changes for a retry, and
/// commits nothing.
@Suite struct ObjectStoreFaultTests {
    static let path = "/objects.store"

    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Person", relatedBy: "personID") {
                    AttributeDescription("personID", .integer64, optional: false)
                    AttributeDescription("name", .string, indexed: true)
                    RelationshipDescription("department", to: "Department", inverse: "people")
                },
                EntityDescription("Department", relatedBy: "departmentID") {
                    AttributeDescription("departmentID", .integer64, optional: false)
                    RelationshipDescription("people", to: "Person", inverse: "department", toMany: true)
                },
            ])
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    /// The saves: imports by key, changes, deletes; each a JSON import or deletions of
    /// people whose key is divisible by a number.
    enum Save { case importing(String), deleting(divisibleBy: Int64) }

    static func saves(seed: UInt64) -> [Save] {
        var random = SplitMix64(seed: seed)
        return (0..<4).map { round in
            if round == 2 { return .deleting(divisibleBy: Int64.random(in: 2...4, using: &random)) }
            let records = (0..<25).map { _ in
                let key = Int.random(in: 0..<60, using: &random)
                return #"{"personID": \#(key), "name": "n\#(Int.random(in: 0..<20, using: &random))", "department": \#(key % 3)}"#
            }
            return .importing("[" + records.joined(separator: ",") + "]")
        }
    }

    static func open(_ fileSystem: any StorageFileSystem) throws(MagicalRecordError) -> ObjectStack {
        let options = StoreOptions(durability: .full, pageSize: 512, cacheBytes: 64 << 10, fileSystem: fileSystem)
        return ObjectStack(store: try ObjectStore(path: path, model: model, options: options))
    }

    static func perform(_ save: Save, in context: ManagedObjectContext) throws {
        switch save {
        case .importing(let json):
            try context.importRecords(from: Data(json.utf8), entityName: "Person")
        case .deleting(let divisor):
            for person in try context.fetch(FetchRequest(entityName: "Person")) where person["personID"].integerValue.map({ $0 % divisor == 0 }) == true {
                try context.delete(person)
            }
        }
    }

    /// Every person as "key name department", sorted; nil when the store is unreadable.
    static func dump(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Person")).map { person in
            let department = try person.relatedObject(forKey: "department")?["departmentID"] ?? .null
            return "\(person["personID"]) \(person["name"]) \(department)"
        }.sorted()
    }

    /// The objects after each save the workload attempted (the first: none), and how many
    /// saves were acknowledged before the first error.
    static func run(_ saves: [Save], on fileSystem: any StorageFileSystem) -> (states: [[String]], acknowledged: Int, error: MagicalRecordError?) {
        var states: [[String]] = [[]]
        var acknowledged = 0
        do {
            let stack = try open(fileSystem)
            let (_, main) = stack.makeContexts()
            for save in saves {
                try perform(save, in: main)
                states.append(try dump(main))
                try main.saveToPersistentStore()
                acknowledged += 1
            }
            try stack.store.close()
            return (states, acknowledged, nil)
        } catch let error as MagicalRecordError {
            return (states, acknowledged, error)
        } catch {
            Issue.record("untyped error \(error)")
            return (states, acknowledged, nil)
        }
    }

    /// Opens what is left and checks it holds a whole save at or after the last
    /// acknowledged one, its name index agrees with its records, and it takes a save.
    static func expectRecovered(_ states: [[String]], acknowledged: Int, on fileSystem: any StorageFileSystem, context: String) {
        guard fileSystem.fileExists(at: path) else {
            #expect(acknowledged == 0, "the store vanished: \(context)")
            return
        }
        do {
            let stack = try open(fileSystem)
            let (_, main) = stack.makeContexts()
            let objects = try dump(main)
            #expect(states[acknowledged...].contains(objects), "not the state of a save at or after the last acknowledged one: \(context)")
            for name in Set(try main.fetch(FetchRequest(entityName: "Person")).map { $0["name"] }) {
                guard case .string(let text) = name else { continue }
                let byIndex = try main.count(for: FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "name == %@", text)))
                let byScan = try main.fetch(FetchRequest(entityName: "Person")).filter { $0["name"] == name }.count
                #expect(byIndex == byScan, "the name index disagrees with the records for \(text): \(context)")
            }
            let added = try main.insertObject(entityName: "Person")
            try added.setValue(.integer(1_000), forKey: "personID")
            try main.saveToPersistentStore()
            try stack.store.close()
            #expect(try StoreChecker(path: path, fileSystem: fileSystem).run().problems == [], "\(context)")
        } catch {
            Issue.record("recovery failed: \(error) (\(context))")
        }
    }

    @Test func powerLossAfterEveryIOOperationOfASeriesOfSaves() throws {
        var trials = 0
        for seed in 1...UInt64(4 * testScale) {
            let saves = Self.saves(seed: seed)
            let counter = FaultInjectingFileSystem()
            #expect(Self.run(saves, on: counter).error == nil)
            let total = counter.operationCount
            for cut in 0...total {
                for policy in [MemoryFileSystem.PowerLossPolicy.dropAllUnsynced, .tearLastWrite(boundary: 512), .reorder] {
                    let memory = MemoryFileSystem()
                    let faulty = FaultInjectingFileSystem(base: memory)
                    faulty.cutPower(afterOperation: cut)
                    let outcome = Self.run(saves, on: faulty)
                    memory.simulatePowerLoss(policy, seed: UInt64(cut))
                    Self.expectRecovered(outcome.states, acknowledged: outcome.acknowledged, on: memory, context: "seed \(seed), cut after \(cut) of \(total), \(policy)")
                    trials += 1
                }
            }
        }
        print("object layer power loss: \(trials) trials")
    }

    @Test func anIOErrorDuringASaveIsTypedKeepsTheChangesAndCommitsNothing() throws {
        let saves = Self.saves(seed: 5)
        let counter = FaultInjectingFileSystem()
        #expect(Self.run(saves, on: counter).error == nil)
        var trials = 0
        for failing in 1...counter.operationCount {
            let faulty = FaultInjectingFileSystem()
            faulty.inject(InjectedFault(kinds: Set(IOOperationKind.allCases), atOperation: failing, errno: failing % 2 == 0 ? EIO : ENOSPC))
            let outcome = Self.run(saves, on: faulty)
            guard let error = outcome.error else { continue }
            guard case .store = error else {
                Issue.record("operation \(failing): not a store error: \(error)")
                continue
            }
            faulty.clearFaults()
            Self.expectRecovered(outcome.states, acknowledged: outcome.acknowledged, on: faulty, context: "operation \(failing) failed")
            trials += 1
        }
        print("object layer I/O errors: \(trials) trials")
        // A failed save keeps the context's changes: after the fault clears, the same
        // context saves them.
        let faulty = FaultInjectingFileSystem()
        let stack = try Self.open(faulty)
        let (_, main) = stack.makeContexts()
        try Self.perform(saves[0], in: main)
        let pending = try Self.dump(main)
        faulty.inject(InjectedFault(kinds: [.grow], atOperation: 1, errno: ENOSPC))
        #expect(throws: MagicalRecordError.self) { try main.saveToPersistentStore() }
        #expect(try Self.dump(main) == pending)
        faulty.clearFaults()
        try main.saveToPersistentStore()
        let (_, fresh) = stack.makeContexts()
        #expect(try Self.dump(fresh) == pending)
    }
}
