import Dispatch
import Foundation

/// A scratch pad of objects over a store: fetches see the store merged with the
/// unsaved changes of this context and its parents; a save hands the changes to the
/// parent, or (for the root) commits them to the store as one transaction.
///
/// Thread rules: each context has a serial queue of its own. `perform` runs work there
/// asynchronously, `performAndWait` synchronously (inline when already on it, and, for a
/// main-queue context, inline on the main thread). All of a context's state, and its
/// objects', is guarded by one lock, so no call is a data race; consistency across
/// several calls is what the queue gives you.
///
/// Where work runs on Linux: a main-queue context is meant for the main thread's work,
/// but its `perform` blocks run on its own serial queue, not on `DispatchQueue.main`:
/// command-line programs often never service the main queue (no `dispatchMain()`, no run
/// loop), and a block or completion that silently never runs is worse than one that runs
/// off the main thread. Hop to `DispatchQueue.main` inside the block when UI code needs it.
public final class ManagedObjectContext: @unchecked Sendable {
    public enum ConcurrencyType: Sendable {
        /// For the main thread's work: inline on the main thread, else on the context's
        /// own serial queue (see the thread rules above).
        case mainQueue
        /// Work runs on a serial queue of the context's own.
        case privateQueue
    }

    public let concurrencyType: ConcurrencyType
    public let parent: ManagedObjectContext?
    /// A name for logs and debugging.
    public var name: String? {
        get { withLock { storedName } }
        set { withLock { storedName = newValue } }
    }

    let stack: ObjectStack
    let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// What this context's objects hold of it, with the lock that guards what follows.
    let link = ContextLink()

    // Guarded by `link`'s lock. That lock already serialises every access, so the state
    // below skips the runtime's exclusivity checks (`@exclusivity(unchecked)`): five of
    // them cost a point get about 470 instructions, 3.4% (callgrind, 20k records).
    private var storedName: String?
    /// Registered objects, held strongly: one whose only reference is this table's is
    /// dead to every caller (see ``registeredObject(_:)``). Weak references would say the
    /// same, but a weakly referenced object takes the runtime's slow path on every retain
    /// and release, and gets a side table of its own.
    @exclusivity(unchecked) private var registered = ObjectTable<ManagedObject>()
    @exclusivity(unchecked) private var pruningThreshold = minimumPruningThreshold
    /// The class each entity's objects are made as, by entity ordinal, with the registry
    /// version it was read at: the registry's lock and hash of the entity's name were a
    /// fiftieth of a point get.
    @exclusivity(unchecked) private var objectClasses: [(version: Int, type: ManagedObject.Type)?] = []
    /// A small floor: a loop that drops each object it gets frees them a few at a time,
    /// which the allocator's per-thread cache (7 blocks of a size, in glibc) takes back
    /// and hands to the next objects. Sweeping 512 at a time sent most blocks to its bins,
    /// and each allocation then took the slow path: 4.3% of a point get (callgrind, 20k
    /// records), for sweeps that cost little at this size.
    private static let minimumPruningThreshold = 8
    /// Objects with unsaved changes (inserted, updated or deleted), kept alive until saved.
    @exclusivity(unchecked) var changedObjects: [ObjectID: ManagedObject] = [:]
    @exclusivity(unchecked) var changeOrder: [ObjectID] = []
    @exclusivity(unchecked) var insertedIDs: Set<ObjectID> = []
    @exclusivity(unchecked) var deletedIDs: Set<ObjectID> = []
    /// Open savepoints, innermost last (``withSavepoint(_:)``).
    @exclusivity(unchecked) var savepoints: [Savepoint] = []

    init(concurrencyType: ConcurrencyType, parent: ManagedObjectContext?, stack: ObjectStack, name: String?) {
        self.concurrencyType = concurrencyType
        self.parent = parent
        self.stack = stack
        self.storedName = name
        queue = DispatchQueue(label: "MagicalRecord.context" + (name.map { "." + $0 } ?? ""))
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        link.context = self
        stack.register(self)
    }

    public var model: ObjectModel { stack.store.model }

    /// Whether the context holds unsaved changes.
    public var hasChanges: Bool { withLock { !changedObjects.isEmpty } }

    // MARK: Queues

    /// Runs `body` on the context's queue and returns at once.
    public func perform(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Runs `body` on the context's queue and waits for it; inline when the caller is
    /// already there (or on the main thread, for a main-queue context).
    public func performAndWait<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        if isOnQueue { return try body() }
        return try queue.sync { Result { () throws(E) -> T in try body() } }.get()
    }

    /// Runs `body` on the context's queue and returns its result.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private var isOnQueue: Bool {
        if concurrencyType == .mainQueue && Thread.isMainThread { return true }
        return DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
    }

    // MARK: Bookkeeping (under the lock)

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try link.withLock(body)
    }

    /// Whether no object is registered (dead entries count until pruned).
    var registersNothing: Bool { registered.isEmpty }

    /// The object registered for `id`, if any is alive: one held only by the registry is
    /// dead, so callers never see an object everyone else has let go (as a weak table would
    /// not). Under the lock no other thread can take a new reference, so the check cannot
    /// race one. A dead entry stays for the object that usually replaces it at once
    /// (``register(_:)`` then updates it in place) or for pruning.
    func registeredObject(_ id: ObjectID) -> ManagedObject? {
        registered.referencedObject(for: id)
    }

    func register(_ object: ManagedObject) {
        registered.insert(object)
        // Dropping the dead entries whenever the table has doubled keeps it within twice
        // the live objects (plus a floor), at O(1) per registration.
        if registered.count >= pruningThreshold {
            registered.removeUnreferenced()
            pruningThreshold = max(Self.minimumPruningThreshold, registered.count * 2)
            registered.shrink(toHold: pruningThreshold)
        }
    }

    /// The class objects of `entity` are made as (``ObjectClassRegistry/objectClass(for:)``).
    func objectClass(for entity: Entity) -> ManagedObject.Type {
        let version = ObjectClassRegistry.version.load(ordering: .acquiring)
        if entity.ordinal < objectClasses.count, let cached = objectClasses[entity.ordinal], cached.version == version {
            return cached.type
        }
        let type = ObjectClassRegistry.objectClass(for: entity.name)
        if entity.ordinal >= objectClasses.count {
            objectClasses.append(contentsOf: repeatElement(nil, count: entity.ordinal + 1 - objectClasses.count))
        }
        objectClasses[entity.ordinal] = (version, type)
        return type
    }

    /// Entries in the registry, dead ones included: for tests of its pruning.
    var registryEntryCount: Int { withLock { registered.count } }

    func unregister(_ id: ObjectID) {
        registered.remove(id)
    }

    func noteChanged(_ object: ManagedObject) {
        if changedObjects.updateValue(object, forKey: object.objectID) == nil {
            changeOrder.append(object.objectID)
        }
    }

    func forgetChanges() {
        changedObjects = [:]
        changeOrder = []
        insertedIDs = []
        deletedIDs = []
    }

    /// Every object registered and alive, for merges.
    func registeredObjects() -> [ManagedObject] {
        registered.removeUnreferenced()
        return registered.objects
    }

    /// Drops every registered object and unsaved change: the context starts afresh.
    public func reset() {
        withLock {
            registered.removeAll()
            forgetChanges()
        }
    }
}
