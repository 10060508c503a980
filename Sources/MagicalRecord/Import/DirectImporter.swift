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
    private let model: ObjectModel
    /// What building a batch needs of the entity and of `byKeys`, as plain values made
    /// once: retaining the mapping's objects for every record cost a reference count that
    /// bounced between the cores when the other thread retained them too (two fifths of
    /// the reading thread's time went to retains and releases).
    private let entity: Entity
    private let entityName: String
    private let keyPosition: Int?
    private let links: [Link]
    /// Per attribute of `mapping`, what planning a record needs of it.
    private let attributePlans: [AttributePlan]
    /// The entities whose keys a batch looks up: `entity` first, then the links'
    /// destinations, each once; a batch keeps a table of keys for each, by place here.
    private let tableEntities: [Entity]

    /// An attribute of `mapping` as planning a record converts it.
    private struct AttributePlan {
        let position: Int
        /// Its default when the record lacks it and `useDefaultValueWhenNotPresent` is set.
        let valueWhenAbsent: AttributeValue?
        /// Unretained: `mapping` holds it while the importer lives, and a retain and a
        /// release per value converted were a twentieth of planning.
        let conversion: Unmanaged<ImportConversion>
        /// A date read through a pattern, which a string the reader left unbuilt gives.
        let readsDatesFromBytes: Bool
    }

    /// The member names whose strings records may leave unbuilt: those a date attribute
    /// reads alone (through one one-name key path), from the string's bytes. Building a
    /// date's text as a string, and freeing it, was a fortieth of the reading thread's work.
    private let dateMemberNames: Set<String>

    /// `json` converted by `conversion` (read alone from its plan: a method on the plan
    /// copied the plan's default value for every value converted).
    private static func value(of json: JSONValue, by conversion: Unmanaged<ImportConversion>) throws(ImportValueError) -> AttributeValue {
        if let value = conversion._withUnsafeGuaranteedRef({ $0.commonValue(from: json) }) { return value }
        return try conversion._withUnsafeGuaranteedRef { conversion in
            Result { () throws(ImportValueError) in try conversion.value(from: json) }
        }.get()
    }

    /// A relationship of `byKeys` as a batch's build links it. Plain values: a link's
    /// destination entity, retained for every record, is an object the committing thread
    /// retains too, and its count bounced between the cores.
    private struct Link {
        /// The destination's place in `tableEntities`.
        let table: Int
        let keyPosition: Int
        let position: Int
        /// The inverse to-many's position in `destination`'s relationships.
        let inversePosition: Int?
    }

    /// A to-one relationship whose targets are found by their entity's indexed key, with
    /// an inverse (if any) that objects join and leave without the object path's checks.
    fileprivate final class ByKey {
        let mapping: EntityImportMapping.RelationshipMapping
        let destination: Entity
        /// `destination`'s name, for the reading thread (see ``DirectImporter/links``).
        let destinationName: String
        let targetKey: EntityImportMapping.AttributeMapping
        /// The position of the inverse to-many in `destination`'s relationships.
        let inverse: (position: Int, relationship: RelationshipDescription)?

        init(
            mapping: EntityImportMapping.RelationshipMapping, destination: Entity, targetKey: EntityImportMapping.AttributeMapping,
            inverse: (position: Int, relationship: RelationshipDescription)?
        ) {
            self.mapping = mapping
            self.destination = destination
            destinationName = destination.name
            self.targetKey = targetKey
            self.inverse = inverse
        }
    }

    /// Nil when no batch of `entity` can take this path: its class has import hooks, its
    /// objects are not found by one indexed key of one concrete entity, or it has more
    /// attributes or relationships than a plan's 16-bit positions hold.
    init?(context: ManagedObjectContext, options: ImportOptions, entity: Entity, mappings: ImportMappings) {
        guard options.commitsEachBatch, context.parent == nil,
              !(ObjectClassRegistry.objectClass(for: entity.name) is any ImportHooks.Type),
              Self.isFoundByIndexedKey(entity),
              entity.attributes.count <= 1 << 16, entity.relationships.count <= 1 << 16 else { return nil }
        let mapping = mappings.mapping(for: entity)
        self.context = context
        self.options = options
        self.mapping = mapping
        let model = context.model
        self.model = model
        relationships = mapping.relationships.map { Self.byKey($0, model: model, mappings: mappings) }
        byKeys = relationships.compactMap { $0 }
        self.entity = entity
        entityName = entity.name
        keyPosition = mapping.key?.position
        attributePlans = mapping.attributes.map { attribute in
            AttributePlan(
                position: attribute.position, valueWhenAbsent: attribute.useDefaultWhenAbsent ? attribute.attribute.defaultValue : nil,
                conversion: Unmanaged.passUnretained(attribute.conversion), readsDatesFromBytes: attribute.conversion.readsDatesFromBytes
            )
        }
        dateMemberNames = Set(mapping.attributes.compactMap { attribute in
            guard attribute.conversion.readsDatesFromBytes, attribute.keyPaths.count == 1, attribute.keyPaths[0].components.count == 1 else { return nil }
            return attribute.keyPaths[0].components[0]
        })
        var tableEntities = [entity]
        links = byKeys.map { byKey in
            let table = tableEntities.firstIndex { $0.name == byKey.destinationName } ?? tableEntities.count
            if table == tableEntities.count { tableEntities.append(byKey.destination) }
            return Link(
                table: table, keyPosition: byKey.targetKey.position, position: byKey.mapping.position, inversePosition: byKey.inverse?.position
            )
        }
        self.tableEntities = tableEntities
    }

    private static func isFoundByIndexedKey(_ entity: Entity) -> Bool {
        guard !entity.isAbstract, entity.fetchesOnlyItself else { return false }
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
        var places = acceptPlaces()
        for record in records {
            guard case .object(let object) = record.value, accepts(object, places: &places) else { return false }
        }
        return true
    }

    /// Where ``accepts(_:)`` looks: each relationship's key paths.
    private func acceptPlaces() -> MemberPlaces {
        MemberPlaces(mapping.relationships.map(\.keyPaths))
    }

    /// ``accepts(_:)`` for one record's object.
    private func accepts(_ object: some JSONMembers, places: inout MemberPlaces) -> Bool {
        for (index, byKey) in relationships.enumerated() {
            guard case .found(let value, _) = places.member(index, in: object, nullAsAbsent: options.nullAsAbsent) else { continue }
            guard byKey != nil else { return false }
            switch value {
            case .array: return false
            case .object(let nested) where !nested.isEmpty: return false
            default: continue
            }
        }
        return true
    }

    /// Imports and commits one batch that ``accepts(_:)``, counting it in `result`. On
    /// error nothing of it is committed.
    func importBatch(_ records: [ImportRecord], result: inout ImportResult) throws(MagicalRecordError) {
        _ = try importBatch(plan(records), after: nil, result: &result)
    }

    /// Imports and commits a batch planned by ``plan(_:)``. `previous`: the batch this
    /// import committed last, which a look-up made ahead (``lookUpAhead(_:)``) may predate.
    /// Returns what this one's commit changed, for the next.
    func importBatch(_ planned: PlannedBatch, after previous: ImportCommit?, result: inout ImportResult) throws(MagicalRecordError) -> ImportCommit {
        let snapshot = try context.stack.store.snapshot()
        let lookup: ImportKeyLookup
        if let ahead = planned.lookup, try ahead.bringUp(to: snapshot, after: previous, planned.keys) {
            lookup = ahead
        } else {
            lookup = try ImportKeyLookup(planned.keys, in: snapshot)
        }
        return try commit(build(planned, on: lookup), result: &result)
    }

    /// A batch's changes, ready for its commit: found, made, linked, counted and validated.
    struct BuiltBatch {
        fileprivate(set) var changes: ChangeSet
        /// What the commit changes, for the next batch's look-up.
        let commit: ImportCommit
        /// The batch's counts, added to the import's when it commits.
        let result: ImportResult
        /// Its records, as many as were encoded while the batch before committed.
        let recordsAhead = RecordsAhead()

        /// Encodes the batch's records until `isWanted` says its commit waits for them.
        func encodeRecords(in store: ObjectStore, until isWanted: () -> Bool) {
            recordsAhead.encode(changes, store: store, until: isWanted)
        }
    }

    /// Builds `planned` on `lookup`'s answer, which it takes over: the batch commits on
    /// the store as of `lookup`'s commit. Touches no context (the import's reading thread
    /// builds batches while the committing thread commits the one before).
    func build(_ planned: PlannedBatch, on lookup: ImportKeyLookup) throws(MagicalRecordError) -> BuiltBatch {
        var result = ImportResult()
        var batch = DirectBatch(lookup, tableEntities: tableEntities, store: context.stack.store, capacity: planned.records.count)
        result.recordsRead = planned.records.count
        let records = planned.records
        for index in records.indices {
            if index + ImportKeyTable.probesAhead < records.count, case .planned(let ahead) = records[index + ImportKeyTable.probesAhead], let key = ahead.key {
                batch.known[0].prefetch(forKey: key)
            }
            switch records[index] {
            case .planned(let plan): try apply(plan, of: planned, to: &batch, result: &result)
            case .failed(let error):
                guard options.skipInvalid, Importer.isSkippable(error) else { throw .importFailed(error) }
                result.skipped.append(error)
            }
        }
        let changes = batch.changes(counting: &result)
        var failures: [ValidationFailure] = []
        // A batch's states come entity by entity: the name is hashed, and the entity
        // bound, once per run of them (binding it per state retained it each time).
        let upserts = changes.upserts
        var start = 0
        while start < upserts.count {
            let name = upserts[start].id.entityName
            var end = start + 1
            while end < upserts.count, upserts[end].id.entityName == name { end += 1 }
            if let entity = model.entity(named: name) {
                for index in start..<end {
                    // Appending an empty array still made a new buffer each time.
                    let found = SaveValidation.failures(of: upserts[index], entity: entity)
                    if !found.isEmpty { failures += found }
                }
            }
            start = end
        }
        guard failures.isEmpty else { throw .validation(failures) }
        return BuiltBatch(changes: changes, commit: batch.commit(), result: result)
    }

    /// Commits a built batch and counts it in `result`; returns what it changed.
    func commit(_ built: BuiltBatch, result: inout ImportResult) throws(MagicalRecordError) -> ImportCommit {
        try context.stack.commit(built.changes, recordsAhead: built.recordsAhead)
        context.mergeCommitted(built.changes)
        for other in context.stack.contexts(excluding: context) { other.mergeCommitted(built.changes) }
        Log.saved(context, built.changes)
        result.add(built.result)
        return built.commit
    }

    /// Looks `planned`'s keys up in the store as it is now, ahead of the batch's turn (on
    /// the import's reading thread); a look-up that fails is left for the batch's turn.
    func lookUpAhead(_ planned: inout PlannedBatch) {
        planned.lookup = try? ImportKeyLookup(planned.keys, in: context.stack.store.snapshot())
    }

    // MARK: Keys

    /// Every key the planned batch names, by entity: its records' own and their targets',
    /// as planning converted them (a record that did not convert names none).
    private func collectKeys(_ planned: PlannedBatch) -> ImportKeyLookup.Wanted {
        // Collected apart and put together at the end: inserting through the dictionary
        // copied its entry each time. The records' own keys, distinct as a rule, in an
        // array: inserting tens of thousands in a set probed it out of the cache each time,
        // and the look-up's sort finds any repeats. Targets' keys repeat (a department per
        // person) and stay few: a set, with integer repeats mostly caught before it.
        var ownKeys: [AttributeValue] = []
        ownKeys.reserveCapacity(mapping.key == nil ? 0 : planned.records.count)
        var targetKeys = [Set<AttributeValue>](repeating: [], count: byKeys.count)
        var recentTargets = [RecentIntegers](repeating: RecentIntegers(), count: byKeys.count)
        for record in planned.records {
            guard case .planned(let plan) = record else { continue }
            if let key = plan.key { ownKeys.append(key) }
            for place in plan.targets {
                guard let key = planned.targets[place].key else { continue }
                let link = Int(planned.targets[place].link)
                if case .integer(let value) = key, recentTargets[link].noteIsRepeat(value) { continue }
                targetKeys[link].insert(key)
            }
        }
        var wanted: ImportKeyLookup.Wanted = [:]
        if let key = mapping.key { wanted[mapping.entity.name] = (ownKeys, key) }
        for (byKey, keys) in zip(byKeys, targetKeys) where !keys.isEmpty {
            wanted[byKey.destination.name, default: ([], byKey.targetKey)].0.append(contentsOf: keys)
        }
        return wanted
    }

    // MARK: Records

    /// A batch converted in full, apart from the store: what an import plans on its
    /// reading thread while the batch before commits. Each record's converted values lie
    /// in arrays shared by the batch (an array per record was an allocation per record).
    struct PlannedBatch {
        fileprivate enum Record {
            case planned(RecordPlan)
            /// Did not convert; nothing of it is in the arrays. Boxed: an error is large and
            /// rare, and every record's place took its size.
            indirect case failed(ImportError)
        }

        fileprivate var records: [Record] = []
        var recordCount: Int { records.count }
        /// Every key the batch names, by entity (``collectKeys(_:)``).
        fileprivate(set) var keys: ImportKeyLookup.Wanted = [:]
        fileprivate var attributes: [PlannedAttribute] = []
        /// Per relationship given: the target's key, or nil to clear it.
        fileprivate var targets: [PlannedTarget] = []
        /// The keys looked up ahead, as of some commit.
        var lookup: ImportKeyLookup?
    }

    /// A planned record's converted attribute value, by the attribute's position. A type
    /// of its own, not a tuple: a batch's hundreds of thousands are destroyed through their
    /// type's own witness, not the runtime's walk of a tuple's elements. The position
    /// comes after the value, 16 bits wide, in the value's padding: 24 bytes each, not 32.
    fileprivate struct PlannedAttribute {
        let value: AttributeValue
        let position: UInt16
    }

    /// A planned record's relationship given by its target's key (nil: cleared); `link`:
    /// the relationship's place in `byKeys` (in the key's padding, as above).
    fileprivate struct PlannedTarget {
        let key: AttributeValue?
        let link: UInt16
    }

    /// What one record does, converted in full before anything changes: a record that
    /// fails to convert leaves no trace.
    fileprivate struct RecordPlan {
        /// The record's key; nil: a new object without one.
        var key: AttributeValue?
        /// Its values in the batch's `attributes`.
        var attributes: Range<Int>
        /// Its relationships in the batch's `targets`.
        var targets: Range<Int>
    }

    /// Converts every record of a batch that ``accepts(_:)`` (the records' JSON is not
    /// needed after this).
    func plan(_ records: [ImportRecord]) -> PlannedBatch {
        var planned = emptyPlan(records: records.count)
        var places = planPlaces()
        for record in records {
            guard case .object(let object) = record.value else {
                planned.records.append(.failed(ImportError(
                    entity: entityName, recordIndex: record.index, reason: .shape("a record must be a JSON object, not \(record.value.kindName)")
                )))
                continue
            }
            appendPlan(of: object, index: record.index, to: &planned, places: &places)
        }
        // From the converted records: converting every key a second time to look it up was
        // a fifth of planning.
        planned.keys = collectKeys(planned)
        return planned
    }

    /// Plans up to `count` records straight from `stream`'s bytes, as ``accepts(_:)`` and
    /// ``plan(_:)`` would have them, without building their objects (each an allocation,
    /// and taking it apart again: a tenth of the reading thread's work). Nil, with the
    /// stream where it was, when a record is one ``accepts(_:)`` refuses, or the stream
    /// cannot be read so (``JSONArrayStream/next(upTo:inPlace:built:)``): read the batch
    /// as records then. No records planned: the stream is at its end.
    func plan(from stream: JSONArrayStream, upTo count: Int) throws(JSONError) -> PlannedBatch? {
        var planning = StreamPlanning(planned: emptyPlan(records: count), places: planPlaces(), accepting: acceptPlaces())
        // Reached through a pointer: variables captured by the callbacks were checked for
        // exclusive access at run time, three times a record (a twentieth of planning).
        let read = try withUnsafeMutablePointer(to: &planning) { planning throws(JSONError) in
            func take(_ object: some JSONMembers, index: Int) -> Bool {
                guard accepts(object, places: &planning.pointee.accepting) else { return false }
                appendPlan(of: object, index: index, to: &planning.pointee.planned, places: &planning.pointee.places)
                return true
            }
            return try stream.next(upTo: count) { index, object in
                take(object, index: index)
            } built: { index, value in
                guard case .object(let object) = value else { return false }
                return take(object, index: index)
            } unbuiltStrings: { names in
                dateMemberNames.isEmpty ? [] : names.names.map(dateMemberNames.contains)
            }
        }
        guard read != nil else { return nil }
        planning.planned.keys = collectKeys(planning.planned)
        return planning.planned
    }

    /// What planning from a stream changes as it goes.
    private struct StreamPlanning {
        var planned: PlannedBatch
        var places: MemberPlaces
        var accepting: MemberPlaces
    }

    private func emptyPlan(records count: Int) -> PlannedBatch {
        var planned = PlannedBatch()
        planned.records.reserveCapacity(count)
        planned.attributes.reserveCapacity(count * mapping.attributes.count)
        planned.targets.reserveCapacity(count * byKeys.count)
        return planned
    }

    /// Where planning looks: the key's paths first, then each attribute's, then each
    /// relationship's in `byKeys`.
    private func planPlaces() -> MemberPlaces {
        MemberPlaces([mapping.key?.keyPaths ?? []] + mapping.attributes.map(\.keyPaths) + byKeys.map(\.mapping.keyPaths))
    }

    /// Plans record `index`, whose object is `object`, into `planned`: converted, or failed
    /// (leaving nothing in the arrays).
    private func appendPlan(of object: some JSONMembers, index: Int, to planned: inout PlannedBatch, places: inout MemberPlaces) {
        let (attributeStart, targetStart) = (planned.attributes.count, planned.targets.count)
        do throws(ImportError) {
            planned.records.append(.planned(try plan(object, index: index, into: &planned, places: &places)))
        } catch {
            planned.attributes.removeSubrange(attributeStart...)
            planned.targets.removeSubrange(targetStart...)
            planned.records.append(.failed(error))
        }
    }

    /// Plans one record, its values appended to `planned`'s arrays (see ``planPlaces()``).
    private func plan(_ object: some JSONMembers, index recordIndex: Int, into planned: inout PlannedBatch, places: inout MemberPlaces) throws(ImportError) -> RecordPlan {
        var key: AttributeValue?
        if let keyMapping = mapping.key {
            let found = places.value(of: 0, in: object, nullAsAbsent: true)
            let isKeyless = if case .absent = found { options.insertsRecordsWithoutKey } else { false }
            if !isKeyless { key = try Importer.keyValue(found, keyMapping, entity: entityName, index: recordIndex) }
        }
        let attributeStart = planned.attributes.count
        // By index into plain arrays: iterating the mapping's attributes retained and
        // released each of them (and its conversion) for every record.
        for index in attributePlans.indices {
            if attributePlans[index].readsDatesFromBytes, let position = places.singleMember(1 + index, in: object),
               let bytes = object.unbuiltString(atMember: position),
               let date = attributePlans[index].conversion._withUnsafeGuaranteedRef({ $0.commonDate(bytes) }) {
                planned.attributes.append(PlannedAttribute(value: .date(date), position: UInt16(attributePlans[index].position)))
                continue
            }
            switch places.member(1 + index, in: object, nullAsAbsent: options.nullAsAbsent) {
            case .absent:
                if let value = attributePlans[index].valueWhenAbsent { planned.attributes.append(PlannedAttribute(value: value, position: UInt16(attributePlans[index].position))) }
            case .found(let value, let place):
                do throws(ImportValueError) {
                    planned.attributes.append(PlannedAttribute(
                        value: try Self.value(of: value, by: attributePlans[index].conversion), position: UInt16(attributePlans[index].position)
                    ))
                } catch {
                    throw ImportError(entity: entityName, recordIndex: recordIndex, reason: .conversion(
                        attribute: mapping.attributes[index].attribute.name, key: places.keyPath(at: place), value: value.briefText, reason: error.reason
                    ))
                }
            }
        }
        let targetStart = planned.targets.count
        for link in byKeys.indices {
            guard case .found(let value, _) = places.member(1 + attributePlans.count + link, in: object, nullAsAbsent: options.nullAsAbsent) else { continue }
            switch value {
            case .null: planned.targets.append(PlannedTarget(key: nil, link: UInt16(link)))
            case .object: continue
            default:
                let key = try Importer.convertKey(value, byKeys[link].targetKey, entity: byKeys[link].destinationName, index: recordIndex)
                planned.targets.append(PlannedTarget(key: key, link: UInt16(link)))
            }
        }
        return RecordPlan(key: key, attributes: attributeStart..<planned.attributes.count, targets: targetStart..<planned.targets.count)
    }

    private func apply(_ plan: RecordPlan, of planned: PlannedBatch, to batch: inout DirectBatch, result: inout ImportResult) throws(MagicalRecordError) {
        // By index, not over slices: a slice retained the batch's array for every record.
        let (index, unset) = batch.object(table: 0, keyedBy: keyPosition, key: plan.key, setting: planned.attributes, plan.attributes, result: &result)
        batch.setAttributes(of: index, planned.attributes, unset)
        for place in plan.targets {
            let link = links[Int(planned.targets[place].link)]
            let target = planned.targets[place].key.map {
                batch.object(table: link.table, keyedBy: link.keyPosition, key: $0, result: &result)
            }
            batch.link(index, link.position, to: target, inversePosition: link.inversePosition)
        }
    }
}

