import Dispatch

/// Saving: into the parent context, or (from the root) into the store.
extension ManagedObjectContext {
    /// Saves this context only: its changes go to its parent (unsaved there), or, for the
    /// root saving context, to the store as one durable transaction. On any error nothing
    /// leaves the context and its changes stay, to fix and save again.
    public func save() throws(MagicalRecordError) {
        do {
            try saveChanges()
        } catch {
            Log.saveFailed(self, error)
            throw error
        }
    }

    private func saveChanges() throws(MagicalRecordError) {
        let changes = try withLock { () throws(MagicalRecordError) -> ChangeSet? in
            guard !changedObjects.isEmpty else { return nil }
            try DeletePropagation(context: self).run()
            let changed = changeOrder.compactMap { changedObjects[$0] }
            let failures = SaveValidation.failures(in: changed)
            guard failures.isEmpty else { throw .validation(failures) }
            let changes = makeChangeSet(changed)
            if let parent {
                parent.absorb(changes)
            } else {
                try stack.commit(changes)
            }
            forgetChanges()
            return changes
        }
        guard let changes else { return }
        if parent == nil {
            for context in stack.contexts(excluding: self) { context.mergeCommitted(changes) }
        }
        Log.saved(self, changes)
    }

    /// Saves this context and then each parent up to the store, each on its own queue.
    public func saveToPersistentStore() throws(MagicalRecordError) {
        var context: ManagedObjectContext? = self
        while let current = context {
            try current.performAndWait { () throws(MagicalRecordError) in try current.save() }
            context = current.parent
        }
    }

    /// ``save()`` on the context's queue; `completion` gets the outcome on
    /// ``MagicalRecord/completionQueue``.
    public func saveOnlySelf(completion: (@Sendable (Result<Void, MagicalRecordError>) -> Void)? = nil) {
        perform {
            let result = Result { () throws(MagicalRecordError) in try self.save() }
            Self.complete(result, completion)
        }
    }

    /// ``saveToPersistentStore()`` on the context's queue; `completion` gets the outcome on
    /// ``MagicalRecord/completionQueue``.
    public func saveToPersistentStore(completion: (@Sendable (Result<Void, MagicalRecordError>) -> Void)? = nil) {
        perform {
            let result = Result { () throws(MagicalRecordError) in try self.saveToPersistentStore() }
            Self.complete(result, completion)
        }
    }

    /// ``save()`` on the context's queue.
    public func saveOnlySelf() async throws(MagicalRecordError) {
        try await awaitResult { () throws(MagicalRecordError) in try self.save() }
    }

    /// ``saveToPersistentStore()`` on the context's queue.
    public func saveToPersistentStore() async throws(MagicalRecordError) {
        try await awaitResult { () throws(MagicalRecordError) in try self.saveToPersistentStore() }
    }

    private func awaitResult(_ body: @escaping @Sendable () throws(MagicalRecordError) -> Void) async throws(MagicalRecordError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, MagicalRecordError>, Never>) in
            perform { continuation.resume(returning: Result { () throws(MagicalRecordError) in try body() }) }
        }
        try result.get()
    }

    static func complete(_ result: Result<Void, MagicalRecordError>, _ completion: (@Sendable (Result<Void, MagicalRecordError>) -> Void)?) {
        guard let completion else { return }
        MagicalRecord.completionQueue.async { completion(result) }
    }

    // MARK: Internals

    private func makeChangeSet(_ changed: [ManagedObject]) -> ChangeSet {
        var changes = ChangeSet()
        changes.upserts.reserveCapacity(changed.count)
        changes.upsertFlags.reserveCapacity(changed.count)
        for object in changed {
            let id = object.objectID
            if object.isDeletedInContext {
                if !insertedIDs.contains(id) { changes.deletes.append(id) }
            } else {
                changes.upserts.append(object.state)
                changes.upsertFlags.append(insertedIDs.contains(id) ? .inserted : [])
            }
        }
        return changes
    }

    /// Takes a child's saved changes as this context's own unsaved ones.
    func absorb(_ changes: ChangeSet) {
        withLock {
            for (index, state) in changes.upserts.enumerated() {
                let object: ManagedObject
                if let registered = registeredObject(state.id) {
                    object = registered
                    object.state = merged(state, over: registered.state)
                } else if let entity = model.entity(named: state.id.entityName) {
                    object = makeObject(state.id, entity, state)
                } else {
                    continue
                }
                object.isDeletedInContext = false
                if changes.flags(at: index).contains(.inserted) { insertedIDs.insert(state.id) }
                noteChanged(object)
            }
            for id in changes.deletes {
                guard let object = registeredObject(id) ?? (try? existingObject(with: id)) else { continue }
                object.isDeletedInContext = true
                if insertedIDs.remove(id) != nil {
                    changedObjects[id] = nil
                    changeOrder.removeAll { $0 == id }
                } else {
                    deletedIDs.insert(id)
                    noteChanged(object)
                }
            }
        }
    }

    /// Shows a commit made through another context: registered objects without changes
    /// here take the committed state; deleted ones are marked deleted.
    func mergeCommitted(_ changes: ChangeSet) {
        withLock {
            // An import's batches merge into contexts that hold none of their objects.
            guard !registersNothing else { return }
            for index in changes.upserts.indices {
                let id = changes.upserts[index].id
                guard let object = registeredObject(id), changedObjects[id] == nil else { continue }
                object.state = merged(changes.upserts[index], over: object.state)
            }
            for id in changes.deletes {
                guard let object = registeredObject(id), changedObjects[id] == nil else { continue }
                object.isDeletedInContext = true
            }
            for removal in changes.removedTargets {
                guard let object = registeredObject(removal.owner), changedObjects[removal.owner] == nil else { continue }
                object.state.removeTarget(removal.target, at: removal.position)
            }
        }
    }

    /// `incoming`, with the to-many relationships it did not load (or only added to)
    /// completed from `current`.
    private func merged(_ incoming: ObjectState, over current: ObjectState) -> ObjectState {
        var result = incoming
        result.fillUnloaded(from: current)
        return result
    }
}
