import MagicalStore

/// Writes one ``ChangeSet`` into an engine write transaction: records, index entries and
/// to-many relationship trees, keeping every index equal to the records it indexes.
struct CommitWriter {
    let store: ObjectStore
    let transaction: WriteTransaction
    /// Records encoded before the commit, if any: used, and the rest encoded.
    let recordsAhead: RecordsAhead?
    private let writers = EntityWriters()
    private let members = MemberChanges()

    init(store: ObjectStore, transaction: WriteTransaction, recordsAhead: RecordsAhead? = nil) {
        self.store = store
        self.transaction = transaction
        self.recordsAhead = recordsAhead
    }

    func apply(_ changes: ChangeSet) throws {
        // Read states are good only if no commit came between the read and this one.
        let storedBefore = changes.storedBefore.flatMap { $0.transactionID + 1 == transaction.transactionID ? $0 : nil }
        for id in changes.deletes {
            try delete(id)
        }
        try removeTargets(changes.removedTargets)
        var failures: [ValidationFailure] = []
        for group in Self.groupedByEntity(changes, trustingKeys: storedBefore != nil) {
            failures += try write(group, of: changes.upserts, storedBefore: storedBefore)
        }
        if !failures.isEmpty { throw MagicalRecordError.validation(failures) }
        try members.apply(in: transaction)
    }

    /// One entity's upserts, as positions in the change set's (whose states are read where
    /// they lie: a copy of each in its group retained every array it holds), with their flags.
    struct EntityUpserts {
        let entityName: String
        var positions: [Int] = []
        var flags: [UpsertFlags] = []
    }

    /// `changes`' upserts by entity, in the order each entity first appears. A run of one
    /// entity's states (most of an import batch) is grouped without hashing its name.
    /// Keys known absent count only when `trustingKeys` (no commit came between).
    static func groupedByEntity(_ changes: ChangeSet, trustingKeys: Bool) -> [EntityUpserts] {
        let kept: UpsertFlags = trustingKeys ? [.inserted, .keyKnownAbsent] : .inserted
        var groups: [EntityUpserts] = []
        var placeOfEntity: [String: Int] = [:]
        var current = 0
        for index in changes.upserts.indices {
            let name = changes.upserts[index].id.entityName
            if groups.isEmpty || groups[current].entityName != name {
                if let place = placeOfEntity[name] {
                    current = place
                } else {
                    current = groups.count
                    placeOfEntity[name] = current
                    groups.append(EntityUpserts(entityName: name))
                }
            }
            groups[current].positions.append(index)
            groups[current].flags.append(changes.flags(at: index).intersection(kept))
        }
        return groups
    }

    /// Takes members out of unordered to-manys' sets, with the commit's other member changes.
    private func removeTargets(_ removals: [RemovedTarget]) throws {
        // Removals come in runs of one relationship: its tree is named once a run.
        var run: (entityName: String, position: Int, tree: String)?
        for removal in removals {
            let tree: String
            if let run, run.position == removal.position, run.entityName == removal.owner.entityName {
                tree = run.tree
            } else {
                let entity = try writer(removal.owner.entityName).coder.entity
                tree = StoreLayout.relationshipTree(entity.name, entity.relationships[removal.position].name)
                run = (removal.owner.entityName, removal.position, tree)
            }
            members.remove(removal.target.number, from: removal.owner.number, in: tree)
        }
    }

    /// The coder and trees of `entityName`, looked up once per commit: a large commit
    /// writes thousands of objects of the same few entities.
    private func writer(_ entityName: String) throws -> EntityWriter {
        if let writer = writers.byEntity[entityName] { return writer }
        let coder = try store.coder(for: entityName)
        let entity = coder.entity
        var indexes: [EntityWriter.Index] = []
        for attribute in entity.indexedAttributes {
            guard let position = entity.slot(ofAttribute: attribute) else { continue }
            indexes.append(.init(attribute: attribute, position: position, tree: try transaction.tree(StoreLayout.indexTree(entity.name, attribute))))
        }
        let key = entity.keyAttribute.flatMap { name in indexes.first { $0.attribute == name } }
        let writer = EntityWriter(coder: coder, records: try transaction.tree(StoreLayout.objectTree(entity.name)), indexes: indexes, key: key)
        writers.byEntity[entityName] = writer
        return writer
    }