/// One batch's states on their way to its commit: those found by key (as stored) and
/// those made, with what the batch did to them. Objects are kept in an array and named
/// by their place in it: a table of states by id copied and rehashed whole states.
private struct DirectBatch {
    /// An object the batch found or made.
    struct Entry {
        var state: ObjectState
        /// As stored; nil for an object the batch made.
        let stored: ObjectState?
        /// Whether `stored` is there (asked per record: testing the optional copied the
        /// state, retaining each of its arrays).
        let isStored: Bool
        /// Made with a key the look-up found absent (see ``UpsertFlags/keyKnownAbsent``).
        let hasAbsentKey: Bool
        /// Found by key (not only left, like a person's previous department): the result
        /// counts it as updated or unchanged.
        var isFound = false
        /// Whether `state.attributes` has storage of its own, not shared with `stored` or
        /// the entity's defaults (``DirectBatch/setAttributes(of:_:_:)`` then writes in place).
        var ownsAttributes: Bool

        init(state: ObjectState, stored: ObjectState?, hasAbsentKey: Bool = false, ownsAttributes: Bool = false) {
            self.state = state
            self.stored = stored
            isStored = stored != nil
            self.hasAbsentKey = hasAbsentKey
            self.ownsAttributes = ownsAttributes
        }
    }

