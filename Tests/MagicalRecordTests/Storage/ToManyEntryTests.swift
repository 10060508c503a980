import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// To-many entries (Spec O13): an unordered one's value is the target's entity code
/// alone, its number being the key's last part; an ordered one keeps the number; values
/// written before O13, with the number, still read. Format 3 keeps unordered ones as runs
/// of members (O14): a store of format 2 is raised to them.
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

    /// A store of format 2 keeps an entry per member of an unordered to-many: opened
    /// read-only it reads as it is, opened for writing it is raised to runs of members
    /// (O14), values written before O13 included.
    @Test func membersOfAFormat2StoreReadAndAreRaisedToRuns() throws {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        let path = "/format2.store"
        func open(readOnly: Bool = false) throws -> ObjectStore {
            try ObjectStore(path: path, model: FetchModel.model, options: StoreOptions(durability: .none, readOnly: readOnly, fileSystem: fileSystem))
        }
        let store = try open()
        let main = ObjectStack(store: store).makeContexts().main
        let department = try main.insert("Department", ["departmentID": .integer(1)])
        var employees: [ObjectID] = []
        for id in 1...50 {
            let employee = try main.insert("Employee", ["employeeID": .integer(Int64(id))])
            try employee.setRelatedObject(department, forKey: "department")
            employees.append(employee.objectID)
        }
        try main.saveToPersistentStore()
        let code = try #require(store.slots.entityCode("Employee"))
        try store.close()

        let tree = StoreLayout.relationshipTree("Department", "employees")
        let engine = try Store(path: path, options: StoreOptions(durability: .none, fileSystem: fileSystem))
        try engine.write { transaction in
            try transaction.dropTree(tree)
            let entries = try transaction.createTree(tree)
            for (index, employee) in employees.enumerated() {
                // One as a library before O13 wrote it: the number in the value too.
                let value = index == 7
                    ? StoreLayout.targetValue(code: code, number: employee.number, ordered: true)
                    : StoreLayout.targetValue(code: code, number: employee.number, ordered: false)
                try entries.put(KeyEncoding.encode(.int(department.objectID.number), .int(employee.number)), value)
            }
            try StoreMetadata.save(format: 2, in: transaction)
        }
        try engine.close()

        let relationship = try #require(FetchModel.model.entity(named: "Department")?.relationships.first { $0.name == "employees" })
        let readOnly = try open(readOnly: true)
        #expect(readOnly.format == 2)
        #expect(try readOnly.snapshot().targets(of: department.objectID, relationship) == employees)
        try readOnly.close()

        let raised = try open()
        #expect(raised.format == StoreMetadata.currentFormat)
        #expect(try raised.snapshot().targets(of: department.objectID, relationship) == employees)
        var runs = 0
        try raised.store.read().tree(tree).scan(.all) { key, value in
            runs += 1
            #expect(key == MemberChunk.key(source: department.objectID.number, last: employees.last!.number))
            #expect(value.count < 60)
            return true
        }
        #expect(runs == 1)
        #expect(try raised.store.read().tree(StoreLayout.metadataTree).get(StoreMetadata.Key.format) == Array(String(StoreMetadata.currentFormat).utf8))
        try raised.close()
    }

    @Test func aMalformedEntryOfAFormat2StoreStopsItsRaising() throws {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        let path = "/damaged2.store"
        let options = StoreOptions(durability: .none, fileSystem: fileSystem)
        try ObjectStore(path: path, model: FetchModel.model, options: options).close()
        let tree = StoreLayout.relationshipTree("Department", "employees")
        let engine = try Store(path: path, options: options)
        try engine.write { transaction in
            try transaction.tree(tree).put(KeyEncoding.encode(.int(1), .int(2)), [0x80])
            try StoreMetadata.save(format: 2, in: transaction)
        }
        try engine.close()
        let result = Result { () throws(MagicalRecordError) in try ObjectStore(path: path, model: FetchModel.model, options: options) }
        guard case .failure(.damagedMetadata(let reason)) = result else {
            Issue.record("opened: \(result)")
            return
        }
        #expect(reason.contains(tree))
        // Nothing was written: the store is still of format 2.
        let reopened = try Store(path: path, options: StoreOptions(durability: .none, readOnly: true, fileSystem: fileSystem))
        #expect(try reopened.read().tree(StoreLayout.metadataTree).get(StoreMetadata.Key.format) == Array("2".utf8))
        try reopened.close()
    }
}
