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
