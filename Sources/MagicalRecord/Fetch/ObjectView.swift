/// What a fetch in a context sees: the store at one snapshot, overlaid with the unsaved
/// changes of the context and of its parents, the nearest context's version winning
/// (Core Data's "fetches include pending changes").
struct ObjectView {
    let snapshot: StoreSnapshot
    let model: ObjectModel
    /// Unsaved states by id; nil for an object deleted in the chain.
    private let pending: [ObjectID: ObjectState?]

    init(context: ManagedObjectContext, includesPendingChanges: Bool) throws(MagicalRecordError) {
        model = context.model
        guard includesPendingChanges else {
            pending = [:]
            snapshot = try context.stack.store.snapshot()
            return
        }
        // Nearest context first and the store last: saves move changes outward (a context
        // hands them to its parent before forgetting them, the root commits before
        // forgetting), so a change that leaves a level after it was read is found at a
        // later one. The other way round, a save in between could hide it from both.
        var pending: [ObjectID: ObjectState?] = [:]
        var level: ManagedObjectContext? = context
        while let current = level {
            current.withLock {
                for (id, object) in current.changedObjects {
                    let state: ObjectState? = object.isDeletedInContext ? nil : object.state
                    if let nearer = pending[id] {
                        // A nearer context may not have loaded a to-many relationship this one has.
                        if var nearer, let state { nearer.fillUnloaded(from: state); pending[id] = nearer }
                    } else {
                        pending[id] = state
                    }
                }
            }
            level = current.parent
        }
        self.pending = pending
        snapshot = try context.stack.store.snapshot()
    }

    func entity(of id: ObjectID) throws(MagicalRecordError) -> Entity {
        guard let entity = model.entity(named: id.entityName) else { throw .model(.unknownEntity(id.entityName)) }
        return entity
    }

    /// The state of `id` as the context sees it; nil when it does not exist or is deleted.
    func state(of id: ObjectID) throws(MagicalRecordError) -> ObjectState? {
        if let overlaid = pending[id] { return overlaid }
        return try snapshot.state(of: id)
    }

    /// Whether the store's version of `id` is replaced (or deleted) by an unsaved change.
    func isOverlaid(_ id: ObjectID) -> Bool { !pending.isEmpty && pending[id] != nil }

    /// Whether any unsaved change could overlay a stored object.
    var hasOverlays: Bool { !pending.isEmpty }

    /// The unsaved states of objects of the concrete entities `names` (deleted ones left out).
    func pendingStates(of names: Set<String>) -> [ObjectState] {
        pending.values.compactMap { $0 }.filter { names.contains($0.id.entityName) }
    }

    func hasPendingChanges(of names: Set<String>) -> Bool {
        pending.keys.contains { names.contains($0.entityName) }
    }

    /// The targets of relationship `position` of `state`: from the state when loaded,
    /// else from the store.
    func targets(of state: ObjectState, position: Int, entity: Entity) throws(MagicalRecordError) -> [ObjectID] {
        switch state.relationships[position] {
        case .toOne(let target): return target.map { [$0] } ?? []
        case .toMany(let targets): return targets
        case .unloaded: return try snapshot.targets(of: state.id, entity.relationships[position])
        case .added(let extra):
            return RelationshipState.joined(try snapshot.targets(of: state.id, entity.relationships[position]), extra.ids)
        }
    }
}

extension ObjectState {
    /// Completes the to-many targets this state has not loaded (or only added to) from
    /// `other`, a farther context's version of the same object.
    mutating func fillUnloaded(from other: ObjectState) {
        for position in relationships.indices {
            relationships[position] = relationships[position].over(other.relationships[position])
        }
    }
}
