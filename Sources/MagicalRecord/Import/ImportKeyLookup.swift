/// What a direct import batch's keys find in the store as of one commit: the ids of the
/// objects found, their stored states, and the keys not found. The import looks a batch's
/// keys up on its reading thread while the batch before commits, and then brings the
/// answer up to that commit: for a batch built ahead, by taking what the batch before
/// writes, before it commits (``overlay(_:writing:as:_:)``); else by looking again only
/// at what the commit wrote (``bringUp(to:after:_:)``).
///
/// A class: its tables (tens of thousands of entries) are changed in place and handed
/// over whole to the batch (``take()``), never copied.
final class ImportKeyLookup {
    /// By entity: the keys to look up (they may repeat) and the key attribute's mapping.
    typealias Wanted = [String: ([AttributeValue], EntityImportMapping.AttributeMapping)]
    /// Per key looked up, by entity: what the index holds for it.
    typealias KeyTable = ImportKeyTable
    /// The tables, and the stored states their answers place (``ImportKeyTable/subscript(locationAt:)``).
    typealias Tables = (known: [String: KeyTable], stored: [ObjectState])

    /// The commit the answer holds for.
    private(set) var transactionID: UInt64
    private var known: [String: KeyTable] = [:]
    /// Stored states of the objects found, as they were, each placed by its key's slot (a
    /// state whose key was taken out again stays, unplaced, until the batch ends).
    private var stored: [ObjectState] = []

    /// Looks up every key of `wanted` through each entity's key index in `snapshot`.
    init(_ wanted: Wanted, in snapshot: StoreSnapshot) throws(MagicalRecordError) {
        transactionID = snapshot.transaction.transactionID
        try add(wanted, from: snapshot)
    }

    private func add(_ wanted: Wanted, from snapshot: StoreSnapshot) throws(MagicalRecordError) {
        for (entityName, (keys, key)) in wanted where !keys.isEmpty {
            guard let position = snapshot.store.model.entity(named: entityName)?.slot(ofAttribute: key.attribute.name) else { continue }
            // Taken out while filled: changed through the outer table, each entry was a copy.
            var table = known.removeValue(forKey: entityName) ?? [:]
            table.reserveCapacity(table.count + keys.count)
            // Room for every key once one is found (growing copied the states again and
            // again); none when the store has none of them, as in a first import.
            var storedRoom = stored.count + keys.count
            let firstFound = stored.count
            // Absent keys are in the table too: the batch finds an object's key and
            // whether the store lacks it with one probe, and records it in place.
            var absentKeys: [AttributeValue] = []
            // In no order: the look-up orders the index keys itself.
            try snapshot.statesByIndexedValue(entityName, key.attribute.name, keys) { value in
                absentKeys.append(value)
            } found: { state in
                if storedRoom > 0 {
                    stored.reserveCapacity(storedRoom)
                    storedRoom = 0
                }
                stored.append(consume state)
            }
            // Entered once the index is read, each key's slot loaded a few keys ahead of its
            // probe: the table is out of the cache, and each probe waited for it in turn.
            let ahead = ImportKeyTable.probesAhead
            for index in absentKeys.indices {
                if index + ahead < absentKeys.count { table.prefetch(forKey: absentKeys[index + ahead]) }
                table[absentKeys[index]] = .absent
            }
            // In ascending number: of objects sharing a key, the first stands for it (the
            // others stay unplaced).
            stored.withUnsafeBufferPointer { states in
                for location in firstFound..<states.count {
                    if location + ahead < states.count { table.prefetch(forKey: states[location + ahead].attributes[position]) }
                    let value = states[location].attributes[position]
                    guard table[value] == nil else { continue }
                    table.set(value, .object(states[location].id), location: Int32(location))
                }
            }
            known[entityName] = table
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
            var committed = commit.known[entityName] ?? [:]
            var table = known.removeValue(forKey: entityName) ?? [:]
            // The table walked in place (most of its keys are absent ones), the commit's
            // table probed: a probe per key of each was twice the work.
            var stale = Set<AttributeValue>()
            for (key, answer) in table where commit.wrote(answer) { stale.insert(key) }
            if !committed.isEmpty {
                Self.probeAhead(keys, in: &committed) { key, answer in
                    if answer.map(commit.wrote) == true { stale.insert(key) }
                }
            }
            for key in stale { table.removeValue(forKey: key) }
            known[entityName] = table
            if !stale.isEmpty { again[entityName] = (Array(stale), key) }
        }
        try add(again, from: snapshot)
        return true
    }

