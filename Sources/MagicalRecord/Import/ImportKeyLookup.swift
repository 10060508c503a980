/// What a direct import batch's keys find in the store as of one commit: the ids of the
/// objects found, their stored states, and the keys not found. The import looks a batch's
/// keys up on its reading thread while the batch before commits, and then brings the
/// answer up to that commit by looking again only at what the commit wrote
/// (``bringUp(to:after:_:)``).
///
/// A class: its tables (tens of thousands of entries) are changed in place and handed
/// over whole to the batch (``take()``), never copied.
final class ImportKeyLookup {
    typealias Wanted = [String: (Set<AttributeValue>, EntityImportMapping.AttributeMapping)]
    typealias Tables = (
        known: [String: [AttributeValue: ObjectID]], stored: [ObjectID: ObjectState], absentKeys: [String: Set<AttributeValue>]
    )

    /// The commit the answer holds for.
    private(set) var transactionID: UInt64
    /// Object ids by entity and key, of those found.
    private var known: [String: [AttributeValue: ObjectID]] = [:]
    /// Stored states of the objects found, as they were.
    private var stored: [ObjectID: ObjectState] = [:]
    /// Keys the index does not hold, by entity.
    private var absentKeys: [String: Set<AttributeValue>] = [:]

    /// Looks up every key of `wanted` through each entity's key index in `snapshot`.
    init(_ wanted: Wanted, in snapshot: StoreSnapshot) throws(MagicalRecordError) {
        transactionID = snapshot.transaction.transactionID
        try add(wanted, from: snapshot)
    }

    private func add(_ wanted: Wanted, from snapshot: StoreSnapshot) throws(MagicalRecordError) {
        for (entityName, (keys, key)) in wanted where !keys.isEmpty {
            guard let position = snapshot.store.model.entity(named: entityName)?.slot(ofAttribute: key.attribute.name) else { continue }
            // Taken out while filled: changed through the outer table, each entry was a copy.
            var found = known.removeValue(forKey: entityName) ?? [:]
            found.reserveCapacity(found.count + keys.count)
            var absent = absentKeys.removeValue(forKey: entityName) ?? Set(minimumCapacity: keys.count)
            // In no order: the look-up orders the index keys itself.
            try snapshot.statesByIndexedValue(entityName, key.attribute.name, Array(keys)) { value, states, isIndexed in
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

    /// Brings this answer up to `snapshot`, when the only commit since the one it holds for
    /// is `commit`; false when it cannot (look the keys up afresh). The keys `commit` wrote,
    /// and those whose objects it changed, are looked up again; no other key's answer can
    /// have changed.
    func bringUp(to snapshot: StoreSnapshot, after commit: ImportCommit?, _ wanted: Wanted) throws(MagicalRecordError) -> Bool {
        let now = snapshot.transaction.transactionID
        if now == transactionID { return true }
        guard let commit, commit.before == transactionID, now == transactionID + 1 else { return false }
        transactionID = now
        var again: Wanted = [:]
        for (entityName, (keys, key)) in wanted {
            let committedIDs = commit.known[entityName] ?? [:]
            var found = known.removeValue(forKey: entityName) ?? [:]
            var absent = absentKeys.removeValue(forKey: entityName) ?? []
            var stale = Set<AttributeValue>()
            for key in keys {
                let id = found[key]
                guard committedIDs[key].map(commit.wrote) == true || id.map(commit.wrote) == true else { continue }
                stale.insert(key)
                if let id {
                    found[key] = nil
                    stored[id] = nil
                }
                absent.remove(key)
            }
            known[entityName] = found
            absentKeys[entityName] = absent
            if !stale.isEmpty { again[entityName] = (stale, key) }
        }
        try add(again, from: snapshot)
        return true
    }

    /// The tables, handed over: this look-up is empty afterwards.
    func take() -> Tables {
        defer {
            known = [:]
            stored = [:]
            absentKeys = [:]
        }
        return (known, stored, absentKeys)
    }
}

/// What one committed direct import batch changed, for bringing the next batch's
/// look-up (made before this commit) up to date: the batch's own tables.
struct ImportCommit {
    /// The commit the batch's look-up held for; the batch's own is the next.
    let before: UInt64
    /// Object ids by entity and key, of every object the batch found or made.
    let known: [String: [AttributeValue: ObjectID]]
    /// Places of the batch's objects, and by place whether the commit wrote each.
    let positions: [ObjectID: Int]
    let isWritten: [Bool]
    /// Owners of to-manys the batch removed members from (written as deletions).
    let removalOwners: Set<ObjectID>

    /// Whether the commit changed object `id`: wrote it, or removed members from it.
    func wrote(_ id: ObjectID) -> Bool {
        positions[id].map { isWritten[$0] } == true || removalOwners.contains(id)
    }
}
