import Foundation
import MagicalStore

/// One store with its own contexts, apart from the default stack that
/// ``MagicalRecord/setupCoreDataStack(withStoreAt:model:durability:scanThreads:)`` installs: for
/// tools, tests, and applications with more than one store.
///
/// ```swift
/// let stack = try PersistentStack(storeAt: url)          // the store's own model
/// let people = try stack.mainContext.fetch(FetchRequest(entityName: "Person"))
/// try stack.close()
/// ```
public final class PersistentStack: Sendable {
    /// The private-queue context attached to the store: its saves commit.
    public let rootContext: ManagedObjectContext
    /// A main-queue child of the root context.
    public let mainContext: ManagedObjectContext
    private let stack: ObjectStack

    /// Opens the store at `url` (created when missing and `model` is given). With a nil
    /// `model`, the model the store was written with is used, so a tool needs no model.
    /// A store written with another model is refused, unless `onModelMismatch` says otherwise.
    /// `scanThreads`: how many threads a scan of a large entity may use (nil: the store's
    /// default, ``StoreOptions/scanThreads``; 1 keeps every fetch on its caller's thread).
    /// `compression`: how the pages it writes are compressed (pages already written keep
    /// theirs); `compactionCompression`: how a compaction's are (nil: as `compression`).
    public init(
        storeAt url: URL, model: ObjectModel? = nil, readOnly: Bool = false, durability: Durability = .full,
        scanThreads: Int? = nil, compression: PageCompression = .lz4, compactionCompression: PageCompression? = nil,
        onModelMismatch policy: ModelMismatchPolicy = .refuse
    ) throws(MagicalRecordError) {
        var options = StoreOptions(
            durability: durability, readOnly: readOnly, createIfMissing: model != nil && !readOnly,
            compression: compression, compactionCompression: compactionCompression
        )
        if let scanThreads { options.scanThreads = scanThreads }
        stack = ObjectStack(store: try ObjectStore(path: url.path, model: model, options: options, onMismatch: policy))
        (rootContext, mainContext) = stack.makeContexts()
    }

    /// Opens the store at `url` for `versions.current` (created when missing), migrating it
    /// through the versions in between as `onModelMismatch` says (by default, it migrates).
    public init(
        storeAt url: URL, versions: ModelVersions, durability: Durability = .full,
        onModelMismatch policy: ModelMismatchPolicy = .migrate(MigrationOptions())
    ) throws(MagicalRecordError) {
        let options = StoreOptions(durability: durability)
        stack = ObjectStack(store: try ObjectStore(path: url.path, model: nil, options: options, onMismatch: policy, versions: versions))
        (rootContext, mainContext) = stack.makeContexts()
    }

    /// The model of the store's objects.
    public var model: ObjectModel { stack.store.model }

    /// The store's JSON model description with its slot map (Spec/MODEL.md): what the
    /// store records about the model it was written with.
    public var modelDescription: JSONModelDescription {
        JSONModelDescription(stack.store.model, slots: stack.store.slots.codes)
    }

    /// The versions the store was written with before its current model, oldest first,
    /// with the slots each had (Spec/OBJECT-STORE.md, "Metadata"); nil when it was never migrated.
    public var modelHistory: JSONModelDescription? { stack.store.history }

    /// Rewrites the store file without the space superseded commits left behind, keeping
    /// the latest commit; a crash leaves the old file or the new one (Spec/FILE-FORMAT.md,
    /// compaction). Snapshots already taken keep reading; unsaved changes are not touched.
    @discardableResult
    public func compact() throws(MagicalRecordError) -> CompactionResult {
        try stack.compact()
    }

    /// Closes the store. Contexts of this stack cannot read or save afterwards.
    public func close() throws(MagicalRecordError) {
        try stack.close()
    }
}