    let store: ObjectStore
    /// The commit the look-up holds for.
    let transactionID: UInt64
    /// The entities of `known`'s tables, by place.
    let tableEntities: [Entity]
    /// Per entity of `tableEntities`, what a new object of it starts from.
    private let templates: [NewObjectTemplate]
    /// Per entity of `tableEntities`: by key, the object found in the store or made in this
    /// batch, or that the store lacks the key. By place, not by name: a record probes two
    /// tables, and hashing the names cost as much as the probes.
    var known: [ImportKeyLookup.KeyTable]
    /// Stored states of the objects found, as they were, placed by their keys' slots in
    /// `known` (``ImportKeyTable/subscript(locationAt:)``); each is moved into `entries` when
    /// first touched.
    var stored: [ObjectState]
    /// Every object the batch found or made, in the order first touched (moved out by
    /// ``changes(counting:)``).
    var entries: [Entry] = []
    /// Places in `entries`, by id.
    private var positions: EntryPlaces
    /// Members that left stored to-many relationships, written as deletions.
    var removals: Set<RemovedTarget> = []
    /// Room the tables are made with; `removals` gets it at its first member (most batches
    /// have none, and an upsert's moves one per record: growing rehashed them all again).
    private let tableCapacity: Int
    /// By place in `entries`: where the commit's upserts hold the object's state, or -1
    /// when the commit leaves it as stored (set by ``changes(counting:)``).
    private var writtenAt: [Int] = []

