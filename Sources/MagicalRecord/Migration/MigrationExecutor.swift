import Foundation
import MagicalStore

/// Carries out a ``MigrationPlan`` inside one engine write transaction, so the store ends
/// at the old model or the new one, never between (Spec/MIGRATION.md, "Running").
///
/// Trees that carry over as they are get renamed (O(1)); records that change are read from
/// the snapshot the migration started from and bulk-loaded into fresh trees in key order;
/// indexes and relationship trees built from stored data likewise.
struct MigrationExecutor {
    let plan: MigrationPlan
    let sourceSlots: SlotMap
    let snapshot: ReadTransaction
    let transaction: WriteTransaction

    func run() throws {
        let stashed = try stashCarriedTrees()
        // Dropping the old trees reads all their pages: meanwhile the first entity to
        // rewrite already has its records read and rewritten on another core.
        let first = plan.entities.first { stashed[StoreLayout.objectTree($0.target.name)] == nil && $0.rewritesRecords && $0.source != nil }
        let headStart = try first.map { try RewriteStream(rewriting: $0, executor: self, capacity: Self.headStartChunks) }
        // Whatever fails, the producer stops before the snapshot it reads goes.
        defer { headStart?.cancel() }
        for name in try transaction.treeNames() where Self.isObjectLayerTree(name) {
            try transaction.dropTree(name)
        }
        for entity in plan.entities {
            try build(entity, stashed: stashed, stream: entity.target.name == first?.target.name ? headStart : nil)
        }
    }

    /// Chunks the first rewrite may run ahead while the old trees are dropped (some
    /// 250,000 records, 30 MB), against 4 once loading has begun.
    private static let headStartChunks = 64

    private static func isObjectLayerTree(_ name: String) -> Bool {
        name.hasPrefix("o.") || name.hasPrefix("i.") || name.hasPrefix("r.")
    }

    /// Renames every tree kept as it is out of the way (source and target names may
    /// overlap, as in a swap): final name → temporary name.
    private func stashCarriedTrees() throws -> [String: String] {
        var stashed: [String: String] = [:]
        func stash(_ tree: String, as final: String) throws {
            let temporary = "mr.migrating.\(stashed.count)"
            try transaction.renameTree(tree, to: temporary)
            stashed[final] = temporary
        }
        for entity in plan.entities {
            guard let source = entity.source else { continue }
            let name = entity.target.name
            if !entity.rewritesRecords { try stash(StoreLayout.objectTree(source.name), as: StoreLayout.objectTree(name)) }
            for (attribute, tree) in entity.carriedIndexes { try stash(tree, as: StoreLayout.indexTree(name, attribute)) }
            for (relationship, origin) in entity.toManySources {
                if case .carried(let tree) = origin { try stash(tree, as: StoreLayout.relationshipTree(name, relationship)) }
            }
        }
        return stashed
    }

    private func build(_ entity: EntityMigration, stashed: [String: String], stream: RewriteStream?) throws {
        let name = entity.target.name
        func tree(_ final: String, _ entries: () throws -> [(key: [UInt8], value: [UInt8])]) throws {
            if let temporary = stashed[final] {
                try transaction.renameTree(temporary, to: final)
                return
            }
            let batch = try entries()
            try transaction.createTree(final).putBatch(batch)
        }
        let coder = try RecordCoder(entity: entity.target, slots: plan.slots)
        var indexes = entity.target.indexedAttributes.filter { stashed[StoreLayout.indexTree(name, $0)] == nil }.compactMap {
            IndexBuilder(entity: entity, attribute: $0, coder: coder)
        }
        var moved: [Int: [Triple]] = [:]
        let objectTree = StoreLayout.objectTree(name)
        if let temporary = stashed[objectTree] {
            try transaction.renameTree(temporary, to: objectTree)
            // Records kept as they are read the same under the target's slots.
            if let source = entity.source, !indexes.isEmpty {
                try snapshot.tree(StoreLayout.objectTree(source.name)).forEachEntry { key, value in
                    let number = try StoreSnapshot.number(fromObjectKey: key, entity: source.name)
                    for index in indexes.indices { try indexes[index].add(number, value) }
                    return true
                }
            }
        } else if entity.rewritesRecords, entity.source != nil {
            let loader = try transaction.makeLoader(forNewTree: objectTree)
            let stream = try stream ?? RewriteStream(rewriting: entity, executor: self, capacity: 4)
            defer { stream.cancel() }
            try stream.load(into: loader, moved: &moved) { number, record in
                for index in indexes.indices { try indexes[index].add(number, record) }
            }
            try loader.finish()
        } else {
            try transaction.createTree(objectTree)
        }
        for attribute in entity.target.indexedAttributes {
            let entries = indexes.first { $0.attribute == attribute }?.entries ?? []
            if attribute == entity.target.keyAttribute { try checkUnique(entries, entity: name, attribute: attribute) }
            try tree(StoreLayout.indexTree(name, attribute)) { entries }
        }
        for (position, relationship) in entity.target.relationships.enumerated() where relationship.isToMany {
            try tree(StoreLayout.relationshipTree(name, relationship.name)) {
                try relationshipEntries(entity, relationship, moved: moved[position] ?? [])
            }
        }
    }

