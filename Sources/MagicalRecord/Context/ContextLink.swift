/// What a context's objects hold of it: its lock, strongly, and the context itself,
/// weakly; one per context, shared by all its objects. An object locks its state
/// without loading a weak reference, and making or dropping an object changes one plain
/// reference count. (Objects held their context weakly themselves: each made and
/// destroyed a weak reference, and every retain and release of the context, which has a
/// side table for them, took the runtime's slow path: about 5% of a point get.)
final class ContextLink: @unchecked Sendable {
    /// The context's lock (``ManagedObjectContext/withLock(_:)``): it guards the
    /// context's bookkeeping and its objects' states.
    let lock = RecursiveLock()
    /// Nil once the context is gone.
    weak var context: ManagedObjectContext?

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock(body)
    }
}
