import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The object format in the metadata (Spec/OBJECT-STORE.md section 2): recorded when a
/// store is made, raised when an older store is opened for writing, and a newer one refused
/// with both formats named.
@Suite struct ObjectFormatTests {
    private let fileSystem = MemoryFileSystem(tracksDurability: false)
    private let path = "/format.store"

    private func open(readOnly: Bool = false) throws(MagicalRecordError) -> ObjectStore {
        try ObjectStore(path: path, model: FetchModel.model, options: StoreOptions(durability: .none, readOnly: readOnly, fileSystem: fileSystem))
    }

    private func storedFormat() throws -> String? {
        let store = try Store(path: path, options: StoreOptions(durability: .none, readOnly: true, fileSystem: fileSystem))
        defer { try? store.close() }
        return try store.read().tree(StoreLayout.metadataTree).get(StoreMetadata.Key.format).map { String(decoding: $0, as: UTF8.self) }
    }

    private func setFormat(_ format: String?) throws {
        let store = try Store(path: path, options: StoreOptions(durability: .none, fileSystem: fileSystem))
        defer { try? store.close() }
        try store.write { transaction in
            let tree = try transaction.tree(StoreLayout.metadataTree)
            if let format { try tree.put(StoreMetadata.Key.format, Array(format.utf8)) } else { _ = try tree.delete(StoreMetadata.Key.format) }
        }
    }

    @Test func aNewStoreRecordsThisLibrarysFormat() throws {
        try open().close()
        #expect(try storedFormat() == String(StoreMetadata.currentFormat))
    }

    @Test func anOlderStoreIsRaisedWhenOpenedForWritingOnly() throws {
        try open().close()
        try setFormat(nil)
        try open(readOnly: true).close()
        #expect(try storedFormat() == nil)
        try open().close()
        #expect(try storedFormat() == String(StoreMetadata.currentFormat))
    }

    /// A store of format 3 holds its records as offset tables (O11): opened read-only they
    /// read as they are, through fetches, filters, sorts and counts; opened for writing the
    /// store is raised to format 4 and keeps them until a save rewrites one as a value list.
    @Test func offsetTablesOfAFormat3StoreReadAndStayUntilRewritten() throws {
        let store = try open()
        let main = ObjectStack(store: store).makeContexts().main
        for id in 1...40 {
            _ = try main.insert("Employee", [
                "employeeID": .integer(Int64(id)), "firstName": .string("F\(id % 7)"), "lastName": .string(String(repeating: "L", count: id)),
                "age": .integer(Int64(20 + id % 30)), "height": .double(1.5 + Double(id) / 100), "born": .date(Date(timeIntervalSince1970: Double(id) * 86_400)),
            ])
        }
        try main.saveToPersistentStore()
        try store.close()
        func employees(_ store: ObjectStore, _ format: String? = nil) throws -> [[AttributeValue]] {
            let context = ObjectStack(store: store).makeContexts().main
            let request = FetchRequest(
                entityName: "Employee", predicate: try ObjectPredicate(format: format ?? "age > 30 AND lastName BEGINSWITH 'LL'"),
                sortKeys: [SortKey("height", ascending: false)]
            )
            return try context.fetch(request).map { object in try ["employeeID", "firstName", "lastName", "age", "height", "born"].map(object.attributeValue(forKey:)) }
        }
        let expected = try employees(try open(readOnly: true))
        #expect(expected.count == 19)

        let objectTree = StoreLayout.objectTree("Employee")
        let engine = try Store(path: path, options: StoreOptions(durability: .none, fileSystem: fileSystem))
        var records: [(key: [UInt8], value: [UInt8])] = []
        try engine.read().tree(objectTree).scan(.all) { key, value in
            records.append((Array(key), Array(value)))
            return true
        }
        #expect(records.count == 40 && records.allSatisfy { $0.value[0] == RecordLayout.valueList })
        try engine.write { transaction in
            let tree = try transaction.tree(objectTree)
            for record in records { try tree.put(record.key, OffsetTableRecords.offsetTable(from: record.value)) }
        }
        try engine.close()
        try setFormat("3")

        let readOnly = try open(readOnly: true)
        #expect(readOnly.format == 3)
        #expect(try employees(readOnly) == expected)
        #expect(try ObjectStack(store: readOnly).makeContexts().main.count(for: FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "height > 1.7"))) == 20)
        try readOnly.close()

        let raised = try open()
        #expect(raised.format == StoreMetadata.currentFormat)
        #expect(try storedFormat() == String(StoreMetadata.currentFormat))
        #expect(try employees(raised) == expected)
        let context = ObjectStack(store: raised).makeContexts().main
        let first = try #require(try context.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "employeeID == 1"))).first)
        try first.setValue(.string("Renamed"), forKey: "firstName")
        try context.saveToPersistentStore()
        var layouts: [UInt8: Int] = [:]
        try raised.store.read().tree(objectTree).scan(.all) { _, value in
            layouts[value[0], default: 0] += 1
            return true
        }
        #expect(layouts == [RecordLayout.valueList: 1, OffsetTableRecords.firstVersionWithCompactNumbers: 39])
        #expect(try employees(raised, "firstName == 'Renamed'").map { $0[0] } == [.integer(1)])
        try raised.close()
    }

    @Test func aNewerStoreIsRefusedNamingBothFormats() throws {
        try open().close()
        try setFormat(String(StoreMetadata.currentFormat + 1))
        let result = Result { () throws(MagicalRecordError) in try open() }
        guard case .failure(.newerObjectFormat(let failedPath, let format, let readable)) = result else {
            Issue.record("opened: \(result)")
            return
        }
        #expect(failedPath == path && format == StoreMetadata.currentFormat + 1 && readable == StoreMetadata.currentFormat)
        #expect(try storedFormat() == String(StoreMetadata.currentFormat + 1))
    }

    @Test func aFormatThatIsNotANumberIsDamagedMetadata() throws {
        try open().close()
        try setFormat("two")
        let result = Result { () throws(MagicalRecordError) in try open() }
        guard case .failure(.damagedMetadata) = result else {
            Issue.record("opened: \(result)")
            return
        }
    }
}
