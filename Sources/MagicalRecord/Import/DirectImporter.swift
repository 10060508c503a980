/// The import path without objects (Spec/IMPORT.md I27). With `commitsEachBatch`, a batch
/// that needs nothing only objects give (hooks, nested records, to-many relationships,
/// inverses that must be read) is imported as object states written straight into the
/// batch's commit: no `ManagedObject`, no registry entry, no savepoint per record. It
/// finds, converts, links, validates, commits and counts as ``Importer`` does, so the
/// store and the ``ImportResult`` come out the same; batches it declines take that path.
struct DirectImporter {
    private let context: ManagedObjectContext
    private let options: ImportOptions
    private let mapping: EntityImportMapping
    /// Per relationship of `mapping`: how it is imported by key, or nil when only the
    /// object path can import a record that gives it a value.
    private let relationships: [ByKey?]
    /// Those of `relationships` imported by key.
    private let byKeys: [ByKey]

    /// A to-one relationship whose targets are found by their entity's indexed key, with
    /// an inverse (if any) that objects join and leave without the object path's checks.
    private final class ByKey {
        let mapping: EntityImportMapping.RelationshipMapping
        let destination: Entity
        let targetKey: EntityImportMapping.AttributeMapping
        /// The position of the inverse to-many in `destination`'s relationships.
        let inverse: (position: Int, relationship: RelationshipDescription)?

        init(
            mapping: EntityImportMapping.RelationshipMapping, destination: Entity, targetKey: EntityImportMapping.AttributeMapping,
            inverse: (position: Int, relationship: RelationshipDescription)?
        ) {
            self.mapping = mapping
            self.destination = destination
            self.targetKey = targetKey
            self.inverse = inverse
        }
    }

    /// Nil when no batch of `entity` can take this path: its class has import hooks, or
    /// its objects are not found by one indexed key of one concrete entity.
    init?(context: ManagedObjectContext, options: ImportOptions, entity: Entity, mappings: ImportMappings) {
        guard options.commitsEachBatch, context.parent == nil,
              !(ObjectClassRegistry.objectClass(for: entity.name) is any ImportHooks.Type),
              Self.isFoundByIndexedKey(entity) else { return nil }
        let mapping = mappings.mapping(for: entity)
        self.context = context
        self.options = options
        self.mapping = mapping
        relationships = mapping.relationships.map { Self.byKey($0, model: context.model, mappings: mappings) }
        byKeys = relationships.compactMap { $0 }
    }

    private static func isFoundByIndexedKey(_ entity: Entity) -> Bool {
        guard !entity.isAbstract, entity.concreteEntities == [entity.name] else { return false }
        return entity.keyAttribute.map { entity.indexedAttributes.contains($0) } ?? true
    }

    private static func byKey(_ relationship: EntityImportMapping.RelationshipMapping, model: ObjectModel, mappings: ImportMappings) -> ByKey? {
        guard !relationship.relationship.isToMany,
              let destination = model.entity(named: relationship.relationship.destination),
              isFoundByIndexedKey(destination), let keyName = destination.keyAttribute,
              relationship.targetKey?.name == keyName,
              let targetKey = mappings.mapping(for: destination).attributes.first(where: { $0.attribute.name == keyName }) else { return nil }
        guard let inverseName = relationship.relationship.inverse else {
            return ByKey(mapping: relationship, destination: destination, targetKey: targetKey, inverse: nil)
        }
        guard let position = destination.slot(ofRelationship: inverseName) else { return nil }
        let inverse = destination.relationships[position]
        // Joining such a to-many needs no read of its members (as in the object path).
        guard inverse.isToMany, !inverse.isOrdered, inverse.minCount == 0, inverse.maxCount == 0 else { return nil }
        return ByKey(mapping: relationship, destination: destination, targetKey: targetKey, inverse: (position, inverse))
    }