    // MARK: Records

    /// A to-many entry: source object number, target entity code, target number.
    typealias Triple = (source: Int64, code: Int, target: Int64)

    /// Records rewritten by the producer thread, in key order: keys and records side by
    /// side in one buffer, so the producer allocates per chunk rather than per record
    /// (memory freed on the other thread made both wait on the allocator).
    fileprivate struct RewrittenChunk: Sendable {
        var bytes: [UInt8] = []
        var entries: [(number: Int64, keyEnd: Int, recordEnd: Int)] = []
        var moved: [(position: Int, triple: Triple)] = []

        init() {
            bytes.reserveCapacity(MigrationExecutor.chunkSize * 128)
            entries.reserveCapacity(MigrationExecutor.chunkSize)
        }
    }

    fileprivate static let chunkSize = 4096

    // MARK: Indexes

    /// Collects the entries of one index to build from the records it sees.
    private struct IndexBuilder {
        let attribute: String
        private let position: Int
        private let mask: [Bool]
        private let coder: RecordCoder
        private let shape: RecordShape
        private var values: [AttributeValue]
        private(set) var entries: [(key: [UInt8], value: [UInt8])] = []

        init?(entity: EntityMigration, attribute: String, coder: RecordCoder) {
            guard entity.source != nil, entity.objectCount > 0,
                  let position = entity.target.attributes.firstIndex(where: { $0.name == attribute }) else { return nil }
            self.attribute = attribute
            self.position = position
            var mask = [Bool](repeating: false, count: entity.target.attributes.count)
            mask[position] = true
            self.mask = mask
            self.coder = coder
            shape = coder.makeShape()
            values = coder.defaultAttributes
            entries.reserveCapacity(entity.objectCount)
        }

        mutating func add(_ number: Int64, _ record: UnsafeRawBufferPointer) throws {
            try coder.decodeAttributes(record, number: number, mask: mask, into: &values, shape: shape)
            entries.append((StoreLayout.indexKey(values[position], number), []))
        }
    }

    /// A key attribute's values must stay unique (imports find objects by them).
    private func checkUnique(_ entries: [(key: [UInt8], value: [UInt8])], entity: String, attribute: String) throws {
        var seen: Set<[UInt8]> = []
        for entry in entries {
            guard let values = try? KeyEncoding.decode(entry.key), let value = values.first, value != .null else { continue }
            let prefix = KeyEncoding.encode(value)
            guard seen.insert(prefix).inserted else {
                throw MagicalRecordError.migrationFailed(
                    path: "", reason: "the key \(entity).\(attribute) would not be unique: several objects have the value \(value)"
                )
            }
        }
    }

    // MARK: Relationships