    /// `capacity`: the batch's records. Its tables are made that large at once, with room
    /// for some targets: growing them rehashed every entry again and again, and an array
    /// one entry too small doubled.
    init(_ lookup: ImportKeyLookup, tableEntities: [Entity], store: ObjectStore, capacity: Int) {
        self.store = store
        self.tableEntities = tableEntities
        templates = tableEntities.map { NewObjectTemplate($0) }
        transactionID = lookup.transactionID
        var tables: [String: ImportKeyLookup.KeyTable]
        (tables, stored) = lookup.take()
        known = tableEntities.map { tables.removeValue(forKey: $0.name) ?? [:] }
        let withTargets = capacity + capacity / 16 + 64
        tableCapacity = withTargets
        entries.reserveCapacity(withTargets)
        positions = EntryPlaces(capacity: withTargets)
    }

    /// The place in `entries` of the object with `key` of the entity at `table` in
    /// `tableEntities` (found, or made earlier in the batch), else of a new one.
    /// `keyPosition`: the key attribute's position.
    mutating func object(table: Int, keyedBy keyPosition: Int?, key: AttributeValue?, result: inout ImportResult) -> Int {
        object(table: table, keyedBy: keyPosition, key: key, setting: [], 0..<0, result: &result).index
    }

    /// ``object(table:keyedBy:key:result:)``, a new object made with `values[range]` set
    /// too, in the one pass that makes its attributes (made first and then set, its
    /// attributes were written twice). Returns the place in `entries`, and the values not
    /// set yet: all of them for an object found, those out of position order for one made.
    mutating func object(
        table: Int, keyedBy keyPosition: Int?, key: AttributeValue?, setting values: [DirectImporter.PlannedAttribute], _ range: Range<Int>,
        result: inout ImportResult
    ) -> (index: Int, unset: Range<Int>) {
        // One probe finds the key's answer and where its state is; a new object is
        // recorded in its place.
        var found: (slot: Int, answer: IndexedKey, location: Int32)?
        if let key { found = known[table].slotAnswerAndLocation(forKey: key) }
        var hasAbsentKey = false
        if let found {
            switch found.answer {
            case .object(let id):
                if let index = touch(id, location: found.location, table: table, slot: found.slot) {
                    if entries[index].isStored { entries[index].isFound = true }
                    return (index, range)
                }
            case .absent:
                hasAbsentKey = keyPosition != nil
            }
        }
        let id = ObjectID(entityName: templates[table].internedName, number: store.allocateNumber())
        let keyValue = keyPosition.flatMap { position in key.map { (position: position, value: $0) } }
        // Attributes made here are the object's own; the template's are shared.
        let makesAttributes = !range.isEmpty || keyValue != nil
        var unset = range
        let state: ObjectState
        if makesAttributes {
            let attributes: [AttributeValue]
            (attributes, unset) = Self.attributes(templates[table].defaultAttributes, key: keyValue, values, range)
            state = ObjectState(id: id, attributes: attributes, relationships: templates[table].emptyRelationships)
        } else {
            state = templates[table].state(id)
        }
        result.created += 1
        let index = appendMade(Entry(state: state, stored: nil, hasAbsentKey: hasAbsentKey, ownsAttributes: makesAttributes))
        if keyPosition != nil, let key {
            if let found {
                known[table][slot: found.slot] = .object(id)
                known[table][locationAt: found.slot] = Self.location(ofEntry: index)
            } else {
                known[table].set(key, .object(id), location: Self.location(ofEntry: index))
            }
        }
        return (index, unset)
    }

