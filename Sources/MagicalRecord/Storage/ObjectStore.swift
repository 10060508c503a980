import Foundation
import MagicalStore
import Synchronization

/// One store file as the object layer sees it: the engine store, the model its objects
/// follow, and the record coders of its entities. Shared by every context of a stack.
final class ObjectStore: Sendable {
    let store: Store
    let model: ObjectModel
    let slots: SlotMap
    /// The versions the store was written with before ``model`` (nil: none).
    let history: JSONModelDescription?
    /// The object format of what the store holds: this library's, unless it was opened
    /// read-only in an older one.
    let format: Int
    /// Record coders of the concrete entities, by name and by entity ordinal.
    let coders: [String: RecordCoder]
    private let codersByOrdinal: [RecordCoder?]
    private let lastNumber: Atomic<Int64>
    /// Imports reading their next batch on a thread of their own (``readingAhead(_:)``).
    private let threadsReadingAhead = Atomic<Int>(0)

    var path: String { store.path }

    /// Opens (or creates) the store at `path` for `model`. A store written with a model of
    /// another version hash is handled as `onMismatch` says: refused with the differences
    /// listed (the default), migrated (through `versions` when given, whose current version
    /// is then the model), or deleted and created anew. Without a model, the store's own
    /// model is used (a store never written by the object layer is refused).
    init(
        path: String, model requested: ObjectModel?, options: StoreOptions,
        onMismatch policy: ModelMismatchPolicy = .refuse, versions: ModelVersions? = nil
    ) throws(MagicalRecordError) {
        var store = try withStoreErrors { try Store(path: path, options: options) }
        do throws(MagicalRecordError) {
            var metadata = try withStoreErrors { try StoreMetadata.load(from: store) }
            if let stored = metadata { metadata = try MemberRunConversion.raise(store, stored) }
            guard let model = versions?.current ?? requested ?? metadata?.model else { throw MagicalRecordError.notAnObjectStore(path: path) }
            if let stored = metadata {
                let differences = model.differences(from: stored.model).map(\.description)
                if !differences.isEmpty {
                    switch policy {
                    case .refuse:
                        throw MagicalRecordError.modelMismatch(path: path, differences: differences)
                    case .migrate(let migrationOptions):
                        guard !options.readOnly else { throw MagicalRecordError.modelMismatch(path: path, differences: differences) }
                        let migrator = StoreMigrator(store: store, metadata: stored, versions: versions ?? ModelVersions(model), options: migrationOptions)
                        metadata = try migrator.migrate(try migrator.plan())
                    case .deleteAndRecreate:
                        guard !options.readOnly else { throw MagicalRecordError.modelMismatch(path: path, differences: differences) }
                        Log.log(.error, "DELETING the store \(path) and ALL its data: it was written with another model and the stack was set up to delete it on a mismatch:\n"
                            + differences.map { "  - \($0)" }.joined(separator: "\n"))
                        try withStoreErrors {
                            try store.close()
                            try options.fileSystem.removeFile(at: path)
                            try options.fileSystem.syncDirectory(containing: path)
                            store = try Store(path: path, options: options)
                        }
                        metadata = nil
                    }
                }
            }
            let isNew = metadata == nil
            var slots = metadata?.slots ?? SlotMap()
            let slotsChanged = slots.assign(model)
            // Defaults, delete rules and names are not in the hash (G4): the store still
            // records the model it is now written with.
            let modelChanged = metadata.map { $0.model.declarations != model.declarations || $0.model.versionName != model.versionName } ?? false
            // A store of an older format is raised to this one before anything is written
            // in it: its readers must then be at least as new.
            let formatIsOld = metadata.map { $0.format < StoreMetadata.currentFormat } ?? false
            if (isNew || slotsChanged || modelChanged || formatIsOld) && !options.readOnly {
                try withStoreErrors { [store] in
                    try store.write { transaction in
                        try Self.createTrees(for: model, in: transaction)
                        try StoreMetadata(
                            model: model, slots: slots, lastNumber: metadata?.lastNumber ?? 0, history: metadata?.history
                        ).save(in: transaction)
                    }
                }
            }
            self.store = store
            self.model = model
            self.slots = slots
            self.history = metadata?.history
            self.format = options.readOnly ? metadata?.format ?? StoreMetadata.currentFormat : StoreMetadata.currentFormat
            let coders = try Self.makeCoders(model, slots)
            self.coders = coders
            var byOrdinal = [RecordCoder?](repeating: nil, count: model.entities.count)
            for coder in coders.values where coder.entity.ordinal < byOrdinal.count { byOrdinal[coder.entity.ordinal] = coder }
            codersByOrdinal = byOrdinal
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

    /// The coder of `entity` found by its ordinal (by name for an entity of another model).
    func coder(for entity: Entity) throws(MagicalRecordError) -> RecordCoder {
        if entity.ordinal < codersByOrdinal.count, let coder = codersByOrdinal[entity.ordinal], coder.entity === entity { return coder }
        return try coder(for: entity.name)
    }

    /// The latest committed state, for reading.
    func snapshot() throws(MagicalRecordError) -> StoreSnapshot {
        StoreSnapshot(store: self, transaction: try withStoreErrors { try store.read() })
    }

    /// Writes `changes` as one engine transaction: all of it, or (on any error) none. The
    /// records in `recordsAhead` are used as they were encoded.
    func commit(_ changes: ChangeSet, recordsAhead: RecordsAhead? = nil) throws(MagicalRecordError) {
        guard !changes.isEmpty else { return }
        try withStoreErrors {
            try store.write { transaction in
                transaction.encodingThreads = commitEncodingThreads
                try CommitWriter(store: self, transaction: transaction, recordsAhead: recordsAhead).apply(changes)
                try StoreMetadata.saveLastNumber(lastNumber.load(ordering: .relaxed), in: transaction)
            }
        }
    }

    /// Runs `body`, an import whose next batch is read on another thread meanwhile: until
    /// it returns, commits leave a core to each such thread. Encoding threads beyond the
    /// idle cores only take turns with the reading thread, which decides the import's
    /// pace (on two cores, commits encoding on their own thread gave 7% more import and 11%
    /// more upsert throughput, and 26 MB less memory, in alternating 1M-record runs).
    func readingAhead<Result>(_ body: () throws(MagicalRecordError) -> Result) throws(MagicalRecordError) -> Result {
        threadsReadingAhead.add(1, ordering: .relaxed)
        defer { threadsReadingAhead.subtract(1, ordering: .relaxed) }
        return try body()
    }

    /// Threads a commit encodes its records and leaves on: every core but those imports
    /// read ahead on, at least one.
    var commitEncodingThreads: Int {
        max(1, ProcessInfo.processInfo.activeProcessorCount - threadsReadingAhead.load(ordering: .relaxed))
    }

    /// Copies the live pages into a new file (the engine's ``Store/compact()``).
    func compact() throws(MagicalRecordError) -> CompactionResult {
        try withStoreErrors { try store.compact() }
    }

    func close() throws(MagicalRecordError) {
        try withStoreErrors { try store.close() }
    }
}