    /// Whether every record of `records` can be imported here: an object whose
    /// relationships are absent, or to-one ones given a bare key, null or `{}`.
    func accepts(_ records: [ImportRecord]) -> Bool {
        records.allSatisfy { record in
            guard case .object(let object) = record.value else { return false }
            for (relationship, byKey) in zip(mapping.relationships, relationships) {
                guard case .found(let value, _) = object.value(at: relationship.keyPaths, nullAsAbsent: options.nullAsAbsent) else { continue }
                guard byKey != nil else { return false }
                switch value {
                case .array: return false
                case .object(let nested) where !nested.isEmpty: return false
                default: continue
                }
            }
            return true
        }
    }

    /// Imports and commits one batch that ``accepts(_:)``, counting it in `result`. On
    /// error nothing of it is committed.
    func importBatch(_ records: [ImportRecord], result: inout ImportResult) throws(MagicalRecordError) {
        var batch = DirectBatch(snapshot: try context.stack.store.snapshot(), store: context.stack.store, capacity: records.count)
        try batch.lookUp(collectKeys(records))
        result.recordsRead += records.count
        for record in records {
            let plan: RecordPlan
            do throws(ImportError) {
                plan = try self.plan(record)
            } catch {
                guard options.skipInvalid, Importer.isSkippable(error) else { throw .importFailed(error) }
                result.skipped.append(error)
                continue
            }
            try apply(plan, to: &batch, result: &result)
        }
        let changes = batch.changes(counting: &result)
        var failures: [ValidationFailure] = []
        for state in changes.upserts {
            guard let entity = context.model.entity(named: state.id.entityName) else { continue }
            failures += SaveValidation.failures(of: state, entity: entity)
        }
        guard failures.isEmpty else { throw .validation(failures) }
        try context.stack.store.commit(changes)
        context.mergeCommitted(changes)
        for other in context.stack.contexts(excluding: context) { other.mergeCommitted(changes) }
        Log.saved(context, changes)
    }

    // MARK: Keys

    /// Every key the batch names, by entity: its records' own and their targets'. What
    /// does not convert is left out here and reported when its record is planned.
    private func collectKeys(_ records: [ImportRecord]) -> [String: (Set<AttributeValue>, EntityImportMapping.AttributeMapping)] {
        // Collected apart and put together at the end: inserting through the dictionary
        // copied its entry each time.
        var ownKeys = Set<AttributeValue>(minimumCapacity: mapping.key == nil ? 0 : records.count)
        var targetKeys = [Set<AttributeValue>](repeating: [], count: byKeys.count)
        for record in records {
            guard case .object(let object) = record.value else { continue }
            if let key = mapping.key, case .found(let json, _) = object.value(at: key.keyPaths, nullAsAbsent: true),
               let value = try? Importer.convertKey(json, key, entity: mapping.entity.name, index: record.index) {
                ownKeys.insert(value)
            }
            for (index, byKey) in byKeys.enumerated() {
                guard case .found(let json, _) = object.value(at: byKey.mapping.keyPaths, nullAsAbsent: options.nullAsAbsent),
                      let value = try? Importer.convertKey(json, byKey.targetKey, entity: byKey.destination.name, index: record.index) else { continue }
                targetKeys[index].insert(value)
            }
        }
        var wanted: [String: (Set<AttributeValue>, EntityImportMapping.AttributeMapping)] = [:]
        if let key = mapping.key { wanted[mapping.entity.name] = (ownKeys, key) }
        for (byKey, keys) in zip(byKeys, targetKeys) where !keys.isEmpty {
            wanted[byKey.destination.name, default: ([], byKey.targetKey)].0.formUnion(keys)
        }
        return wanted
    }

    // MARK: Records

    /// What one record does, converted in full before anything changes: a record that
    /// fails to convert leaves no trace.
    private struct RecordPlan {
        /// The record's key; nil: a new object without one.
        var key: AttributeValue?
        var attributes: [(position: Int, value: AttributeValue)] = []
        /// Per relationship given: the target's key, or nil to clear it.
        var targets: [(byKey: ByKey, key: AttributeValue?)] = []
    }

