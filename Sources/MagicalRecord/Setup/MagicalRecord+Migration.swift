import Foundation
import MagicalStore

/// The auto-migrating setups of seeds 000 and 004: the store is migrated to the model on
/// open, in one crash-safe step, or refused with every change that needs user code; it is
/// never deleted.
extension MagicalRecord {
    /// ``setupCoreDataStack(model:)`` migrating the store to `versions.current`, through
    /// the versions in between.
    public static func setupAutoMigratingCoreDataStack(
        versions: ModelVersions, options: MigrationOptions = MigrationOptions()
    ) throws(MagicalRecordError) {
        try setupCoreDataStackWithAutoMigratingSqliteStoreNamed(
            ProcessInfo.processInfo.processName + ".store", versions: versions, options: options
        )
    }

    /// ``setupCoreDataStack(model:)`` migrating the store to `model`.
    public static func setupAutoMigratingCoreDataStack(model: ObjectModel, options: MigrationOptions = MigrationOptions()) throws(MagicalRecordError) {
        try setupAutoMigratingCoreDataStack(versions: ModelVersions(model), options: options)
    }

    /// The store `name` in ``defaultStoreDirectory``, migrated to `versions.current`.
    /// (The name is MagicalRecord's; the store is ours, not SQLite.)
    public static func setupCoreDataStackWithAutoMigratingSqliteStoreNamed(
        _ name: String, versions: ModelVersions, options: MigrationOptions = MigrationOptions()
    ) throws(MagicalRecordError) {
        let directory = try createdDefaultStoreDirectory()
        try setupCoreDataStackWithAutoMigratingSqliteStoreAtURL(directory.appendingPathComponent(name), versions: versions, options: options)
    }

    public static func setupCoreDataStackWithAutoMigratingSqliteStoreNamed(
        _ name: String, model: ObjectModel, options: MigrationOptions = MigrationOptions()
    ) throws(MagicalRecordError) {
        try setupCoreDataStackWithAutoMigratingSqliteStoreNamed(name, versions: ModelVersions(model), options: options)
    }

    /// The store at `url`, migrated to `versions.current`.
    public static func setupCoreDataStackWithAutoMigratingSqliteStoreAtURL(
        _ url: URL, versions: ModelVersions, options: MigrationOptions = MigrationOptions(), durability: Durability = .full
    ) throws(MagicalRecordError) {
        try install(ObjectStore(
            path: url.path, model: nil, options: StoreOptions(durability: durability), onMismatch: .migrate(options), versions: versions
        ))
    }

    public static func setupCoreDataStackWithAutoMigratingSqliteStoreAtURL(
        _ url: URL, model: ObjectModel, options: MigrationOptions = MigrationOptions(), durability: Durability = .full
    ) throws(MagicalRecordError) {
        try setupCoreDataStackWithAutoMigratingSqliteStoreAtURL(url, versions: ModelVersions(model), options: options, durability: durability)
    }

    /// The store at `url`, DELETED with all its data and started anew when it was written
    /// with another model: the seeds' development convenience, only on request, and logged
    /// as an error each time it deletes.
    public static func setupCoreDataStackDeletingStoreOnModelMismatch(
        withStoreAt url: URL, model: ObjectModel, durability: Durability = .full
    ) throws(MagicalRecordError) {
        try install(ObjectStore(path: url.path, model: model, options: StoreOptions(durability: durability), onMismatch: .deleteAndRecreate))
    }
}