    /// Brings this answer, made as of the commit `pending` was built on or the one it
    /// makes, to the state `pending`'s commit (whose upserts are `written`) leaves, which
    /// is `transaction`, before that commit is made: the keys whose objects it writes take
    /// its answers and states. No other key's answer differs on either side of it
    /// (members it removes from a to-many change no record).
    func overlay(_ pending: ImportCommit, writing written: [ObjectState], as transaction: UInt64, _ wanted: Wanted) {
        transactionID = transaction
        for (entityName, (keys, _)) in wanted {
            var committed = pending.known[entityName] ?? [:]
            var table = known.removeValue(forKey: entityName) ?? [:]
            var changed: [(key: AttributeValue, id: ObjectID)] = []
            for (key, answer) in table {
                if case .object(let id) = answer, pending.writesRecord(of: id) { changed.append((key, id)) }
            }
            if !committed.isEmpty {
                Self.probeAhead(keys, in: &committed) { key, answer in
                    if case .object(let id)? = answer, pending.writesRecord(of: id) { changed.append((key, id)) }
                }
            }
            for (key, id) in changed {
                guard let state = pending.state(of: id, in: written) else {
                    table[key] = .object(id)
                    continue
                }
                table.set(key, .object(id), location: Int32(stored.count))
                stored.append(state)
            }
            known[entityName] = table
        }
    }

    /// What `table` says of each of `keys`, each key's slot loaded a few keys ahead of its
    /// probe: the batch before's table is out of the cache, and a batch probes it for
    /// every key (a twentieth of an import's reading thread waited on it).
    private static func probeAhead(_ keys: [AttributeValue], in table: inout KeyTable, _ body: (AttributeValue, IndexedKey?) -> Void) {
        let ahead = ImportKeyTable.probesAhead
        for index in keys.indices.prefix(ahead) { table.prefetch(forKey: keys[index]) }
        for index in keys.indices {
            if index + ahead < keys.count { table.prefetch(forKey: keys[index + ahead]) }
            body(keys[index], table[keys[index]])
        }
    }

    /// The tables, handed over: this look-up is empty afterwards.
    func take() -> Tables {
        defer {
            known = [:]
            stored = []
        }
        return (known, stored)
    }
}

/// What an entity's key index holds for a key, as a direct import batch knows it.
enum IndexedKey: Sendable, Equatable {
    /// No object has the key (as of the look-up).
    case absent
    /// The object the look-up found, or the batch made, with the key.
    case object(ObjectID)
}

/// What one direct import batch's commit changes, for bringing the next batch's look-up
/// (made before this commit) up to date: the batch's own tables.
struct ImportCommit {
    /// The commit the batch's look-up held for; the batch's own is the next.
    let before: UInt64
    /// By entity and key: every object the batch found or made, and the keys it found absent.
    let known: [String: ImportKeyLookup.KeyTable]
    /// Places of the batch's objects, and by place where the commit's upserts hold the
    /// state it writes for each (-1: the commit leaves it as stored).
    let positions: EntryPlaces
    let writtenAt: [Int]
    /// Owners of to-manys the batch removed members from (written as deletions).
    let removalOwners: Set<ObjectID>

    /// Whether the commit changed the object `answer` names: wrote it, or removed members
    /// from it.
    func wrote(_ answer: IndexedKey) -> Bool {
        guard case .object(let id) = answer else { return false }
        return writesRecord(of: id) || removalOwners.contains(id)
    }

    /// Whether the commit writes the record of `id`.
    func writesRecord(of id: ObjectID) -> Bool {
        positions[id].map { writtenAt[$0] >= 0 } == true
    }

    /// The state the commit, whose upserts are `written`, leaves `id` in, as its record
    /// will read back (to-manys not read); nil when it does not write it.
    func state(of id: ObjectID, in written: [ObjectState]) -> ObjectState? {
        guard let place = positions[id], writtenAt[place] >= 0 else { return nil }
        var state = written[writtenAt[place]]
        for position in state.relationships.indices {
            if case .toOne = state.relationships[position] { continue }
            state.relationships[position] = .unloaded
        }
        return state
    }
}
