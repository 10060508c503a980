/// One import into one context (Spec/IMPORT.md): records are taken a batch at a time.
/// For each batch, every key the records name (their own, and those of the related
/// objects they reference, nested or by bare key) is collected first and looked up in one
/// pass over the key indexes and the context's unsaved objects; then each record creates
/// or updates its object. Nothing is looked up per record.
struct Importer {
    let context: ManagedObjectContext
    let options: ImportOptions
    let mappings: ImportMappings
    /// The import's counts, which batches taken by ``DirectImporter`` add to.
    var result = ImportResult()
    /// Objects by key, per (entity, key attribute): found in a lookup pass, or made here.
    private var known: [KeyedEntity: [AttributeValue: ObjectID]] = [:]
    private var touched: Set<ObjectID> = []
    private var reported: Set<ObjectID> = []
    /// Keys added while importing the current record, undone when it is skipped.
    private var addedKeys: [(KeyedEntity, AttributeValue)] = []
    private var touchedNow: [ObjectID] = []
    private var lookupView: ObjectView?
    /// Objects found (not created) since the last ``countUpdates()``.
    private var found: [ObjectID] = []

    /// An entity and the attribute its objects are found by.
    struct KeyedEntity: Hashable {
        let entity: String
        let attribute: String
    }

    init(context: ManagedObjectContext, options: ImportOptions) {
        self.context = context
        self.options = options
        mappings = ImportMappings(model: context.model)
    }

    // MARK: Batches

    /// Imports `records`, top-level records of `entity` (their objects' ids go to
    /// ``ImportResult/objectIDs``).
    mutating func importBatch(_ records: [ImportRecord], entity: Entity) throws(MagicalRecordError) {
        var wanted: [KeyedEntity: Set<AttributeValue>] = [:]
        let mapping = mappings.mapping(for: entity)
        if let key = mapping.key {
            // Sized once: growing a set of 10,000 keys rehashes them all a dozen times.
            wanted[KeyedEntity(entity: entity.name, attribute: key.attribute.name)] = Set(minimumCapacity: records.count)
        }
        for record in records {
            collectKeys(record.value, mapping: mapping, lookup: mapping.key, into: &wanted)
        }
        try lookUp(wanted)

        result.recordsRead += records.count
        for record in records {
            let (index, value) = (record.index, record.value)
            addedKeys = []
            touchedNow = []
            let counted = (created: result.created, found: found.count)
            do {
                // Without skipInvalid the whole import is undone on error (the caller's
                // savepoint), so a record needs no savepoint of its own.
                let object = try options.skipInvalid
                    ? context.withSavepoint { () throws(MagicalRecordError) -> ManagedObject? in
                        try importRecord(value, mapping: mapping, lookup: mapping.key, index: index)
                    }
                    : importRecord(value, mapping: mapping, lookup: mapping.key, index: index)
                guard let object else {
                    result.declined += 1
                    continue
                }
                if !options.commitsEachBatch, reported.insert(object.objectID).inserted { result.objectIDs.append(object.objectID) }
            } catch {
                guard options.skipInvalid, case .importFailed(let failure) = error, Self.isSkippable(failure) else { throw error }
                for (keyed, key) in addedKeys { known[keyed]?[key] = nil }
                for id in touchedNow { touched.remove(id) }
                result.created = counted.created
                found.removeLast(found.count - counted.found)
                result.skipped.append(failure)
            }
        }
    }

    /// Imports `record` into `object` itself, found by no key (importValuesForKeys).
    mutating func importValues(_ record: JSONObject, into object: ManagedObject) throws(MagicalRecordError) {
        let mapping = mappings.mapping(for: object.entity)
        var wanted: [KeyedEntity: Set<AttributeValue>] = [:]
        collectKeys(.object(record), mapping: mapping, lookup: nil, into: &wanted)
        try lookUp(wanted)
        touched.insert(object.objectID)
        let hooks = object as? any ImportHooks
        hooks?.willImport(record)
        try importAttributes(of: record, into: object, hooks: hooks, mapping: mapping, index: 0)
        try importRelationships(of: record, into: object, hooks: hooks, mapping: mapping, index: 0)
        hooks?.didImport(record)
        found.append(object.objectID)
        result.objectIDs.append(object.objectID)
    }

