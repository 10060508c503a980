import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// What a save writes into the store: records, index entries equal to the records, and
/// the key's uniqueness judged on the state the save leaves (so keys may change hands
/// within one save), checked against a plain-Swift reference over random saves.
@Suite struct CommitWriterTests {
    /// Employee (key employeeID, indexed lastName and age) from the fetch suites' model.
    private func employee(_ id: Int64, _ lastName: String?, in context: ManagedObjectContext) throws -> ManagedObject {
        try context.insert("Employee", ["employeeID": .integer(id), "lastName": lastName.map(AttributeValue.string) ?? .null])
    }

    @Test func twoObjectsMaySwapKeysInOneSave() throws {
        let stack = try FetchStack()
        let first = try employee(1, "One", in: stack.main)
        let second = try employee(2, "Two", in: stack.main)
        try stack.main.saveToPersistentStore()

        try first.setValue(.integer(2), forKey: "employeeID")
        try second.setValue(.integer(1), forKey: "employeeID")
        try stack.main.saveToPersistentStore()
        try expectIndexesMatchRecords(stack)
        #expect(try stack.root.fetch(try fetchRequest("Employee", "employeeID == 1")).map { $0["lastName"] } == [.string("Two")])
    }

    @Test func aKeyMayPassToANewObjectInTheSaveThatFreesIt() throws {
        let stack = try FetchStack()
        let old = try employee(1, "Old", in: stack.main)
        try stack.main.saveToPersistentStore()
        try old.setValue(.integer(9), forKey: "employeeID")
        _ = try employee(1, "New", in: stack.main)
        try stack.main.saveToPersistentStore()
        try expectIndexesMatchRecords(stack)
    }

