/// Relationship access. Every change updates the inverse on the other side, so both ends
/// always agree.
extension ManagedObject {
    /// The target of to-one relationship `key`.
    public func relatedObject(forKey key: String) throws(MagicalRecordError) -> ManagedObject? {
        let (position, relationship) = try relationship(key)
        guard !relationship.isToMany else { throw .unknownRelationship(entity: entity.name, name: key + " (to-many: use relatedObjects)") }
        guard let context = managedObjectContext else { throw .wrongContext(objectID) }
        guard case .toOne(let target?) = withContextLock({ state.relationships[position] }) else { return nil }
        return try context.existingObject(with: target)
    }

    /// The targets of to-many relationship `key`, in order for an ordered one.
    public func relatedObjects(forKey key: String) throws(MagicalRecordError) -> [ManagedObject] {
        let (position, relationship) = try relationship(key)
        guard relationship.isToMany else { throw .unknownRelationship(entity: entity.name, name: key + " (to-one: use relatedObject)") }
        guard let context = managedObjectContext else { throw .wrongContext(objectID) }
        return try context.withLock { () throws(MagicalRecordError) in
            try loadedTargets(position).map { (id) throws(MagicalRecordError) in try context.existingObject(with: id) }
        }
    }

    public func setRelatedObject(_ target: ManagedObject?, forKey key: String) throws(MagicalRecordError) {
        let (position, relationship) = try relationship(key)
        guard !relationship.isToMany else { throw .unknownRelationship(entity: entity.name, name: key + " (to-many: use setRelatedObjects)") }
        try setTargets(target.map { [$0] } ?? [], position: position, relationship)
    }

    /// Replaces the targets of to-many relationship `key` (their order, for an ordered one).
    public func setRelatedObjects(_ targets: [ManagedObject], forKey key: String) throws(MagicalRecordError) {
        let (position, relationship) = try relationship(key)
        guard relationship.isToMany else { throw .unknownRelationship(entity: entity.name, name: key + " (to-one: use setRelatedObject)") }
        try setTargets(targets, position: position, relationship)
    }

    public func addRelatedObject(_ target: ManagedObject, forKey key: String) throws(MagicalRecordError) {
        let (position, relationship) = try relationship(key)
        guard relationship.isToMany else { throw .unknownRelationship(entity: entity.name, name: key + " (to-one: use setRelatedObject)") }
        guard let context = managedObjectContext else { throw .wrongContext(objectID) }
        try context.withLock { () throws(MagicalRecordError) in
            let current = try loadedTargets(position)
            guard !current.contains(target.objectID) else { return }
            try setTargets(try current.map { (id) throws(MagicalRecordError) in try context.existingObject(with: id) } + [target], position: position, relationship)
        }
    }

    public func removeRelatedObject(_ target: ManagedObject, forKey key: String) throws(MagicalRecordError) {
        let (position, relationship) = try relationship(key)
        guard let context = managedObjectContext else { throw .wrongContext(objectID) }
        try context.withLock { () throws(MagicalRecordError) in
            let remaining = try loadedTargets(position).filter { $0 != target.objectID }
            try setTargets(try remaining.map { (id) throws(MagicalRecordError) in try context.existingObject(with: id) }, position: position, relationship)
        }
    }

    // MARK: Internals (under the context's lock)

    private func relationship(_ key: String) throws(MagicalRecordError) -> (Int, RelationshipDescription) {
        guard let position = entity.slot(ofRelationship: key) else { throw .unknownRelationship(entity: entity.name, name: key) }
        return (position, entity.relationships[position])
    }

    /// The relationship's targets, reading a to-many from the parents or the store the
    /// first time (not a change).
    func loadedTargets(_ position: Int) throws(MagicalRecordError) -> [ObjectID] {
        switch state.relationships[position] {
        case .toOne(let target): return target.map { [$0] } ?? []
        case .toMany(let targets): return targets
        case .unloaded:
            guard let context = managedObjectContext else { throw .wrongContext(objectID) }
            let targets = try context.parentTargets(of: objectID, entity.relationships[position], position: position)
            state.relationships[position] = .toMany(targets)
            return targets
        case .added(let extra):
            guard let context = managedObjectContext else { throw .wrongContext(objectID) }
            let base = try context.parentTargets(of: objectID, entity.relationships[position], position: position)
            let targets = RelationshipState.joined(base, extra.ids)
            state.relationships[position] = .toMany(targets)
            return targets
        }
    }

