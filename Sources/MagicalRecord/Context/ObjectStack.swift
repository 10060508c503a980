import MagicalStore
import Synchronization

/// What the contexts of one store share: the store, and the contexts to tell when the
/// root commits, so their unchanged objects show the committed values.
final class ObjectStack: Sendable {
    let store: ObjectStore
    private let contexts = Mutex<[WeakContext]>([])
    /// The snapshot ``latestSnapshot()`` handed out last. Kept here, not in the store,
    /// which each snapshot references.
    private let latest = Mutex<(snapshot: StoreSnapshot, identity: ObjectIdentifier)?>(nil)

    init(store: ObjectStore) {
        self.store = store
    }

    /// The latest committed state, as ``ObjectStore/snapshot()``, handed out again while
    /// no commit or compaction has followed it: a point get took a snapshot of its own,
    /// and making and freeing it (the engine's read, the object) was a twentieth of the
    /// get. Commits and compactions through this stack drop it, so it keeps no superseded
    /// pages or file alive; one made otherwise is noticed by the engine (``Store/isLatest(_:)``).
    func latestSnapshot() throws(MagicalRecordError) -> StoreSnapshot {
        if let cached = latest.withLock({ $0 }), store.store.isLatest(cached.identity) { return cached.snapshot }
        let made = try store.snapshot()
        if let identity = made.transaction.commitIdentity { latest.withLock { $0 = (made, identity) } }
        return made
    }

    func commit(_ changes: ChangeSet, recordsAhead: RecordsAhead? = nil) throws(MagicalRecordError) {
        defer { dropLatestSnapshot() }
        try store.commit(changes, recordsAhead: recordsAhead)
    }

    func compact() throws(MagicalRecordError) -> CompactionResult {
        defer { dropLatestSnapshot() }
        return try store.compact()
    }

    func close() throws(MagicalRecordError) {
        dropLatestSnapshot()
        try store.close()
    }

    private func dropLatestSnapshot() {
        // Released once the lock is let go: the last reference frees what it kept.
        _ = latest.withLock { $0.take() }
    }

    /// The root saving context (private queue, attached to the store) and the default
    /// context (main queue, its child).
    func makeContexts() -> (root: ManagedObjectContext, main: ManagedObjectContext) {
        let root = ManagedObjectContext(concurrencyType: .privateQueue, parent: nil, stack: self, name: "root saving context")
        let main = ManagedObjectContext(concurrencyType: .mainQueue, parent: root, stack: self, name: "default context")
        return (root, main)
    }

    func register(_ context: ManagedObjectContext) {
        contexts.withLock { contexts in
            contexts.removeAll { $0.context == nil }
            contexts.append(WeakContext(context: context))
        }
    }

    /// Every live context but `excluded`.
    func contexts(excluding excluded: ManagedObjectContext) -> [ManagedObjectContext] {
        contexts.withLock { $0.compactMap(\.context) }.filter { $0 !== excluded }
    }
}

private struct WeakContext: @unchecked Sendable {
    weak var context: ManagedObjectContext?
}

/// The class to make objects of, per entity: ``MagicalRecord/register(_:)``, and the
/// first use of a subclass's typed API, put it here; everything else is a plain
/// ``ManagedObject``.
enum ObjectClassRegistry {
    private static let classes = Mutex<[String: ManagedObject.Type]>([:])
    /// Counts the registrations that changed the table: what a cache of
    /// ``objectClass(for:)`` read stays true while this does.
    static let version = Atomic<Int>(0)

    static func register(_ type: ManagedObject.Type) {
        let name = type.entityName
        classes.withLock { classes in
            if classes[name] != type {
                classes[name] = type
                version.add(1, ordering: .releasing)
            }
        }
    }

    static func objectClass(for entity: String) -> ManagedObject.Type {
        classes.withLock { $0[entity] } ?? ManagedObject.self
    }

    private static let classNames = Mutex<[ObjectIdentifier: ClassName]>([:])
    /// The name asked for last, one of `classNames`' (which keeps it alive for good): a
    /// loop of finds by one class reads it without the lock and the hashing, which were
    /// a seventieth of a point get.
    /// Its address, 0 before the first.
    private static let lastName = Atomic<UInt>(0)

    /// A class's name, kept for as long as the process runs.
    private final class ClassName: Sendable {
        let type: ObjectIdentifier
        let name: String

        init(type: ObjectIdentifier, name: String) {
            self.type = type
            self.name = name
        }
    }

    /// The name of `type` as written in Swift, worked out once per class (every typed
    /// find and import asks for its entity name, and describing a type is slow).
    static func name(of type: ManagedObject.Type) -> String {
        let key = ObjectIdentifier(type)
        if let last = UnsafeRawPointer(bitPattern: lastName.load(ordering: .acquiring)) {
            let known = Unmanaged<ClassName>.fromOpaque(last).takeUnretainedValue()
            if known.type == key { return known.name }
        }
        let known = classNames.withLock { names in
            if let known = names[key] { return known }
            let made = ClassName(type: key, name: String(describing: type))
            names[key] = made
            return made
        }
        lastName.store(UInt(bitPattern: Unmanaged.passUnretained(known).toOpaque()), ordering: .releasing)
        return known.name
    }
}