    /// Forgets what the import found and made so far, once it is committed (with
    /// `commitsEachBatch`): later batches find those objects through the store's indexes,
    /// so memory does not grow with the input.
    mutating func forgetCommitted() {
        known = [:]
        touched = []
        reported = []
        lookupView = nil
    }

    /// Makes `object` findable by every attribute this import looks its entity (or an
    /// ancestor) up by, not only the one it was found or made by: a later record may reach
    /// the same object through another relationship's `relatedByAttribute` (I11).
    private mutating func registerKeys(of object: ManagedObject) {
        let names = [object.entity.name] + object.entity.ancestors
        for keyed in Array(known.keys) where names.contains(keyed.entity) {
            let value = object[keyed.attribute]
            guard !value.isNull, known[keyed]?[value] == nil else { continue }
            known[keyed]?[value] = object.objectID
            addedKeys.append((keyed, value))
        }
    }

    /// Sorts the objects found since the last call into updated and unchanged: changed
    /// means noted by the import's savepoint, so call it before that savepoint ends.
    mutating func countUpdates() {
        for id in found {
            if context.isChangedSinceSavepoint(id) { result.updated += 1 } else { result.unchanged += 1 }
        }
        found.removeAll()
    }

    /// Errors about one record; malformed JSON and model problems end the import.
    static func isSkippable(_ error: ImportError) -> Bool {
        switch error.reason {
        case .json, .targetHasNoKey: return false
        default: return true
        }
    }

    // MARK: Collecting keys

    /// Gathers the keys `value` names, its own and its relationships' targets', for one
    /// lookup pass. Only a prefetch: what does not convert is left out here and reported
    /// when the record is imported, after its hooks have had their say.
    private func collectKeys(
        _ value: JSONValue, mapping: EntityImportMapping, lookup: EntityImportMapping.AttributeMapping?,
        into wanted: inout [KeyedEntity: Set<AttributeValue>]
    ) {
        guard case .object(let record) = value else { return }
        if let lookup, case .found(let json, _) = record.value(at: lookup.keyPaths, nullAsAbsent: true),
           let key = try? Self.convertKey(json, lookup, entity: mapping.entity.name, index: 0) {
            wanted[KeyedEntity(entity: mapping.entity.name, attribute: lookup.attribute.name), default: []].insert(key)
        }
        for relationship in mapping.relationships {
            guard case .found(let related, _) = record.value(at: relationship.keyPaths, nullAsAbsent: options.nullAsAbsent),
                  let declared = context.model.entity(named: relationship.relationship.destination),
                  let destination = context.model.importTarget(for: declared) else { continue }
            let destinationMapping = mappings.mapping(for: destination)
            let targetLookup = Self.targetLookup(relationship, destinationMapping)
            let elements: [JSONValue]
            switch related {
            case .array(let items): elements = items
            default: elements = [related]
            }
            for element in elements {
                switch element {
                case .object:
                    collectKeys(element, mapping: destinationMapping, lookup: targetLookup, into: &wanted)
                case .null, .array:
                    continue
                default:
                    guard let targetLookup, let key = try? Self.convertKey(element, targetLookup, entity: destination.name, index: 0) else { continue }
                    wanted[KeyedEntity(entity: destination.name, attribute: targetLookup.attribute.name), default: []].insert(key)
                }
            }
        }
    }

    /// How a relationship finds its targets among the destination's attributes.
    private static func targetLookup(
        _ relationship: EntityImportMapping.RelationshipMapping, _ destination: EntityImportMapping
    ) -> EntityImportMapping.AttributeMapping? {
        relationship.targetKey.flatMap { key in destination.attributes.first { $0.attribute.name == key.name } }
    }

