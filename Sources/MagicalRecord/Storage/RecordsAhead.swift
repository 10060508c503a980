import MagicalStore

/// Records of a change set's upserts encoded before its commit, on a thread that would
/// otherwise wait: an import's reading thread, once it has built the next batch while
/// the one before is still committing. For each entity, the records of its first upserts
/// (in the commit's order, ``CommitWriter/groupedByEntity(_:trustingKeys:)``); the commit
/// encodes the rest. Filled by one thread, then handed to the committing one (the handover
/// orders the accesses).
final class RecordsAhead: @unchecked Sendable {
    private var byEntity: [String: EntryBatch] = [:]

    /// Encodes `changes`' records a part at a time, each entity's in the commit's order,
    /// until all are or `isWanted` says the commit waits for them: the commit then encodes
    /// what is left, having waited at most one part.
    func encode(_ changes: ChangeSet, store: ObjectStore, until isWanted: () -> Bool) {
        // Grouping a batch's upserts takes a while too.
        guard !isWanted() else { return }
        for group in CommitWriter.groupedByEntity(changes, trustingKeys: false) {
            // An entity the store has no coder for fails in the commit, with its error.
            guard let coder = try? store.coder(for: group.entityName) else { return }
            let count = group.positions.count
            var records = EntryBatch(minimumCapacity: count, bytes: count * RecordCoder.typicalEntryBytes)
            defer { byEntity[group.entityName] = records }
            var start = 0
            while start < count {
                guard !isWanted() else { return }
                let end = min(start + Self.part, count)
                coder.appendRecords(changes.upserts, at: group.positions[start..<end], to: &records)
                start = end
            }
        }
    }

    /// Records encoded and not taken yet (for tests).
    var encodedCount: Int { byEntity.values.reduce(0) { $0 + $1.count } }

    /// The records encoded for `entityName`'s first upserts, one an upsert; taken out.
    func take(_ entityName: String) -> EntryBatch? {
        byEntity.removeValue(forKey: entityName)
    }

    /// Upserts encoded between two looks at whether the commit waits: about a third of
    /// a millisecond of encoding.
    private static let part = 2_048
}