    private func relationshipEntries(
        _ entity: EntityMigration, _ relationship: RelationshipDescription, moved: [Triple]
    ) throws -> [(key: [UInt8], value: [UInt8])] {
        guard let source = entity.source, entity.objectCount > 0 else { return [] }
        var triples: [Triple] = []
        switch entity.toManySources[relationship.name] ?? .empty {
        case .empty, .carried:
            return []
        case .toOne:
            triples = moved
        case .reordered(let tree):
            // Ordered becomes unordered, or the other way round.
            try forEachTarget(in: tree, ordered: !relationship.isOrdered) { triples.append($0) }
        case .inverse(let inverses):
            guard let code = sourceSlots.entityCode(source.name) else { return [] }
            for inverse in inverses {
                try collectInverse(inverse, pointingAt: code, into: &triples)
            }
        }
        return Self.encode(triples, ordered: relationship.isOrdered)
    }

    /// The entries of `inverse` that point at objects of entity code `code`, turned round.
    private func collectInverse(_ inverse: EntityMigration.InverseSource, pointingAt code: Int, into triples: inout [Triple]) throws {
        guard let inverseCode = sourceSlots.entityCode(inverse.entity), plan.slots.entityNamesByCode[inverseCode] != nil else { return }
        if let tree = inverse.tree {
            try forEachTarget(in: tree, ordered: inverse.isOrdered) { entry in
                if entry.code == code { triples.append((entry.target, inverseCode, entry.source)) }
            }
        } else if let position = inverse.toOnePosition, let entity = plan.source.entity(named: inverse.entity) {
            let coder = try RecordCoder(entity: entity, slots: sourceSlots)
            let mask = RecordCoder.DecodeMask(attributes: entity.attributes.map { _ in false }, relationships: true)
            let names = sourceSlots.entityNamesByCode
            try snapshot.tree(StoreLayout.objectTree(inverse.entity)).forEachEntry { key, value in
                let number = try StoreSnapshot.number(fromObjectKey: key, entity: inverse.entity)
                let state = try coder.decode(value, number: number, attributes: mask)
                if case .toOne(let target?) = state.relationships[position], target.entityName == names[code] {
                    triples.append((target.number, inverseCode, number))
                }
                return true
            }
        }
    }

    /// Calls `body` with each source, target code and target of a source relationship
    /// tree: an entry per position of an ordered one, runs of members of an unordered one
    /// (O14).
    private func forEachTarget(in tree: String, ordered: Bool, _ body: (Triple) -> Void) throws {
        var members: [MemberChunk.Member] = []
        try snapshot.tree(tree).forEachEntry { key, value in
            let parts = try KeyEncoding.decode(Array(key))
            guard parts.count == 2, case .int(let source) = parts[0], case .int(let keyNumber) = parts[1] else { throw damagedTree(tree) }
            if ordered {
                let (code, target) = try Self.target(value, key: parts, tree: tree)
                body((source, code, target))
                return true
            }
            members.removeAll(keepingCapacity: true)
            guard MemberChunk.decode(value, last: keyNumber, into: &members) else { throw damagedTree(tree) }
            for member in members { body((source, member.code, member.number)) }
            return true
        }
    }

    /// The target of an entry of `tree` whose key decoded to `key`.
    private static func target(_ value: UnsafeRawBufferPointer, key: [KeyValue], tree: String) throws -> (Int, Int64) {
        let target = StoreLayout.target(value) { () -> Int64? in
            guard key.count == 2, case .int(let number) = key[1] else { return nil }
            return number
        }
        guard let target else { throw damagedTree(tree) }
        return target
    }

    /// Entries for a relationship tree: runs of members (O14), or an entry per position in
    /// target-number order for an ordered one.
    private static func encode(_ triples: [Triple], ordered: Bool) -> [(key: [UInt8], value: [UInt8])] {
        let sorted = triples.sorted { ($0.source, $0.target) < ($1.source, $1.target) }
        guard ordered else { return runs(sorted) }
        var entries: [(key: [UInt8], value: [UInt8])] = []
        entries.reserveCapacity(sorted.count)
        var position: Int64 = 0
        for (index, triple) in sorted.enumerated() {
            position = index > 0 && sorted[index - 1].source == triple.source ? position + 1 : 0
            let value = StoreLayout.targetValue(code: triple.code, number: triple.target, ordered: ordered)
            entries.append((KeyEncoding.encode(.int(triple.source), .int(ordered ? position : triple.target)), value))
        }
        return entries
    }

