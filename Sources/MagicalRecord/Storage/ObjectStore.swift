import Foundation
import MagicalStore
import Synchronization

/// One store file as the object layer sees it: the engine store, the model its objects
/// follow, and the record coders of its entities. Shared by every context of a stack.
final class ObjectStore: Sendable {
    let store: Store
    let model: ObjectModel
    let slots: SlotMap
    /// Record coders of the concrete entities.
    let coders: [String: RecordCoder]
    private let lastNumber: Atomic<Int64>

    var path: String { store.path }

    /// Opens (or creates) the store at `path` for `model`. A store written with a model of
    /// another version hash is refused with the differences listed. Without a model, the
    /// store's own model is used (a store never written by the object layer is refused).
    init(path: String, model requested: ObjectModel?, options: StoreOptions) throws(MagicalRecordError) {
        let store = try withStoreErrors { try Store(path: path, options: options) }
        do throws(MagicalRecordError) {
            let metadata = try withStoreErrors { try StoreMetadata.load(from: store) }
            var slots = metadata?.slots ?? SlotMap()
            guard let model = requested ?? metadata?.model else { throw MagicalRecordError.notAnObjectStore(path: path) }
            if let metadata {
                let differences = model.differences(from: metadata.model).map(\.description)
                guard differences.isEmpty else { throw MagicalRecordError.modelMismatch(path: path, differences: differences) }
            }
            let isNew = metadata == nil
            let slotsChanged = slots.assign(model)
            if (isNew || slotsChanged) && !options.readOnly {
                try withStoreErrors {
                    try store.write { transaction in
                        try Self.createTrees(for: model, in: transaction)
                        try StoreMetadata(model: model, slots: slots, lastNumber: metadata?.lastNumber ?? 0).save(in: transaction)
                    }
                }
            }
            self.store = store
            self.model = model
            self.slots = slots
            self.coders = try Self.makeCoders(model, slots)
            self.lastNumber = Atomic(metadata?.lastNumber ?? 0)
        } catch {
            try? store.close()
            throw error
        }
    }

    private static func makeCoders(_ model: ObjectModel, _ slots: SlotMap) throws(MagicalRecordError) -> [String: RecordCoder] {
        var coders: [String: RecordCoder] = [:]
        for entity in model.entities where !entity.isAbstract {
            coders[entity.name] = try RecordCoder(entity: entity, slots: slots)
        }
        return coders
    }

    /// Every tree the model needs, created when missing.
    private static func createTrees(for model: ObjectModel, in transaction: WriteTransaction) throws {
        for entity in model.entities where !entity.isAbstract {
            _ = try transaction.openTree(StoreLayout.objectTree(entity.name))
            for attribute in entity.indexedAttributes {
                _ = try transaction.openTree(StoreLayout.indexTree(entity.name, attribute))
            }
            for relationship in entity.relationships where relationship.isToMany {
                _ = try transaction.openTree(StoreLayout.relationshipTree(entity.name, relationship.name))
            }
        }
    }

    /// A number no object of this store has had: the store's ids are never reused.
    func allocateNumber() -> Int64 {
        lastNumber.add(1, ordering: .relaxed).newValue
    }

    func coder(for entity: String) throws(MagicalRecordError) -> RecordCoder {
        guard let coder = coders[entity] else { throw .model(.unknownEntity(entity)) }
        return coder
    }

    /// The latest committed state, for reading.
    func snapshot() throws(MagicalRecordError) -> StoreSnapshot {
        StoreSnapshot(store: self, transaction: try withStoreErrors { try store.read() })
    }

    /// Writes `changes` as one engine transaction: all of it, or (on any error) none.
    func commit(_ changes: ChangeSet) throws(MagicalRecordError) {
        guard !changes.isEmpty else { return }
        try withStoreErrors {
            try store.write { transaction in
                try CommitWriter(store: self, transaction: transaction).apply(changes)
                try StoreMetadata.saveLastNumber(lastNumber.load(ordering: .relaxed), in: transaction)
            }
        }
    }

    func close() throws(MagicalRecordError) {
        try withStoreErrors { try store.close() }
    }
}