    /// Sets one side, then fixes every inverse that changes because of it.
    func setTargets(_ targets: [ManagedObject], position: Int, _ relationship: RelationshipDescription) throws(MagicalRecordError) {
        guard let context = managedObjectContext else { throw .wrongContext(objectID) }
        for target in targets where target.managedObjectContext !== context { throw .wrongContext(target.objectID) }
        for target in targets where !target.entity.isKind(of: relationship.destination) {
            throw .unknownRelationship(entity: entity.name, name: "\(relationship.name) cannot hold a \(target.entity.name)")
        }
        try context.withLock { () throws(MagicalRecordError) in
            var seen = Set<ObjectID>()
            let unique = targets.filter { seen.insert($0.objectID).inserted }
            let old = try loadedTargets(position)
            let newIDs = unique.map(\.objectID)
            guard old != newIDs else { return }
            try changeState { $0.relationships[position] = relationship.isToMany ? .toMany(newIDs) : .toOne(newIDs.first) }
            guard let inverseName = relationship.inverse else { return }
            let added = newIDs.filter { !old.contains($0) }
            let removed = old.filter { !newIDs.contains($0) }
            for id in removed {
                guard let target = try? context.existingObject(with: id) else { continue }
                try target.unlinkInverse(inverseName, from: self)
            }
            for target in unique where added.contains(target.objectID) {
                try target.linkInverse(inverseName, to: self)
            }
        }
    }

    /// Adds `source` to this object's side `name` of a relationship (the inverse of the one
    /// being set), detaching this object from a previous to-one owner.
    private func linkInverse(_ name: String, to source: ManagedObject) throws(MagicalRecordError) {
        guard let position = entity.slot(ofRelationship: name) else { return }
        let relationship = entity.relationships[position]
        // Membership is decided in calls of their own, so no copy of the targets is alive
        // while they grow: appending then never copies the array.
        if Self.joinsWithoutReading(relationship), let isMember = addedMembership(of: source.objectID, at: position) {
            guard !isMember else { return }
            try changeState { $0.appendTarget(source.objectID, at: position) }
            return
        }
        if relationship.isToMany {
            guard try !loadedTargets(position).contains(source.objectID) else { return }
            try changeState { $0.appendTarget(source.objectID, at: position) }
        } else {
            // A to-one inverse had another owner: that owner loses this object.
            if let previous = try loadedTargets(position).first, previous != source.objectID,
               let owner = try? managedObjectContext?.existingObject(with: previous),
               let ownerSide = relationship.inverse {
                try owner.unlinkInverse(ownerSide, from: self)
            }
            try changeState { $0.relationships[position] = .toOne(source.objectID) }
        }
    }

    /// For a to-many not read (or only added to): whether `id` is among the additions.
    /// Nil when the targets are loaded.
    private func addedMembership(of id: ObjectID, at position: Int) -> Bool? {
        switch state.relationships[position] {
        case .unloaded: return false
        case .added(let extra): return extra.contains(id)
        default: return nil
        }
    }

    /// Whether objects can join the relationship through their inverse without its targets
    /// being read: an unordered to-many with no count limits to check.
    private static func joinsWithoutReading(_ relationship: RelationshipDescription) -> Bool {
        relationship.isToMany && !relationship.isOrdered && relationship.minCount == 0 && relationship.maxCount == 0
    }

    /// Removes `source` from this object's side `name` of a relationship.
    func unlinkInverse(_ name: String, from source: ManagedObject) throws(MagicalRecordError) {
        guard let position = entity.slot(ofRelationship: name) else { return }
        // No copy of the targets may outlive this line: the removal below is in place.
        guard try loadedTargets(position).contains(source.objectID) else { return }
        if entity.relationships[position].isToMany {
            try changeState { $0.removeTarget(source.objectID, at: position) }
        } else {
            try changeState { $0.relationships[position] = .toOne(nil) }
        }
    }
}