    private func plan(_ record: ImportRecord) throws(ImportError) -> RecordPlan {
        let entityName = mapping.entity.name
        guard case .object(let object) = record.value else {
            throw ImportError(entity: entityName, recordIndex: record.index, reason: .shape("a record must be a JSON object, not \(record.value.kindName)"))
        }
        var plan = RecordPlan()
        if let key = mapping.key, !(options.insertsRecordsWithoutKey && Importer.lacksKey(object, key)) {
            plan.key = try Importer.keyValue(of: object, key, entity: entityName, index: record.index)
        }
        for attribute in mapping.attributes {
            switch object.value(at: attribute.keyPaths, nullAsAbsent: options.nullAsAbsent) {
            case .absent:
                if attribute.useDefaultWhenAbsent { plan.attributes.append((attribute.position, attribute.attribute.defaultValue)) }
            case .found(let value, let keyPath):
                do throws(ImportValueError) {
                    plan.attributes.append((attribute.position, try attribute.conversion.value(from: value)))
                } catch {
                    throw ImportError(entity: entityName, recordIndex: record.index, reason: .conversion(
                        attribute: attribute.attribute.name, key: keyPath, value: value.briefText, reason: error.reason
                    ))
                }
            }
        }
        for byKey in byKeys {
            guard case .found(let value, _) = object.value(at: byKey.mapping.keyPaths, nullAsAbsent: options.nullAsAbsent) else { continue }
            switch value {
            case .null: plan.targets.append((byKey, nil))
            case .object: continue
            default: plan.targets.append((byKey, try Importer.convertKey(value, byKey.targetKey, entity: byKey.destination.name, index: record.index)))
            }
        }
        return plan
    }

    private func apply(_ plan: RecordPlan, to batch: inout DirectBatch, result: inout ImportResult) throws(MagicalRecordError) {
        let id = batch.object(of: mapping.entity, keyedBy: mapping.key?.attribute, key: plan.key, result: &result)
        if let index = batch.states.index(forKey: id) {
            // One lookup for all of them, the state changed in place.
            for (position, value) in plan.attributes { batch.states.values[index].attributes[position] = value }
        }
        for (byKey, key) in plan.targets {
            let target = key.map { batch.object(of: byKey.destination, keyedBy: byKey.targetKey.attribute, key: $0, result: &result) }
            try batch.link(id, byKey.mapping.position, to: target, inverse: byKey.inverse)
        }
    }
}

/// One batch's states on their way to its commit: those found by key (as stored) and
/// those made, with what the batch did to them.
private struct DirectBatch {
    let snapshot: StoreSnapshot
    let store: ObjectStore
    /// Object ids by entity and key: found in the store, or made in this batch.
    var known: [String: [AttributeValue: ObjectID]] = [:]
    /// Stored states of the objects found, as they were.
    var stored: [ObjectID: ObjectState] = [:]
    /// The batch's states of every object it found or made, in the order first touched.
    var states: [ObjectID: ObjectState] = [:]
    var order: [ObjectID] = []
    var inserted: Set<ObjectID> = []
    /// Members that left stored to-many relationships, written as deletions.
    var removals: Set<RemovedTarget> = []
    /// Stored objects the batch found by key: those the result counts as updated or
    /// unchanged (not those it only left, like a person's previous department).
    var found: [ObjectID] = []
    private var foundIDs: Set<ObjectID> = []
    /// Keys the look-up did not find in the store, by entity: the commit's uniqueness
    /// check need not search for them again.
    private var absentKeys: [String: Set<AttributeValue>] = [:]

    /// `capacity`: the batch's records. Its tables are made that large at once: growing
    /// them rehashed every entry again and again.
    init(snapshot: StoreSnapshot, store: ObjectStore, capacity: Int) {
        self.snapshot = snapshot
        self.store = store
        states.reserveCapacity(capacity)
        order.reserveCapacity(capacity)
        inserted.reserveCapacity(capacity)
        found.reserveCapacity(capacity)
        foundIDs.reserveCapacity(capacity)
    }

