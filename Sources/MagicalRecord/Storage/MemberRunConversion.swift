import MagicalStore

/// Raises a store of an object format before runs of members (1 and 2: an entry per member
/// of an unordered to-many) to ``StoreMetadata/memberRunsFormat`` (O14), in one commit,
/// before anything else writes in it.
enum MemberRunConversion {
    /// `metadata` as the store now has it: converted and raised when it was older and the
    /// store is open for writing, else as it was.
    static func raise(_ store: Store, _ metadata: StoreMetadata) throws(MagicalRecordError) -> StoreMetadata {
        guard metadata.format < StoreMetadata.memberRunsFormat, !store.options.readOnly else { return metadata }
        try withStoreErrors {
            try store.write { transaction in
                try convert(metadata.model, in: transaction)
                try StoreMetadata.save(format: StoreMetadata.memberRunsFormat, in: transaction)
            }
        }
        var raised = metadata
        raised.format = StoreMetadata.memberRunsFormat
        return raised
    }

    /// Rewrites every unordered to-many tree of `model`'s entities as runs of members.
    static func convert(_ model: ObjectModel, in transaction: WriteTransaction) throws {
        for entity in model.entities where !entity.isAbstract {
            for relationship in entity.relationships where relationship.isToMany && !relationship.isOrdered {
                let name = StoreLayout.relationshipTree(entity.name, relationship.name)
                guard let tree = try transaction.treeIfPresent(name) else { continue }
                let runs = try runs(of: tree, named: name)
                try transaction.dropTree(name)
                try transaction.createTree(name).putBatch(runs)
            }
        }
    }

    /// The runs of members holding the entries of `tree`, an entry per member keyed
    /// (source, target) with the target's entity code (and, before O13, its number) as
    /// value: keys in order give each source's members by number.
    private static func runs(of tree: TreeWriter, named name: String) throws -> EntryBatch {
        var runs = EntryBatch()
        var source: Int64?
        var members: [MemberChunk.Member] = []
        func flush() {
            guard let source, !members.isEmpty else { return }
            for run in MemberChunk.runs(of: members) {
                runs.append(key: MemberChunk.key(source: source, last: run.last!.number), value: MemberChunk.encode(run))
            }
            members.removeAll(keepingCapacity: true)
        }
        let damaged = MagicalRecordError.damagedMetadata("the relationship tree \(name) holds a malformed entry")
        try tree.scan { key, value in
            let parts = try KeyEncoding.decode(key)
            guard parts.count == 2, case .int(let owner) = parts[0], case .int(let keyNumber) = parts[1], owner >= 1,
                  let target = value.withUnsafeBytes({ StoreLayout.target($0) { keyNumber } }), target.number >= 1,
                  target.code <= Int(Int32.max)
            else { throw damaged }
            if owner != source {
                flush()
                source = owner
            }
            // Keys ascend, so members do unless an old value's number disagrees with its key.
            guard members.last.map({ $0.number < target.number }) ?? true else { throw damaged }
            members.append(MemberChunk.Member(number: target.number, code: target.code))
            return true
        }
        flush()
        return runs
    }
}
