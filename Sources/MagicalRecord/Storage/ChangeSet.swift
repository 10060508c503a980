/// What one save hands to its parent, and the root's save to the store: the full state of
/// every inserted or updated object, and the ids of deleted ones.
struct ChangeSet: Sendable {
    /// Inserted or updated objects, in the order they were first changed. A to-many that
    /// is `unloaded` was not changed.
    var upserts: [ObjectState] = []
    /// Those of `upserts` that are new: no stored record to replace.
    var inserted: Set<ObjectID> = []
    var deletes: [ObjectID] = []

    var isEmpty: Bool { upserts.isEmpty && deletes.isEmpty }
}