    private func delete(_ id: ObjectID) throws {
        let writer = try writer(id.entityName)
        let key = StoreLayout.objectKey(id.number)
        guard let bytes = try writer.records.get(key) else { return }
        let old = try writer.coder.decode(bytes, number: id.number)
        try removeIndexEntries(writer, number: id.number, of: old)
        _ = try writer.records.delete(key)
        for relationship in writer.coder.entity.relationships where relationship.isToMany {
            try removeTargets(of: id, relationship)
        }
    }

    /// Writes the records of one entity's objects and their index entries, each tree in
    /// one sorted batch. Returns the duplicate-key failures instead of writing (the
    /// caller abandons the transaction): a key must be unique in the state the save
    /// leaves, so every index entry that goes is removed before any key is checked, and
    /// two objects may swap keys or pass one on.
    private func write(_ upserts: EntityUpserts, of all: [ObjectState], storedBefore: StoredStates?) throws -> [ValidationFailure] {
        guard let first = upserts.positions.first else { return [] }
        let writer = try writer(all[first].id.entityName)
        let states = GroupStates(all: all, positions: upserts.positions)
        // The stored states the writer read are used where they lie; only the others are read.
        let read = try states.indices.map { (place) throws -> ObjectState? in
            guard !upserts.flags[place].contains(.inserted), storedBefore?.hasState(at: upserts.positions[place]) != true else { return nil }
            let number = states[place].id.number
            return try writer.records.get(StoreLayout.objectKey(number)).map { try writer.coder.decode($0, number: number) }
        }
        let olds = OldStates(before: storedBefore, positions: upserts.positions, read: read, flags: upserts.flags)
        var added: [EntryBatch] = []
        var failures: [ValidationFailure] = []
        // Integer keys written, as hints for finders by key: noted before the commit is
        // known to succeed, which is harmless (a finder checks the record it reads).
        var hints: [(key: Int64, number: Int64)] = []
        let limit = transaction.maximumKeyLength
        for index in writer.indexes {
            var entries = EntryBatch()
            var removed = EntryBatch()
            for place in states.indices {
                let oldValue = olds.attribute(index.position, at: place)
                let newValue = states[place].attributes[index.position]
                guard oldValue != newValue else { continue }
                let number = states[place].id.number
                if let key = writer.coder.hintedKey(newValue, at: index.position) { hints.append((key, number)) }
                if let oldValue { removed.append(writingKey: { StoreLayout.appendIndexKey(oldValue, number, to: &$0) }, value: { _ in }) }
                entries.append(writingKey: { StoreLayout.appendIndexKey(newValue, number, to: &$0) }, value: { _ in })
                let length = entries.keyLength(at: entries.count - 1)
                guard length <= limit else {
                    entries.removeLast()
                    failures.append(ValidationFailure(object: states[place].id, reason: .tooLongToIndex(attribute: index.attribute, bytes: length, limit: limit)))
                    continue
                }
            }
            try index.tree.deleteBatch(removed)
            added.append(entries)
        }
        failures += try duplicateKeys(writer, states, olds, flags: upserts.flags)
        guard failures.isEmpty else { return failures }
        for (index, entries) in zip(writer.indexes, added) where !entries.isEmpty {
            try index.tree.putBatch(entries)
        }
        try writer.records.putBatch(records(of: upserts, all, coder: writer.coder))
        try writeRelationships(of: states, olds, entity: writer.coder.entity)
        writer.coder.keyHints?.note(hints)
        return []
    }

    /// The object-tree entries of `upserts`: those encoded ahead, then the rest (on the
    /// committing thread: records are encoded ahead while an import reads, and its commits
    /// leave the other core to the reading thread).
    private func records(of upserts: EntityUpserts, _ all: [ObjectState], coder: RecordCoder) -> EntryBatch {
        guard var records = recordsAhead?.take(upserts.entityName), !records.isEmpty else {
            return coder.encodedRecords(all, at: upserts.positions[...], threads: transaction.encodingThreads)
        }
        coder.appendRecords(all, at: upserts.positions[records.count...], to: &records)
        return records
    }

