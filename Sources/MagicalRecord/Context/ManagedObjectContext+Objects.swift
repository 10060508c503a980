/// Creating, finding by id, and deleting objects.
extension ManagedObjectContext {
    /// A new object of `entityName`, with every attribute at its default. It reaches the
    /// store when this context (and its parents) save.
    public func insertObject(entityName: String) throws(MagicalRecordError) -> ManagedObject {
        let entity = try entityNamed(entityName)
        guard !entity.isAbstract else { throw .model(.unreadable(source: entityName, reason: "entity \(entityName) is abstract: create one of its subentities")) }
        let id = ObjectID(entityName: entity.internedName, number: stack.store.allocateNumber())
        return withLock {
            let object = makeObject(id, entity, ObjectState(id: id, entity: entity))
            insertedIDs.insert(id)
            noteInserted(object)
            noteChanged(object)
            return object
        }
    }

    /// The object with `id` in this context: the registered one, or one loaded from the
    /// parents' unsaved changes or the store. Throws ``MagicalRecordError/objectNotFound(_:)``
    /// when it does not exist or was deleted.
    public func existingObject(with id: ObjectID) throws(MagicalRecordError) -> ManagedObject {
        try withLock { () throws(MagicalRecordError) in
            if let object = registeredObject(id) {
                guard !object.isDeletedInContext else { throw .objectNotFound(id) }
                return object
            }
            let entity = try entityNamed(id.entityName)
            guard let state = try parentState(of: id, snapshot: nil) else { throw .objectNotFound(id) }
            return makeObject(id, entity, state)
        }
    }

    /// Marks `object` deleted. Its relationships are handled by their delete rules when
    /// the context saves.
    public func delete(_ object: ManagedObject) throws(MagicalRecordError) {
        guard object.managedObjectContext === self else { throw .wrongContext(object.objectID) }
        withLock {
            guard !object.isDeletedInContext else { return }
            noteBeforeChange(object)
            object.isDeletedInContext = true
            deletedIDs.insert(object.objectID)
            noteChanged(object)
        }
    }

    func entityNamed(_ name: String) throws(MagicalRecordError) -> Entity {
        guard let entity = model.entity(named: name) else { throw .model(.unknownEntity(name)) }
        return entity
    }

    /// The object registered for `id`, else a new one made from `state`, under the lock.
    /// Taken without a closure: one would have captured `state` and copied it into the
    /// object (its arrays retained and released again, 2% of a point get).
    func registeredObject(_ id: ObjectID, orMadeFrom state: consuming ObjectState, of entity: Entity) -> ManagedObject {
        link.lock.lock()
        defer { link.lock.unlock() }
        if let registered = registeredObject(id) { return registered }
        return makeObject(id, entity, state)
    }

    /// Registers a new object for `state` (under the lock).
    func makeObject(
        _ id: ObjectID, _ entity: Entity, _ state: consuming ObjectState, as type: ManagedObject.Type? = nil
    ) -> ManagedObject {
        let type = type ?? objectClass(for: entity)
        let object = type.init(ObjectSeed(objectID: id, entity: entity, context: self, state: state))
        register(object)
        return object
    }

    /// The state of `id` as this context's parents see it: their unsaved changes first,
    /// then the store. Nil when it does not exist or a parent deleted it.
    func parentState(of id: ObjectID, snapshot: StoreSnapshot?) throws(MagicalRecordError) -> ObjectState? {
        guard let parent else {
            if let snapshot { return try snapshot.state(of: id) }
            return try stack.store.snapshot().state(of: id)
        }
        return try parent.withLock { () throws(MagicalRecordError) -> ObjectState? in
            if let object = parent.changedObjects[id] {
                return object.isDeletedInContext ? nil : object.state
            }
            return try parent.parentState(of: id, snapshot: snapshot)
        }
    }

    /// The targets of a to-many relationship of `id` as the parents see them.
    func parentTargets(of id: ObjectID, _ relationship: RelationshipDescription, position: Int) throws(MagicalRecordError) -> [ObjectID] {
        guard let parent else {
            return try stack.store.snapshot().targets(of: id, relationship)
        }
        return try parent.withLock { () throws(MagicalRecordError) -> [ObjectID] in
            switch parent.changedObjects[id]?.state.relationships[position] {
            case .toMany(let targets)?:
                return targets
            case .added(let extra)?:
                return RelationshipState.joined(try parent.parentTargets(of: id, relationship, position: position), extra.ids)
            default:
                return try parent.parentTargets(of: id, relationship, position: position)
            }
        }
    }
}
