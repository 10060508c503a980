import Foundation
import MagicalStore

/// Plans and runs the migration of an open engine store from the model it was written with
/// to a target model.
struct StoreMigrator {
    let store: Store
    let metadata: StoreMetadata
    /// The target is `versions.current`; the other versions are the chain's steps.
    let versions: ModelVersions
    let options: MigrationOptions

    /// The versions from the store's model to the target: through `versions` when the
    /// store's model is one of them (by version hash), else straight across.
    private func chain() -> [ObjectModel] {
        let target = versions.current
        let hash = metadata.model.versionHash
        guard let start = versions.all[..<versions.currentIndex].lastIndex(where: { $0.versionHash == hash }) else {
            return [metadata.model, target]
        }
        return [metadata.model] + versions.all[(start + 1)...versions.currentIndex]
    }

    func plan() throws(MagicalRecordError) -> MigrationPlan {
        let snapshot = try withStoreErrors { try store.read() }
        var counts: [String: Int] = [:]
        for entity in metadata.model.entities where !entity.isAbstract {
            counts[entity.name] = try withStoreErrors { try snapshot.treeIfPresent(StoreLayout.objectTree(entity.name))?.count ?? 0 }
        }
        return MigrationPlanner(mapping: ModelMapping(chain: chain()), sourceSlots: metadata.slots, objectCounts: counts, options: options).plan()
    }

    /// Runs `plan` as one transaction; returns the store's new metadata. Refuses a plan
    /// with incompatibilities before writing anything.
    func migrate(_ plan: MigrationPlan) throws(MagicalRecordError) -> StoreMetadata {
        guard plan.isPossible else {
            throw .migrationRefused(path: store.path, incompatibilities: plan.incompatibilities.map(\.description))
        }
        let history = try StoreHistory.appending(metadata.model, slots: metadata.slots, to: metadata.history)
        let migrated = StoreMetadata(model: plan.target, slots: plan.slots, lastNumber: metadata.lastNumber, history: history)
        let started = Date()
        do {
            try store.write { transaction in
                let snapshot = try store.read()
                try MigrationExecutor(plan: plan, sourceSlots: metadata.slots, snapshot: snapshot, transaction: transaction).run()
                try migrated.save(in: transaction)
            }
        } catch let error as MagicalRecordError {
            if case .migrationFailed(_, let reason) = error { throw .migrationFailed(path: store.path, reason: reason) }
            throw .migrationFailed(path: store.path, reason: error.description)
        } catch let error as StoreError {
            throw .migrationFailed(path: store.path, reason: error.description)
        } catch {
            throw .migrationFailed(path: store.path, reason: "\(error)")
        }
        Log.log(.info, "migrated \(store.path) in \(String(format: "%.3f", Date().timeIntervalSince(started))) s:\n\(plan)")
        return migrated
    }
}