    /// Replaces each loaded to-many's targets, and records the additions of those not
    /// read, each relationship's together: an import joins thousands of objects to a few
    /// departments.
    private func writeRelationships(of states: GroupStates, _ olds: OldStates, entity: Entity) throws {
        let toMany = entity.relationships.indices.filter { entity.relationships[$0].isToMany }
        guard !toMany.isEmpty else { return }
        var additions = [MemberSetChanges](repeating: MemberSetChanges(), count: entity.relationships.count)
        // Targets come in runs of one entity: its code is looked up once a run.
        var lastTarget: (entityName: String, code: Int)?
        for index in states.indices {
            for position in toMany {
                switch states[index].relationships[position] {
                case .toMany(let targets):
                    try replaceTargets(of: states[index].id, entity.relationships[position], with: targets, isNew: !olds.isStored(index))
                case .added(let extra):
                    let owner = states[index].id.number
                    for target in extra.ids {
                        let code: Int
                        if let lastTarget, lastTarget.entityName == target.entityName {
                            code = lastTarget.code
                        } else {
                            code = try entityCode(target.entityName)
                            lastTarget = (target.entityName, code)
                        }
                        additions[position].add(MemberChunk.Member(number: target.number, code: code), to: owner)
                    }
                default:
                    continue
                }
            }
        }
        for position in toMany where !additions[position].isEmpty {
            members.record(additions[position], in: StoreLayout.relationshipTree(entity.name, entity.relationships[position].name))
        }
    }

    /// One failure per object whose new key another object holds: one stored and keeping
    /// its key, or one earlier in `states`. Checked after the save's old entries are gone;
    /// keys known absent (``UpsertFlags/keyKnownAbsent``) are neither searched for nor
    /// compared with the others.
    private func duplicateKeys(
        _ writer: EntityWriter, _ states: GroupStates, _ olds: OldStates, flags: [UpsertFlags]
    ) throws -> [ValidationFailure] {
        guard let keyIndex = writer.key else { return [] }
        var failures: [ValidationFailure] = []
        var claimed = Set<AttributeValue>()
        for position in states.indices where !flags[position].contains(.keyKnownAbsent) {
            let value = states[position].attributes[keyIndex.position]
            guard !value.isNull, olds.attribute(keyIndex.position, at: position) != value else { continue }
            let id = states[position].id
            var taken = !claimed.insert(value).inserted
            if !taken {
                try keyIndex.tree.scan(.prefix(StoreLayout.indexPrefix(value))) { key, _ in
                    guard case .int(let number)? = try KeyEncoding.decode(key).last, number != id.number else { return true }
                    taken = true
                    return false
                }
            }
            if taken { failures.append(ValidationFailure(object: id, reason: .duplicateKey(attribute: keyIndex.attribute, value: value))) }
        }
        return failures
    }

    private func removeIndexEntries(_ writer: EntityWriter, number: Int64, of old: ObjectState) throws {
        for index in writer.indexes {
            _ = try index.tree.delete(StoreLayout.indexKey(old.attributes[index.position], number))
        }
    }

    private func removeTargets(of id: ObjectID, _ relationship: RelationshipDescription) throws {
        let name = StoreLayout.relationshipTree(id.entityName, relationship.name)
        guard relationship.isOrdered else {
            members.replace(id.number, with: [], in: name)
            return
        }
        let tree = try transaction.tree(name)
        var keys: [[UInt8]] = []
        try tree.scan(.prefix(StoreLayout.objectKey(id.number))) { key, _ in
            keys.append(key)
            return true
        }
        for key in keys { _ = try tree.delete(key) }
    }

