import Foundation
import MagicalStore

/// Migrating a store file to a model version explicitly, as `mrstore migrate` does; the
/// auto-migrating setups do the same when they open a store.
///
/// ```swift
/// let versions = try ModelVersions(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
/// let plan = try StoreMigration.plan(storeAt: url, to: versions)
/// print(plan)                      // each change, how, whether it rewrites data
/// try StoreMigration.migrate(storeAt: url, to: versions)
/// ```
public enum StoreMigration {
    /// What migrating the store at `url` to `versions.current` would do; opens the store
    /// read-only and writes nothing. The plan lists incompatibilities rather than throwing.
    public static func plan(
        storeAt url: URL, to versions: ModelVersions, options: MigrationOptions = MigrationOptions()
    ) throws(MagicalRecordError) -> MigrationPlan {
        let store = try withStoreErrors { try Store(path: url.path, options: StoreOptions(readOnly: true, createIfMissing: false)) }
        defer { try? store.close() }
        guard let metadata = try withStoreErrors({ try StoreMetadata.load(from: store) }) else {
            throw .notAnObjectStore(path: url.path)
        }
        return try StoreMigrator(store: store, metadata: metadata, versions: versions, options: options).plan()
    }

    /// Migrates the store at `url` to `versions.current` in one crash-safe step and returns
    /// what was done. Throws ``MagicalRecordError/migrationRefused(path:incompatibilities:)``
    /// (nothing written) when a change needs user code `options` does not supply, and
    /// ``MagicalRecordError/migrationFailed(path:reason:)`` (nothing written) when it stops
    /// while running. A store already at the target is left untouched.
    @discardableResult
    public static func migrate(
        storeAt url: URL, to versions: ModelVersions, options: MigrationOptions = MigrationOptions(), durability: Durability = .full
    ) throws(MagicalRecordError) -> MigrationPlan {
        let store = try withStoreErrors { try Store(path: url.path, options: StoreOptions(durability: durability, createIfMissing: false)) }
        defer { try? store.close() }
        guard let metadata = try withStoreErrors({ try StoreMetadata.load(from: store) }) else {
            throw .notAnObjectStore(path: url.path)
        }
        var migrator = StoreMigrator(store: store, metadata: metadata, versions: versions, options: options)
        let plan = try migrator.plan()
        guard metadata.model.versionHash != versions.current.versionHash else { return plan }
        // The migration reads the store's to-manys in this library's format.
        migrator = StoreMigrator(store: store, metadata: try MemberRunConversion.raise(store, metadata), versions: versions, options: options)
        _ = try migrator.migrate(plan)
        return plan
    }
}
