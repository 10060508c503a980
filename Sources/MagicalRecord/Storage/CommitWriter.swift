import MagicalStore

/// Writes one ``ChangeSet`` into an engine write transaction: records, index entries and
/// to-many relationship trees, keeping every index equal to the records it indexes.
struct CommitWriter {
    let store: ObjectStore
    let transaction: WriteTransaction

    func apply(_ changes: ChangeSet) throws {
        for id in changes.deletes {
            try delete(id)
        }
        var failures: [ValidationFailure] = []
        for state in changes.upserts {
            failures += try write(state, isNew: changes.inserted.contains(state.id))
        }
        if !failures.isEmpty { throw MagicalRecordError.validation(failures) }
    }

    private func delete(_ id: ObjectID) throws {
        let coder = try store.coder(for: id.entityName)
        let records = try transaction.tree(StoreLayout.objectTree(id.entityName))
        let key = StoreLayout.objectKey(id.number)
        guard let bytes = try records.get(key) else { return }
        let old = try coder.decode(bytes, number: id.number)
        try updateIndexes(coder.entity, number: id.number, old: old, new: nil)
        _ = try records.delete(key)
        for relationship in coder.entity.relationships where relationship.isToMany {
            try removeTargets(of: id, relationship)
        }
    }

    /// Writes the record and its index entries; returns a duplicate-key failure instead of
    /// writing an index entry that would break the key's uniqueness.
    private func write(_ state: ObjectState, isNew: Bool) throws -> [ValidationFailure] {
        let coder = try store.coder(for: state.id.entityName)
        let entity = coder.entity
        let records = try transaction.tree(StoreLayout.objectTree(entity.name))
        let key = StoreLayout.objectKey(state.id.number)
        let old = isNew ? nil : try records.get(key).map { try coder.decode($0, number: state.id.number) }
        if let failure = try duplicateKey(entity, state) { return [failure] }
        try updateIndexes(entity, number: state.id.number, old: old, new: state)
        try records.put(key, coder.encode(state))
        for (position, relationship) in entity.relationships.enumerated() where relationship.isToMany {
            switch state.relationships[position] {
            case .toMany(let targets):
                try replaceTargets(of: state.id, relationship, with: targets, isNew: isNew)
            case .added(let extra):
                try addTargets(of: state.id, relationship, extra)
            default:
                continue
            }
        }
        return []
    }

    private func duplicateKey(_ entity: Entity, _ state: ObjectState) throws -> ValidationFailure? {
        guard let keyName = entity.keyAttribute, let position = entity.slot(ofAttribute: keyName) else { return nil }
        let value = state.attributes[position]
        guard !value.isNull else { return nil }
        let index = try transaction.tree(StoreLayout.indexTree(entity.name, keyName))
        var duplicate = false
        try index.scan(.prefix(StoreLayout.indexPrefix(value))) { key, _ in
            if case .int(let number)? = try KeyEncoding.decode(key).last, number != state.id.number {
                duplicate = true
                return false
            }
            return true
        }
        return duplicate ? ValidationFailure(object: state.id, reason: .duplicateKey(attribute: keyName, value: value)) : nil
    }

    private func updateIndexes(_ entity: Entity, number: Int64, old: ObjectState?, new: ObjectState?) throws {
        for attribute in entity.indexedAttributes {
            guard let position = entity.slot(ofAttribute: attribute) else { continue }
            let oldValue = old?.attributes[position]
            let newValue = new?.attributes[position]
            guard oldValue != newValue else { continue }
            let index = try transaction.tree(StoreLayout.indexTree(entity.name, attribute))
            if let oldValue { _ = try index.delete(StoreLayout.indexKey(oldValue, number)) }
            if let newValue { try index.put(StoreLayout.indexKey(newValue, number), []) }
        }
    }

    private func removeTargets(of id: ObjectID, _ relationship: RelationshipDescription) throws {
        let tree = try transaction.tree(StoreLayout.relationshipTree(id.entityName, relationship.name))
        var keys: [[UInt8]] = []
        try tree.scan(.prefix(StoreLayout.objectKey(id.number))) { key, _ in
            keys.append(key)
            return true
        }
        for key in keys { _ = try tree.delete(key) }
    }

    /// Stores `targets` as the relationship's content: positions for an ordered one, a set
    /// keyed by target otherwise (only the difference is written).
    private func replaceTargets(of id: ObjectID, _ relationship: RelationshipDescription, with targets: [ObjectID], isNew: Bool) throws {
        let tree = try transaction.tree(StoreLayout.relationshipTree(id.entityName, relationship.name))
        if relationship.isOrdered {
            if !isNew { try removeTargets(of: id, relationship) }
            for (position, target) in targets.enumerated() {
                try tree.put(KeyEncoding.encode([.int(id.number), .int(Int64(position))]), try encodedTarget(target))
            }
            return
        }
        var stored: Set<Int64> = []
        if !isNew {
            try tree.scan(.prefix(StoreLayout.objectKey(id.number))) { key, _ in
                if case .int(let number)? = try KeyEncoding.decode(key).last { stored.insert(number) }
                return true
            }
        }
        let wanted = Set(targets.map(\.number))
        for number in stored.subtracting(wanted) {
            _ = try tree.delete(KeyEncoding.encode([.int(id.number), .int(number)]))
        }
        for target in targets where !stored.contains(target.number) {
            try tree.put(KeyEncoding.encode([.int(id.number), .int(target.number)]), try encodedTarget(target))
        }
    }

    /// Adds `targets` to an unordered relationship without reading its current ones: the
    /// set is keyed by target, so a target already there is written over unchanged.
    private func addTargets(of id: ObjectID, _ relationship: RelationshipDescription, _ targets: [ObjectID]) throws {
        let tree = try transaction.tree(StoreLayout.relationshipTree(id.entityName, relationship.name))
        for target in targets {
            try tree.put(KeyEncoding.encode([.int(id.number), .int(target.number)]), try encodedTarget(target))
        }
    }

    private func encodedTarget(_ target: ObjectID) throws -> [UInt8] {
        guard let code = store.slots.entityCode(target.entityName) else {
            throw MagicalRecordError.model(.unknownEntity(target.entityName))
        }
        return StoreSnapshot.encodeTarget(target, code: code)
    }
}