    /// The key of `record`, converted to the key attribute's type. A record of an entity
    /// with a key must have one.
    static func keyValue(
        of record: JSONObject, _ lookup: EntityImportMapping.AttributeMapping, entity: String, index: Int
    ) throws(ImportError) -> AttributeValue {
        try keyValue(record.value(at: lookup.keyPaths, nullAsAbsent: true), lookup, entity: entity, index: index)
    }

    /// The key in what a record holds at its key's paths (looked up with nulls absent).
    static func keyValue(
        _ lookedUp: LookedUp, _ lookup: EntityImportMapping.AttributeMapping, entity: String, index: Int
    ) throws(ImportError) -> AttributeValue {
        guard case .found(let value, _) = lookedUp else {
            throw ImportError(entity: entity, recordIndex: index, reason: .badKey(
                attribute: lookup.attribute.name, value: "absent",
                reason: "the record has no \(lookup.keyPaths.map { "\"\($0)\"" }.joined(separator: " or ")) to find its object by"
            ))
        }
        return try Self.convertKey(value, lookup, entity: entity, index: index)
    }

    /// Whether `record` has no value (or null) where its key is read from.
    static func lacksKey(_ record: JSONObject, _ lookup: EntityImportMapping.AttributeMapping) -> Bool {
        guard case .found = record.value(at: lookup.keyPaths, nullAsAbsent: true) else { return true }
        return false
    }

    static func convertKey(
        _ value: JSONValue, _ lookup: EntityImportMapping.AttributeMapping, entity: String, index: Int
    ) throws(ImportError) -> AttributeValue {
        // Never null: a key the common conversion reads stands.
        if let converted = lookup.conversion.commonValue(from: value) { return converted }
        let attribute = lookup.attribute
        do throws(ImportValueError) {
            let converted = try lookup.conversion.value(from: value)
            guard !converted.isNull else { throw ImportValueError("a key cannot be null") }
            return converted
        } catch {
            throw ImportError(entity: entity, recordIndex: index, reason: .badKey(attribute: attribute.name, value: value.briefText, reason: error.reason))
        }
    }

    // MARK: Looking up

    /// Finds every wanted key among the context's objects (unsaved changes first) and in
    /// the store, through the key attribute's index where it has one.
    private mutating func lookUp(_ wanted: [KeyedEntity: Set<AttributeValue>]) throws(MagicalRecordError) {
        let missing = wanted.compactMap { keyed, keys -> (KeyedEntity, [AttributeValue])? in
            let unknown = keys.filter { known[keyed]?[$0] == nil }
            return unknown.isEmpty ? nil : (keyed, unknown.sorted { AttributeValue.compare($0, $1) == .orderedAscending })
        }
        guard !missing.isEmpty else { return }
        // One view for the whole import: what it made or changed is in `known`, so later
        // batches need not gather the context chain's changes again.
        let view: ObjectView
        if let lookupView {
            view = lookupView
        } else {
            view = try ObjectView(context: context, includesPendingChanges: true)
            lookupView = view
        }
        for (keyed, keys) in missing {
            guard let entity = context.model.entity(named: keyed.entity) else { continue }
            let wantedKeys = Set(keys)
            var found: [AttributeValue: ObjectID] = [:]
            for name in entity.concreteEntities {
                guard let concrete = context.model.entity(named: name), let position = concrete.slot(ofAttribute: keyed.attribute) else { continue }
                var candidates: [ObjectID] = []
                if concrete.indexedAttributes.contains(keyed.attribute) {
                    for key in keys {
                        try view.snapshot.scanIndex(name, keyed.attribute, .prefix(StoreLayout.indexPrefix(key))) { number in
                            candidates.append(ObjectID(entityName: concrete.internedName, number: number))
                            return true
                        }
                    }
                } else {
                    try view.snapshot.scan(name) { state in
                        if wantedKeys.contains(state.attributes[position]) { candidates.append(state.id) }
                        return true
                    }
                }
                for id in candidates where !view.isOverlaid(id) {
                    guard let state = try view.snapshot.state(of: id) else { continue }
                    let key = state.attributes[position]
                    if found[key] == nil { found[key] = id }
                }
                for state in view.pendingStates(of: [name]) {
                    let key = state.attributes[position]
                    if wantedKeys.contains(key), found[key] == nil { found[key] = state.id }
                }
            }
            known[keyed, default: [:]].merge(found) { current, _ in current }
        }
    }

    // MARK: Records

    /// Imports one record of `mapping`'s entity, found by `lookup` (nil: always inserted).
    /// Nil when a `shouldImport` hook declines it.
    private mutating func importRecord(
        _ value: JSONValue, mapping: EntityImportMapping, lookup: EntityImportMapping.AttributeMapping?, index: Int
    ) throws(MagicalRecordError) -> ManagedObject? {
        guard case .object(let record) = value else {
            throw .importFailed(ImportError(entity: mapping.entity.name, recordIndex: index, reason: .shape("a record must be a JSON object, not \(value.kindName)")))
        }
        let hookedType = ObjectClassRegistry.objectClass(for: mapping.entity.name) as? any ImportHooks.Type
        guard hookedType?.shouldImport(record) ?? true else { return nil }
        var key: AttributeValue?
        if let lookup, !(options.insertsRecordsWithoutKey && Self.lacksKey(record, lookup)) {
            do throws(ImportError) {
                key = try Self.keyValue(of: record, lookup, entity: mapping.entity.name, index: index)
            } catch {
                throw .importFailed(error)
            }
        }
        let object = try object(for: mapping.entity, keyedBy: lookup?.attribute, key: key)
        let hooks = hookedType == nil ? nil : object as? any ImportHooks
        hooks?.willImport(record)
        try importAttributes(of: record, into: object, hooks: hooks, mapping: mapping, index: index)
        registerKeys(of: object)
        try importRelationships(of: record, into: object, hooks: hooks, mapping: mapping, index: index)
        hooks?.didImport(record)
        return object
    }

    /// The object with `key` (found or made earlier in this import), else a new one.
    private mutating func object(for entity: Entity, keyedBy attribute: AttributeDescription?, key: AttributeValue?) throws(MagicalRecordError) -> ManagedObject {
        if let attribute, let key, let id = known[KeyedEntity(entity: entity.name, attribute: attribute.name)]?[key] {
            let object = try context.existingObject(with: id)
            if touched.insert(id).inserted {
                touchedNow.append(id)
                found.append(id)
            }
            return object
        }
        guard !entity.isAbstract else {
            throw .importFailed(ImportError(entity: entity.name, recordIndex: nil, reason: .shape("entity \(entity.name) is abstract: no object of it can be made")))
        }
        let object = try context.insertObject(entityName: entity.name)
        touched.insert(object.objectID)
        touchedNow.append(object.objectID)
        result.created += 1
        if let attribute, let key {
            try object.setImportedValue(key, for: attribute)
            let keyed = KeyedEntity(entity: entity.name, attribute: attribute.name)
            known[keyed, default: [:]][key] = object.objectID
            addedKeys.append((keyed, key))
        }
        return object
    }

    private func importAttributes(
        of record: JSONObject, into object: ManagedObject, hooks: (any ImportHooks)?, mapping: EntityImportMapping, index: Int
    ) throws(MagicalRecordError) {
        for attribute in mapping.attributes {
            switch record.value(at: attribute.keyPaths, nullAsAbsent: options.nullAsAbsent) {
            case .absent:
                if attribute.useDefaultWhenAbsent { try object.setImportedValue(attribute.attribute.defaultValue, for: attribute.attribute) }
            case .found(let value, let keyPath):
                if let hooks, hooks.importValue(value, forAttribute: attribute.attribute.name) { continue }
                let converted: AttributeValue
                do {
                    converted = try attribute.conversion.value(from: value)
                } catch {
                    throw .importFailed(ImportError(entity: mapping.entity.name, recordIndex: index, reason: .conversion(
                        attribute: attribute.attribute.name, key: keyPath, value: value.briefText, reason: error.reason
                    )))
                }
                try object.setImportedValue(converted, for: attribute.attribute)
            }
        }
    }

    private mutating func importRelationships(
        of record: JSONObject, into object: ManagedObject, hooks: (any ImportHooks)?, mapping: EntityImportMapping, index: Int
    ) throws(MagicalRecordError) {
        for relationship in mapping.relationships {
            guard case .found(let value, _) = record.value(at: relationship.keyPaths, nullAsAbsent: options.nullAsAbsent) else { continue }
            let name = relationship.relationship.name
            if let hooks, !hooks.shouldImport(value, forRelationship: name) || hooks.importRelationship(value, forRelationship: name) { continue }
            guard let declared = context.model.entity(named: relationship.relationship.destination) else { continue }
            guard let destination = context.model.importTarget(for: declared) else {
                throw .importFailed(ImportError(entity: mapping.entity.name, recordIndex: index, reason: .shape(
                    "\(name) leads to abstract entity \(declared.name), whose subentities (\(declared.concreteEntities.joined(separator: ", "))) the import cannot choose between"
                )))
            }
            let destinationMapping = mappings.mapping(for: destination)
            let targetLookup = Self.targetLookup(relationship, destinationMapping)
            let elements: [JSONValue]
            switch value {
            case .null: elements = []
            case .array(let items): elements = items
            case .object(let nested) where nested.isEmpty: continue
            default: elements = [value]
            }
            var targets: [ManagedObject] = []
            for element in elements {
                switch element {
                case .null:
                    continue
                case .object(let nested):
                    guard !nested.isEmpty,
                          let target = try importRecord(element, mapping: destinationMapping, lookup: targetLookup, index: index) else { continue }
                    targets.append(target)
                default:
                    guard let targetLookup else {
                        throw .importFailed(ImportError(entity: mapping.entity.name, recordIndex: index, reason: .targetHasNoKey(relationship: name, destination: destination.name)))
                    }
                    let key: AttributeValue
                    do {
                        key = try Self.convertKey(element, targetLookup, entity: destination.name, index: index)
                    } catch {
                        throw .importFailed(error)
                    }
                    targets.append(try self.object(for: destination, keyedBy: targetLookup.attribute, key: key))
                }
            }
            if relationship.relationship.isToMany {
                let policy = options.relationshipPolicy ?? relationship.policy
                if policy == .add, value != .null {
                    let current = try object.relatedObjects(forKey: name)
                    let currentIDs = Set(current.map(\.objectID))
                    targets = current + targets.filter { !currentIDs.contains($0.objectID) }
                }
                try object.setRelatedObjects(targets, forKey: name)
            } else {
                guard targets.count <= 1 else {
                    throw .importFailed(ImportError(entity: mapping.entity.name, recordIndex: index, reason: .shape("to-one relationship \(name) is given \(targets.count) objects")))
                }
                try object.setRelatedObject(targets.first, forKey: name)
            }
        }
    }
}

extension JSONValue {
    /// "a string", "an array": for messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value as short text for messages: strings quoted, long ones cut.
    var briefText: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.text
        case .string(let text): return AttributeValue.jsonString(text.count > 60 ? String(text.prefix(57)) + "..." : text)
        case .array(let items): return "an array of \(items.count)"
        case .object(let object): return "an object with \(object.count) members"
        }
    }
}

extension ManagedObject {
    /// Sets an imported attribute value, only when it differs: an import of unchanged data
    /// leaves objects unchanged.
    func setImportedValue(_ value: AttributeValue, for attribute: AttributeDescription) throws(MagicalRecordError) {
        guard let position = entity.slot(ofAttribute: attribute.name) else {
            throw .unknownAttribute(entity: entity.name, name: attribute.name)
        }
        guard withContextLock({ state.attributes[position] }) != value else { return }
        try changeState { $0.attributes[position] = value }
    }
}

