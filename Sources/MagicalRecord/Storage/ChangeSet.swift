/// What one save hands to its parent, and the root's save to the store: the full state of
/// every inserted or updated object, and the ids of deleted ones.
struct ChangeSet: Sendable {
    /// Inserted or updated objects, in the order they were first changed. A to-many that
    /// is `unloaded` was not changed.
    var upserts: [ObjectState] = []
    /// Those of `upserts` that are new: no stored record to replace.
    var inserted: Set<ObjectID> = []
    var deletes: [ObjectID] = []
    /// Members taken out of unordered to-many relationships that were not read (an
    /// import moving objects between targets without loading the targets' members).
    var removedTargets: [RemovedTarget] = []
    /// The stored states of updated objects as the writer read them, when it has them:
    /// a commit made right after that read need not read them again.
    var storedBefore: StoredStates?

    var isEmpty: Bool { upserts.isEmpty && deletes.isEmpty && removedTargets.isEmpty }
}

/// Objects' stored states as of one committed transaction.
struct StoredStates: Sendable {
    let transactionID: UInt64
    let states: [ObjectID: ObjectState]
    /// Keys looked up in each entity's key index as of that transaction and not found, by
    /// entity name: the commit need not look for them again.
    var absentKeys: [String: Set<AttributeValue>] = [:]
}

/// A member that leaves an unordered to-many relationship.
struct RemovedTarget: Sendable, Hashable {
    let owner: ObjectID
    /// By position in the owner entity's relationships.
    let position: Int
    let target: ObjectID
}