    /// Finds the wanted keys through each entity's key index.
    mutating func lookUp(_ wanted: [String: (Set<AttributeValue>, EntityImportMapping.AttributeMapping)]) throws(MagicalRecordError) {
        for (entityName, (keys, key)) in wanted {
            guard let position = store.model.entity(named: entityName)?.slot(ofAttribute: key.attribute.name) else { continue }
            var found: [AttributeValue: ObjectID] = [:]
            found.reserveCapacity(keys.count)
            stored.reserveCapacity(stored.count + keys.count)
            var absent = Set<AttributeValue>(minimumCapacity: keys.count)
            let sorted = keys.sorted { AttributeValue.compare($0, $1) == .orderedAscending }
            try snapshot.statesByIndexedValue(entityName, key.attribute.name, sorted) { value, states, isIndexed in
                if !isIndexed { absent.insert(value) }
                for state in states where found[state.attributes[position]] == nil {
                    found[state.attributes[position]] = state.id
                    stored[state.id] = state
                }
            }
            known[entityName] = found
            absentKeys[entityName] = absent
        }
    }

    /// The object of `entity` with `key` (found, or made earlier in the batch), else a new
    /// one, touched for this batch.
    mutating func object(of entity: Entity, keyedBy attribute: AttributeDescription?, key: AttributeValue?, result: inout ImportResult) -> ObjectID {
        if let key, let id = known[entity.name]?[key] {
            touch(id)
            if !inserted.contains(id), foundIDs.insert(id).inserted { found.append(id) }
            return id
        }
        let id = ObjectID(entityName: entity.name, number: store.allocateNumber())
        var state = ObjectState(id: id, entity: entity)
        if let attribute, let key, let position = entity.slot(ofAttribute: attribute.name) {
            state.attributes[position] = key
            known[entity.name, default: [:]][key] = id
        }
        states[id] = state
        order.append(id)
        inserted.insert(id)
        result.created += 1
        return id
    }

    /// Makes the batch's state of a stored object from its stored one, once.
    private mutating func touch(_ id: ObjectID) {
        guard states[id] == nil, let state = stored[id] else { return }
        states[id] = state
        order.append(id)
    }

    /// Sets to-one `position` of `source` to `target`, moving `source` from its previous
    /// target's inverse to the new one's, as ``ManagedObject/setTargets`` does.
    mutating func link(
        _ source: ObjectID, _ position: Int, to target: ObjectID?, inverse: (position: Int, relationship: RelationshipDescription)?
    ) throws(MagicalRecordError) {
        guard case .toOne(let previous) = states[source]?.relationships[position], previous != target else { return }
        states[source]?.relationships[position] = .toOne(target)
        guard let inverse else { return }
        if let previous {
            // The previous target's members are not read: one that joined in this batch
            // leaves its additions, a stored one is deleted from the store's set.
            if states[previous]?.removeTarget(source, at: inverse.position) != true {
                removals.insert(RemovedTarget(owner: previous, position: inverse.position, target: source))
            }
        }
        if let target {
            // Back where it is stored: the deletion is called off, nothing is added.
            guard removals.remove(RemovedTarget(owner: target, position: inverse.position, target: source)) == nil else { return }
            switch states[target]?.relationships[inverse.position] {
            case .added(let extra) where extra.contains(source): return
            case .toMany(let list) where list.contains(source): return
            default: states[target]?.appendTarget(source, at: inverse.position)
            }
        }
    }

    /// The batch's commit: every object made, and every stored one it changed. Found
    /// objects are counted as updated or unchanged, as the object path counts them.
    func changes(counting result: inout ImportResult) -> ChangeSet {
        var changes = ChangeSet()
        changes.upserts.reserveCapacity(order.count)
        changes.inserted = inserted
        changes.removedTargets = Array(removals)
        changes.storedBefore = StoredStates(transactionID: snapshot.transaction.transactionID, states: stored, absentKeys: absentKeys)
        for id in order {
            guard let state = states[id], inserted.contains(id) || state != stored[id] else { continue }
            changes.upserts.append(state)
        }
        // Changed by content, as the object path counts: a stored member that left, or
        // anything else that differs (additions emptied again are no change).
        let leftOwners = Set(removals.map(\.owner))
        for id in found {
            guard var state = states[id] else { continue }
            for position in state.relationships.indices {
                if case .added(let extra) = state.relationships[position], extra.ids.isEmpty { state.relationships[position] = .unloaded }
            }
            if state != stored[id] || leftOwners.contains(id) { result.updated += 1 } else { result.unchanged += 1 }
        }
        return changes
    }
}