    /// Runs of members of `sorted` (by source, then target), a source's members once each.
    private static func runs(_ sorted: [Triple]) -> [(key: [UInt8], value: [UInt8])] {
        var entries: [(key: [UInt8], value: [UInt8])] = []
        var start = 0
        while start < sorted.count {
            let source = sorted[start].source
            var members: [MemberChunk.Member] = []
            var end = start
            while end < sorted.count, sorted[end].source == source {
                if members.last?.number != sorted[end].target { members.append(MemberChunk.Member(number: sorted[end].target, code: sorted[end].code)) }
                end += 1
            }
            for run in MemberChunk.runs(of: members) {
                entries.append((MemberChunk.key(source: source, last: run.last!.number), MemberChunk.encode(run)))
            }
            start = end
        }
        return entries
    }

    private static func damagedTree(_ tree: String) -> MagicalRecordError {
        .damagedMetadata("the relationship tree \(tree) holds a malformed entry")
    }

    private func damagedTree(_ tree: String) -> MagicalRecordError { Self.damagedTree(tree) }
}

/// One entity's records read from the migration's source snapshot and rewritten on a
/// thread of its own, from the moment it is made, up to `capacity` chunks ahead of
/// ``load(into:moved:observe:)``.
private final class RewriteStream {
    private let pipe: ChunkPipe<MigrationExecutor.RewrittenChunk>

    init(rewriting entity: EntityMigration, executor: MigrationExecutor, capacity: Int) throws {
        guard let source = entity.source else { throw MagicalRecordError.migrationFailed(path: "", reason: "\(entity.target.name) has no source to rewrite") }
        let rewriter = try RecordRewriter(entity, source: source, sourceSlots: executor.sourceSlots, targetSlots: executor.plan.slots)
        let objects = try executor.snapshot.tree(StoreLayout.objectTree(source.name))
        let pipe = ChunkPipe<MigrationExecutor.RewrittenChunk>(capacity: capacity)
        self.pipe = pipe
        Thread {
            do {
                var chunk = MigrationExecutor.RewrittenChunk()
                var stopped = false
                try objects.forEachEntry { key, value in
                    let number = try StoreSnapshot.number(fromObjectKey: key, entity: source.name)
                    chunk.bytes.append(contentsOf: key)
                    let keyEnd = chunk.bytes.count
                    try rewriter.rewrite(value, number: number, into: &chunk.bytes) { position, code, target in
                        chunk.moved.append((position, (number, code, target)))
                    }
                    chunk.entries.append((number, keyEnd, chunk.bytes.count))
                    if chunk.entries.count == MigrationExecutor.chunkSize {
                        stopped = !pipe.put(chunk)
                        chunk = MigrationExecutor.RewrittenChunk()
                    }
                    return !stopped
                }
                if !stopped { _ = pipe.put(chunk) }
                pipe.finish()
            } catch {
                pipe.finish(throwing: error)
            }
        }.start()
    }

    /// Appends every rewritten record to `loader` in key order; `observe` sees each one.
    func load(
        into loader: TreeLoader, moved: inout [Int: [MigrationExecutor.Triple]],
        observe: (Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        do {
            while let chunk = try pipe.take() {
                try chunk.bytes.withUnsafeBytes { bytes in
                    var start = 0
                    for entry in chunk.entries {
                        let record = UnsafeRawBufferPointer(rebasing: bytes[entry.keyEnd..<entry.recordEnd])
                        try observe(entry.number, record)
                        try loader.append(Array(bytes[start..<entry.keyEnd]), Array(record))
                        start = entry.recordEnd
                    }
                }
                for (position, triple) in chunk.moved { moved[position, default: []].append(triple) }
            }
        } catch {
            cancel()
            throw error
        }
    }

    deinit { cancel() }

    /// Stops the producer and waits for it: the snapshot it reads must outlive it.
    /// Harmless once it has finished, and when called again.
    func cancel() {
        pipe.cancel()
        pipe.waitUntilFinished()
    }
}