    /// Stores `targets` as the relationship's content: positions for an ordered one, a set
    /// of runs otherwise (only the runs that change are written).
    private func replaceTargets(of id: ObjectID, _ relationship: RelationshipDescription, with targets: [ObjectID], isNew: Bool) throws {
        let name = StoreLayout.relationshipTree(id.entityName, relationship.name)
        guard relationship.isOrdered else {
            let wanted = try targets.map { MemberChunk.Member(number: $0.number, code: try entityCode($0.entityName)) }
            members.replace(id.number, with: wanted, in: name)
            return
        }
        let tree = try transaction.tree(name)
        if !isNew { try removeTargets(of: id, relationship) }
        for (position, target) in targets.enumerated() {
            try tree.put(KeyEncoding.encode(.int(id.number), .int(Int64(position))), StoreLayout.targetValue(code: try entityCode(target.entityName), number: target.number, ordered: true))
        }
    }

    private func entityCode(_ entityName: String) throws -> Int {
        guard let code = store.slots.entityCode(entityName) else {
            throw MagicalRecordError.model(.unknownEntity(entityName))
        }
        return code
    }
}

/// One entity's coder and trees in a commit's write transaction.
private struct EntityWriter {
    struct Index {
        let attribute: String
        let position: Int
        let tree: TreeWriter
    }

    let coder: RecordCoder
    let records: TreeWriter
    let indexes: [Index]
    /// The unique index of the entity's key attribute, if it has one.
    let key: Index?
}

/// A commit's changes to unordered to-manys' member sets, by relationship tree, applied
/// once its records are written.
private final class MemberChanges {
    private var byTree: [String: MemberSetChanges] = [:]

    func remove(_ number: Int64, from owner: Int64, in tree: String) {
        byTree[tree, default: MemberSetChanges()].remove(number, from: owner)
    }

    func record(_ changes: MemberSetChanges, in tree: String) {
        byTree[tree, default: MemberSetChanges()].append(changes)
    }

    func replace(_ owner: Int64, with members: [MemberChunk.Member], in tree: String) {
        byTree[tree, default: MemberSetChanges()].replace(owner, with: members)
    }

    func apply(in transaction: WriteTransaction) throws {
        for (name, changes) in byTree.sorted(by: { $0.key < $1.key }) where !changes.isEmpty {
            try changes.apply(to: transaction.tree(name), treeName: name)
        }
    }
}

/// The writers a commit has resolved so far, by entity name.
private final class EntityWriters {
    var byEntity: [String: EntityWriter] = [:]
}

/// One entity's states in a commit, by place in its group: read where they lie in the
/// change set.
private struct GroupStates {
    let all: [ObjectState]
    let positions: [Int]

    var indices: Range<Int> { positions.indices }

    subscript(place: Int) -> ObjectState {
        _read { yield all[positions[place]] }
    }
}

/// The stored states a commit replaces, by place in an entity's group: those the writer
/// read before the commit where they lie, the others as read now; nil for a new object.
private struct OldStates {
    /// The states the writer read, by position in the change set, and whether it read
    /// each (empty when it read none): kept apart from their optional wrapper, whose
    /// unwrapping copied them out.
    let before: [ObjectState?]
    let isReadBefore: [Bool]
    let positions: [Int]
    /// By place: states read by the commit itself.
    let read: [ObjectState?]
    let flags: [UpsertFlags]

    init(before: StoredStates?, positions: [Int], read: [ObjectState?], flags: [UpsertFlags]) {
        self.before = before?.states ?? []
        isReadBefore = before.map { stored in positions.indices.map { stored.hasState(at: positions[$0]) } } ?? []
        self.positions = positions
        self.read = read
        self.flags = flags
    }

    /// Attribute `position` of the stored state at `place` (nil for a new object), read
    /// where the state lies: copying the state out retained each of its arrays, twice a
    /// state in a commit.
    func attribute(_ position: Int, at place: Int) -> AttributeValue? {
        isFromBefore(place) ? before[positions[place]]?.attributes[position] : read[place]?.attributes[position]
    }

    /// Whether the object had a stored state (to compare a to-many with).
    func isStored(_ place: Int) -> Bool {
        isFromBefore(place) ? before[positions[place]] != nil : read[place] != nil
    }

    private func isFromBefore(_ place: Int) -> Bool {
        !flags[place].contains(.inserted) && place < isReadBefore.count && isReadBefore[place]
    }
}