    /// Attributes in storage of their own, made in one pass: each position takes the next
    /// of `values[range]` when that is its value (planned in position order, as mappings
    /// list attributes), else `key`'s value at its position, else its value in `base` (a
    /// new object's defaults, or a found one's attributes). Returns them with the values
    /// left (out of order), to be written after.
    private static func attributes(
        _ base: [AttributeValue], key: (position: Int, value: AttributeValue)?, _ values: [DirectImporter.PlannedAttribute], _ range: Range<Int>
    ) -> ([AttributeValue], unset: Range<Int>) {
        var place = range.lowerBound
        var attributes: [AttributeValue] = []
        attributes.reserveCapacity(base.count)
        for position in base.indices {
            if place < range.upperBound, Int(values[place].position) == position {
                attributes.append(values[place].value)
                place += 1
            } else if let key, key.position == position {
                attributes.append(key.value)
            } else {
                attributes.append(base[position])
            }
        }
        return (attributes, place..<range.upperBound)
    }

    /// A key's location in `known` for entry `index`: the look-up's (0 and up) are
    /// states in `stored`, the batch's entries are below ``ImportKeyTable/noLocation``.
    private static func location(ofEntry index: Int) -> Int32 { Int32(truncatingIfNeeded: -2 - index) }

    /// The entry a location from ``location(ofEntry:)`` names.
    private static func entry(atLocation location: Int32) -> Int { -2 - Int(location) }

