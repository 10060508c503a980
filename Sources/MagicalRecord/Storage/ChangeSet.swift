/// What one save hands to its parent, and the root's save to the store: the full state of
/// every inserted or updated object, and the ids of deleted ones.
struct ChangeSet: Sendable {
    /// Inserted or updated objects, in the order they were first changed. A to-many that
    /// is `unloaded` was not changed.
    var upserts: [ObjectState] = []
    /// What the writer knows of each of `upserts`, by position (flags, not sets of ids: an
    /// import hands over tens of thousands at once); empty when none has any.
    var upsertFlags: [UpsertFlags] = []
    var deletes: [ObjectID] = []
    /// Members taken out of unordered to-many relationships that were not read (an
    /// import moving objects between targets without loading the targets' members).
    var removedTargets: [RemovedTarget] = []
    /// The stored states of updated objects as the writer read them, when it has them:
    /// a commit made right after that read need not read them again.
    var storedBefore: StoredStates?

    var isEmpty: Bool { upserts.isEmpty && deletes.isEmpty && removedTargets.isEmpty }

    /// The flags of upsert `index`.
    func flags(at index: Int) -> UpsertFlags {
        index < upsertFlags.count ? upsertFlags[index] : []
    }
}

/// What a writer knows of one upsert of a ``ChangeSet``.
struct UpsertFlags: OptionSet, Sendable {
    let rawValue: UInt8

    /// The object is new: no stored record to replace.
    static let inserted = UpsertFlags(rawValue: 1)
    /// The writer looked the object's key up as of ``ChangeSet/storedBefore`` and found no
    /// object with it, and no other upsert has it: the commit's uniqueness check need not
    /// look for it, when no commit came between.
    static let keyKnownAbsent = UpsertFlags(rawValue: 2)
}

/// Objects' stored states as of one committed transaction, by position in the change
/// set's upserts: the commit finds each where it lies, with no hashing of ids.
struct StoredStates: Sendable {
    let transactionID: UInt64
    /// Nil where the writer did not read one (a new object); may end before the upserts do.
    let states: [ObjectState?]
    /// By position, whether `states` has one: asking `states` copied the state out (a
    /// retain and release of its arrays, a fortieth of the committing thread).
    private let isRead: [Bool]

    /// `isRead`: by position, whether `states` has one there.
    init(transactionID: UInt64, states: [ObjectState?], isRead: [Bool]) {
        precondition(states.count == isRead.count, "a flag for every stored state")
        self.transactionID = transactionID
        self.states = states
        self.isRead = isRead
    }

    /// Whether the state of upsert `position` was read.
    func hasState(at position: Int) -> Bool {
        position < isRead.count && isRead[position]
    }
}

/// A member that leaves an unordered to-many relationship.
struct RemovedTarget: Sendable, Hashable {
    let owner: ObjectID
    /// By position in the owner entity's relationships.
    let position: Int
    let target: ObjectID

    /// As ``ObjectID/_rawHashValue(seed:)``: the numbers mixed, not SipHash (an upsert
    /// moves half its records, each a removal inserted into and looked up in a set).
    func _rawHashValue(seed: Int) -> Int {
        target._rawHashValue(seed: owner._rawHashValue(seed: seed) &+ position)
    }
}
