import Foundation
import MagicalStore
@testable import MagicalRecord

/// A store file in a temporary directory, written and migrated through the public API.
final class MigrationFixture {
    let directory: URL
    var url: URL { directory.appendingPathComponent("m.store") }

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("migration-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A model from the entities of a JSON model description's version (Spec/MODEL.md).
    static func model(_ name: String, _ entities: String) throws -> ObjectModel {
        let json = #"{"format": "MagicalRecord model", "formatVersion": 1, "versions": [{"name": "\#(name)", "entities": \#(entities)}]}"#
        return try JSONModelDescription(data: Data(json.utf8)).versions.current
    }

    /// Opens the store with `model` (creating it), runs `body` on the root context, saves, closes.
    func write(_ model: ObjectModel, _ body: (ManagedObjectContext) throws -> Void) throws {
        let stack = try PersistentStack(storeAt: url, model: model, durability: .normal)
        try body(stack.rootContext)
        try stack.rootContext.save()
        try stack.close()
    }

    /// Opens the store migrating to `versions.current`.
    func open(_ versions: ModelVersions, options: MigrationOptions = MigrationOptions()) throws(MagicalRecordError) -> PersistentStack {
        try PersistentStack(storeAt: url, versions: versions, durability: .normal, onModelMismatch: .migrate(options))
    }

    func open(_ model: ObjectModel, options: MigrationOptions = MigrationOptions()) throws(MagicalRecordError) -> PersistentStack {
        try open(ModelVersions(model), options: options)
    }

    var bytes: Data { (try? Data(contentsOf: url)) ?? Data() }

    /// The engine's checker finds nothing wrong with the file.
    var isSound: Bool { (try? StoreChecker(path: url.path).run().isSound) ?? false }
}

extension PersistentStack {
    func all(_ entity: String, sortedBy key: String? = nil) throws -> [ManagedObject] {
        try rootContext.fetch(FetchRequest(entityName: entity, sortKeys: key.map { [SortKey($0)] } ?? []))
    }

    func value(_ object: ManagedObject, _ key: String) throws -> AttributeValue {
        try object.attributeValue(forKey: key)
    }
}