    /// Sets the attributes `values[range]` (position and value) of the object at `index`.
    ///
    /// Attributes shared with the stored state or the defaults are built afresh in one
    /// pass, each position taking its planned value or its old one (a write into shared
    /// storage copied it the slow way first); attributes of the object's own are written
    /// through their buffer (a write each checked the arrays' uniqueness twice). Together
    /// 1,500 instructions a record before, callgrind.
    mutating func setAttributes(of index: Int, _ values: [DirectImporter.PlannedAttribute], _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var place = range.lowerBound
        if !entries[index].ownsAttributes {
            let (fresh, unset) = Self.attributes(entries[index].state.attributes, key: nil, values, range)
            entries[index].state.attributes = fresh
            entries[index].ownsAttributes = true
            place = unset.lowerBound
        }
        guard place < range.upperBound else { return }
        entries[index].state.attributes.withUnsafeMutableBufferPointer { attributes in
            for place in place..<range.upperBound {
                let position = Int(values[place].position)
                precondition(position < attributes.count, "a planned attribute's position is the entity's")
                attributes[position] = values[place].value
            }
        }
    }

    /// The place in `entries` of the object `id`, found or made, whose key's slot in
    /// table `table` holds `location`; a stored one gets its entry the first time. Nil
    /// when no state of it is known (a new object then takes the key).
    private mutating func touch(_ id: ObjectID, location: Int32, table: Int, slot: Int) -> Int? {
        if location < ImportKeyTable.noLocation { return Self.entry(atLocation: location) }
        guard location >= 0 else { return positions[id] }
        let index = entries.count
        // Another key placing the same object (which no import makes) finds its entry.
        if let entered = positions.noteFound(id, at: index) {
            known[table][locationAt: slot] = Self.location(ofEntry: entered)
            return entered
        }
        // Moved out of `stored`: a copy retained the state's arrays, and the batch's end
        // released them again.
        var state = ObjectState(id: id, attributes: [], relationships: [])
        swap(&state, &stored[Int(location)])
        entries.append(Entry(state: state, stored: state))
        known[table][locationAt: slot] = Self.location(ofEntry: index)
        return index
    }