    /// States a writer read before another commit came between are not trusted: the
    /// index entries of the values stored now are the ones replaced.
    @Test func storedStatesReadBeforeAnotherCommitAreReadAgain() throws {
        let stack = try FetchStack()
        let object = try employee(1, "First", in: stack.main)
        try stack.main.saveToPersistentStore()
        let snapshot = try stack.store.snapshot()
        let readEarly = try #require(try snapshot.state(of: object.objectID))
        try object.setValue(.string("Second"), forKey: "lastName")
        try stack.main.saveToPersistentStore()

        var changes = ChangeSet()
        var third = readEarly
        third.attributes[try #require(object.entity.slot(ofAttribute: "lastName"))] = .string("Third")
        changes.upserts = [third]
        changes.storedBefore = StoredStates(transactionID: snapshot.transaction.transactionID, states: [readEarly], isRead: [true])
        try stack.store.commit(changes)
        try expectIndexesMatchRecords(stack)
    }

    /// Keys a writer found absent are looked for again when another commit came between:
    /// that commit may have taken them.
    @Test func keysFoundAbsentBeforeAnotherCommitAreLookedForAgain() throws {
        let stack = try FetchStack()
        let snapshot = try stack.store.snapshot()
        _ = try employee(7, "Taken meanwhile", in: stack.main)
        try stack.main.saveToPersistentStore()

        let entity = try #require(FetchModel.model.entity(named: "Employee"))
        var state = ObjectState(id: ObjectID(entityName: "Employee", number: stack.store.allocateNumber()), entity: entity)
        state.attributes[try #require(entity.slot(ofAttribute: "employeeID"))] = .integer(7)
        var changes = ChangeSet()
        changes.upserts = [state]
        changes.upsertFlags = [[.inserted, .keyKnownAbsent]]
        changes.storedBefore = StoredStates(transactionID: snapshot.transaction.transactionID, states: [], isRead: [])
        let failure = fetchFailure { () throws(MagicalRecordError) in try stack.store.commit(changes) }
        guard case .validation(let failures)? = failure, case .duplicateKey(attribute: "employeeID", value: .integer(7))? = failures.first?.reason else {
            Issue.record("expected a duplicate key, got \(String(describing: failure))")
            return
        }
        try expectIndexesMatchRecords(stack)
    }

    /// Regression test (found by FuzzImport): an indexed value longer than an index key
    /// may be made the save fail with the engine's "key too large" instead of a validation
    /// failure naming the object and attribute.
    @Test func anIndexedValueTooLongToIndexIsRefusedWithNothingWritten() throws {
        let stack = try FetchStack()
        _ = try employee(1, "Kept", in: stack.main)
        try stack.main.saveToPersistentStore()
        let long = try employee(2, String(repeating: "x", count: 5_000), in: stack.main)
        let failure = fetchFailure { () throws(MagicalRecordError) in try stack.main.saveToPersistentStore() }
        guard case .validation(let failures)? = failure, let first = failures.first,
              case .tooLongToIndex(attribute: "lastName", let bytes, let limit) = first.reason else {
            Issue.record("expected a validation failure, got \(String(describing: failure))")
            return
        }
        #expect(first.object == long.objectID && bytes > limit)
        #expect(first.description.contains("lastName is too long to index"))
        #expect(try stack.store.snapshot().count(of: #require(FetchModel.model.entity(named: "Employee"))) == 1)
        try expectIndexesMatchRecords(stack)
    }

    @Test func twoNewObjectsWithOneKeyAreRefusedWithNothingWritten() throws {
        let stack = try FetchStack()
        _ = try employee(1, "Kept", in: stack.main)
        try stack.main.saveToPersistentStore()
        _ = try employee(7, "A", in: stack.main)
        _ = try employee(7, "B", in: stack.main)
        _ = try employee(8, "C", in: stack.main)
        let failure = fetchFailure { () throws(MagicalRecordError) in try stack.main.saveToPersistentStore() }
        guard case .validation(let failures)? = failure else {
            Issue.record("expected a validation failure, got \(String(describing: failure))")
            return
        }
        #expect(failures.map(\.reason) == [.duplicateKey(attribute: "employeeID", value: .integer(7))])
        #expect(try stack.store.snapshot().count(of: #require(FetchModel.model.entity(named: "Employee"))) == 1)
        try expectIndexesMatchRecords(stack)
    }

    /// Random saves of inserts, key and attribute changes and deletes: after each, the
    /// store holds what the reference holds, with every index equal to its records, and a
    /// save is refused exactly when it would leave two objects with one key.
    @Test(arguments: 0..<8) func randomSavesKeepIndexesEqualToRecords(seed: UInt64) throws {
        let stack = try FetchStack()
        var random = SplitMix64(seed: seed &+ 101)
        var reference: [ObjectID: (key: Int64?, lastName: String?, age: Int64?)] = [:]
        var objects: [ObjectID: ManagedObject] = [:]
        for _ in 0..<25 {
            var pending = reference
            for _ in 0..<Int(1 + random.next() % 12) {
                let key: Int64? = Int64(random.next() % 30)
                let lastName: String? = random.next() % 4 == 0 ? nil : ["Ng", "Ode", "Pym", "Quo"][Int(random.next() % 4)]
                let age: Int64? = random.next() % 4 == 0 ? nil : Int64(random.next() % 5)
                let existing = pending.keys.sorted()
                switch random.next() % 4 {
                case 0 where !existing.isEmpty:
                    let id = existing[Int(random.next() % UInt64(existing.count))]
                    try stack.main.delete(objects[id]!)
                    pending[id] = nil
                case 1 where !existing.isEmpty:
                    let id = existing[Int(random.next() % UInt64(existing.count))]
                    let object = objects[id]!
                    try object.setValue(key.map(AttributeValue.integer) ?? .null, forKey: "employeeID")
                    try object.setValue(age.map(AttributeValue.integer) ?? .null, forKey: "age")
                    pending[id] = (key, pending[id]!.lastName, age)
                default:
                    let object = try stack.main.insert("Employee", [
                        "employeeID": key.map(AttributeValue.integer) ?? .null, "age": age.map(AttributeValue.integer) ?? .null,
                        "lastName": lastName.map(AttributeValue.string) ?? .null,
                    ])
                    objects[object.objectID] = object
                    pending[object.objectID] = (key, lastName, age)
                }
            }
            let keys = pending.values.compactMap(\.key)
            let unique = Set(keys).count == keys.count
            let outcome = fetchFailure { () throws(MagicalRecordError) in try stack.main.saveToPersistentStore() }
            if unique {
                #expect(outcome == nil, "a save with unique keys fails: \(String(describing: outcome))")
                reference = pending
            } else {
                guard case .validation(let failures)? = outcome else {
                    Issue.record("a save leaving duplicate keys gave \(String(describing: outcome))")
                    return
                }
                #expect(failures.allSatisfy { if case .duplicateKey = $0.reason { true } else { false } })
                // The refused changes wait in the root (the main context handed them over).
                stack.root.reset()
                stack.main.reset()
                objects = Dictionary(uniqueKeysWithValues: try stack.main.fetch(FetchRequest(entityName: "Employee")).map { ($0.objectID, $0) })
            }
            try expectIndexesMatchRecords(stack)
            var stored: [ObjectID: (key: Int64?, lastName: String?, age: Int64?)] = [:]
            for object in try stack.root.fetch(FetchRequest(entityName: "Employee")) {
                stored[object.objectID] = (object["employeeID"].integerValue, object["lastName"].stringValue, object["age"].integerValue)
            }
            #expect(stored.count == reference.count)
            for (id, expected) in reference {
                let found = stored[id]
                #expect(found?.key == expected.key && found?.lastName == expected.lastName && found?.age == expected.age, "\(id)")
            }
        }
    }

    /// Every index tree of Employee holds exactly one entry per record, for its value.
    private func expectIndexesMatchRecords(_ stack: FetchStack, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let snapshot = try stack.store.snapshot()
        let entity = try #require(FetchModel.model.entity(named: "Employee"))
        var states: [ObjectState] = []
        try snapshot.scan("Employee") { state in
            states.append(state)
            return true
        }
        for attribute in entity.indexedAttributes {
            let position = try #require(entity.slot(ofAttribute: attribute))
            let expected = Set(states.map { StoreLayout.indexKey($0.attributes[position], $0.id.number) })
            var actual: Set<[UInt8]> = []
            try withStoreErrors {
                try snapshot.transaction.tree(StoreLayout.indexTree("Employee", attribute)).scan(.all) { key, _ in
                    actual.insert(key)
                    return true
                }
            }
            #expect(actual == expected, "index \(attribute)", sourceLocation: sourceLocation)
        }
    }
}
