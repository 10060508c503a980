/// What a context looked like before a savepoint: the first state each object had after
/// it, so a failed step (an import record that does not convert, a whole import that
/// fails) can be undone without touching what came before. Savepoints nest.
struct Savepoint {
    struct Prior {
        let object: ManagedObject
        let state: ObjectState
        let wasDeleted: Bool
        let wasChanged: Bool
    }

    /// Objects changed since the savepoint, as they were before.
    var priors: [ObjectID: Prior] = [:]
    /// Objects inserted since the savepoint.
    var inserted: [ManagedObject] = []
    /// Their ids: an object inserted since the savepoint needs no prior state, since
    /// undoing removes it whole.
    var insertedIDs: Set<ObjectID> = []
}

extension ManagedObjectContext {
    /// Runs `body`; when it throws, every change it made to this context (insertions,
    /// changed values and relationships, deletions) is undone, and the error passed on.
    func withSavepoint<T>(_ body: () throws(MagicalRecordError) -> T) throws(MagicalRecordError) -> T {
        withLock { savepoints.append(Savepoint()) }
        do {
            let result = try body()
            withLock {
                let finished = savepoints.removeLast()
                guard !savepoints.isEmpty else { return }
                // The enclosing savepoint keeps what it saw first.
                for (id, prior) in finished.priors where savepoints[savepoints.count - 1].priors[id] == nil {
                    savepoints[savepoints.count - 1].priors[id] = prior
                }
                savepoints[savepoints.count - 1].inserted += finished.inserted
                savepoints[savepoints.count - 1].insertedIDs.formUnion(finished.insertedIDs)
            }
            return result
        } catch {
            withLock { rollBack(savepoints.removeLast()) }
            throw error
        }
    }

    /// Notes `object`'s state before a change, once per savepoint (under the lock).
    func noteBeforeChange(_ object: ManagedObject) {
        let last = savepoints.count - 1
        guard last >= 0, savepoints[last].priors[object.objectID] == nil,
              !savepoints[last].insertedIDs.contains(object.objectID) else { return }
        savepoints[last].priors[object.objectID] = Savepoint.Prior(
            object: object, state: object.state, wasDeleted: object.isDeletedInContext,
            wasChanged: changedObjects[object.objectID] != nil
        )
    }

    /// Whether `id` differs from what it was when the innermost savepoint began (under the
    /// lock), by content: a value changed and changed back is no change, nor is an
    /// unordered to-many holding the same members in another order, or read since.
    func isChangedSinceSavepoint(_ id: ObjectID) -> Bool {
        guard let prior = savepoints.last?.priors[id] else { return false }
        let (before, after) = (prior.state, prior.object.state)
        guard prior.wasDeleted == prior.object.isDeletedInContext, before.attributes == after.attributes else { return true }
        for (position, relationship) in prior.object.entity.relationships.enumerated()
        where before.relationships[position] != after.relationships[position] {
            // Neither side read: additions are members that were not there (an object
            // joins through its inverse only when it was elsewhere), so no read is needed.
            switch (before.relationships[position], after.relationships[position]) {
            case (.unloaded, .added(let extra)), (.added(let extra), .unloaded):
                if extra.ids.isEmpty { continue } else { return true }
            case (.added(let old), .added(let new)):
                if Set(old.ids) == Set(new.ids) { continue } else { return true }
            default:
                break
            }
            guard relationship.isToMany,
                  let old = try? members(before.relationships[position], of: id, relationship, position),
                  let new = try? members(after.relationships[position], of: id, relationship, position) else { return true }
            if relationship.isOrdered ? old != new : Set(old) != Set(new) { return true }
        }
        return false
    }

    /// A to-many's members as `state` gives them, reading what it leaves to the parents
    /// (or the store) only when it must: additions not read are new members.
    private func members(
        _ state: RelationshipState, of id: ObjectID, _ relationship: RelationshipDescription, _ position: Int
    ) throws(MagicalRecordError) -> [ObjectID] {
        switch state {
        case .toMany(let targets): return targets
        case .toOne(let target): return target.map { [$0] } ?? []
        case .unloaded: return try parentTargets(of: id, relationship, position: position)
        case .added(let extra):
            return RelationshipState.joined(try parentTargets(of: id, relationship, position: position), extra.ids)
        }
    }

    /// Notes an object inserted (under the lock).
    func noteInserted(_ object: ManagedObject) {
        guard !savepoints.isEmpty else { return }
        savepoints[savepoints.count - 1].inserted.append(object)
        savepoints[savepoints.count - 1].insertedIDs.insert(object.objectID)
    }

    private func rollBack(_ savepoint: Savepoint) {
        var forgotten = Set<ObjectID>()
        for object in savepoint.inserted {
            object.isDeletedInContext = true
            insertedIDs.remove(object.objectID)
            deletedIDs.remove(object.objectID)
            changedObjects[object.objectID] = nil
            unregister(object.objectID)
            forgotten.insert(object.objectID)
        }
        for (id, prior) in savepoint.priors where !forgotten.contains(id) {
            prior.object.state = prior.state
            prior.object.isDeletedInContext = prior.wasDeleted
            if !prior.wasDeleted { deletedIDs.remove(id) }
            if !prior.wasChanged {
                changedObjects[id] = nil
                forgotten.insert(id)
            }
        }
        if !forgotten.isEmpty { changeOrder.removeAll { forgotten.contains($0) } }
    }
}