    /// Enters an object the batch made; returns its place.
    private mutating func appendMade(_ entry: consuming Entry) -> Int {
        positions.noteMade(entry.state.id, at: entries.count)
        entries.append(entry)
        return entries.count - 1
    }

    /// Sets to-one `position` of `source` to `target` (places in `entries`), moving
    /// `source` from its previous target's inverse to the new one's, as
    /// ``ManagedObject/setTargets`` does.
    mutating func link(_ source: Int, _ position: Int, to target: Int?, inversePosition: Int?) {
        let targetID = target.map { entries[$0].state.id }
        guard case .toOne(let previous) = entries[source].state.relationships[position], previous != targetID else { return }
        entries[source].state.relationships[position] = .toOne(targetID)
        guard let inversePosition else { return }
        let sourceID = entries[source].state.id
        if let previous {
            // The previous target's members are not read: one that joined in this batch
            // leaves its additions, a stored one is deleted from the store's set. A to-one
            // still as stored was not linked in this batch, so the source is in no target's
            // additions: they are not searched (an upsert moves half its records).
            let linkedInBatch = entries[source].stored?.relationships[position] != .toOne(previous)
            let left = linkedInBatch && (positions[previous].map { entries[$0].state.removeTarget(sourceID, at: inversePosition) } ?? false)
            if !left {
                if removals.isEmpty { removals.reserveCapacity(tableCapacity) }
                removals.insert(RemovedTarget(owner: previous, position: inversePosition, target: sourceID))
            }
        }
        if let target, let targetID {
            // Back where it is stored: the deletion is called off, nothing is added. (Most
            // batches remove nothing: no hashing then.)
            if !removals.isEmpty, removals.remove(RemovedTarget(owner: targetID, position: inversePosition, target: sourceID)) != nil { return }
            // Not among the target's members yet: one joins them in a batch only through its
            // own to-one, which pointed elsewhere (the guard above), and leaves them when
            // that changes. So neither a set of members nor a scan of them is needed.
            entries[target].state.appendTarget(sourceID, at: inversePosition, isNew: true)
        }
    }

    /// The batch's commit: every object made, and every stored one it changed. Found
    /// objects are counted as updated or unchanged, as the object path counts them. The
    /// states are moved out of `entries`: copies retained each state's arrays, long out
    /// of the cache by now.
    mutating func changes(counting result: inout ImportResult) -> ChangeSet {
        writtenAt = Array(repeating: -1, count: entries.count)
        var changes = ChangeSet()
        changes.upserts.reserveCapacity(entries.count)
        changes.removedTargets = Array(removals)
        var storedBefore: [ObjectState?] = []
        storedBefore.reserveCapacity(entries.count)
        var isRead: [Bool] = []
        isRead.reserveCapacity(entries.count)
        changes.upsertFlags.reserveCapacity(entries.count)
        let leftOwners = Set(removals.map(\.owner))
        for index in entries.indices {
            var entry = takeEntry(at: index)
            guard let stored = entry.stored else {
                writtenAt[index] = changes.upserts.count
                changes.upsertFlags.append(entry.hasAbsentKey ? [.inserted, .keyKnownAbsent] : .inserted)
                changes.upserts.append(entry.takeState())
                storedBefore.append(nil)
                isRead.append(false)
                continue
            }
            let isChanged = entry.state != stored
            if entry.isFound {
                if leftOwners.contains(stored.id) || (isChanged && entry.changedByContent) {
                    result.updated += 1
                } else {
                    result.unchanged += 1
                }
            }
            if isChanged {
                writtenAt[index] = changes.upserts.count
                changes.upsertFlags.append([])
                changes.upserts.append(entry.takeState())
                storedBefore.append(stored)
                isRead.append(true)
            }
        }
        changes.storedBefore = StoredStates(transactionID: transactionID, states: storedBefore, isRead: isRead)
        entries.removeAll()
        return changes
    }

    /// Entry `index`, moved out (an empty one is left in its place): read through the
    /// array, each entry was copied, retaining every array of both its states.
    private mutating func takeEntry(at index: Int) -> Entry {
        var entry = Entry(state: ObjectState(id: entries[index].state.id, attributes: [], relationships: []), stored: nil)
        swap(&entry, &entries[index])
        return entry
    }
}

extension DirectBatch {
    /// What this batch's commit (``changes(counting:)``) writes, for the next batch's
    /// look-up: the batch's tables, handed over.
    consuming func commit() -> ImportCommit {
        ImportCommit(
            before: transactionID, known: Dictionary(uniqueKeysWithValues: zip(tableEntities.map(\.name), known)), positions: positions,
            writtenAt: writtenAt, removalOwners: Set(removals.map(\.owner))
        )
    }
}

private extension DirectBatch.Entry {
    /// The state, moved out (an empty one is left in its place).
    mutating func takeState() -> ObjectState {
        var taken = ObjectState(id: state.id, attributes: [], relationships: [])
        swap(&taken, &state)
        return taken
    }

    /// Whether the batch changed the object by content, as the object path counts: a
    /// stored member that left is counted by the caller; additions emptied again are no
    /// change.
    var changedByContent: Bool {
        guard let stored else { return true }
        if state.attributes != stored.attributes { return true }
        var state = state
        for position in state.relationships.indices {
            if case .added(let extra) = state.relationships[position], extra.ids.isEmpty { state.relationships[position] = .unloaded }
        }
        return state != stored
    }
}
