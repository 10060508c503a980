import MagicalStore

/// One committed state of an object store, read through the engine's snapshot: what
/// fetches and faults see. Later commits do not change it.
///
/// A class: fetches and point gets pass it around, and a copy of the engine's read
/// transaction is a retain per reference it holds.
final class StoreSnapshot: @unchecked Sendable {
    let store: ObjectStore
    let transaction: ReadTransaction

    init(store: ObjectStore, transaction: ReadTransaction) {
        self.store = store
        self.transaction = transaction
    }

    /// The stored state of `id`, or nil when no such object is stored.
    func state(of id: ObjectID) throws(MagicalRecordError) -> ObjectState? {
        try state(of: id, coder: try store.coder(for: id.entityName))
    }

    /// The same, with the coder of the object's entity at hand.
    func state(of id: ObjectID, coder: RecordCoder) throws(MagicalRecordError) -> ObjectState? {
        // Decoded where the record lies in its page: no copy of its bytes first.
        let decoded = try withStoreErrors {
            let records = try transaction.tree(coder.objectTree)
            return try KeyEncoding.withEncodedInteger(id.number) { key in
                try records.withValue(forKey: key) { record in
                    record.map { record in Result { () throws(MagicalRecordError) in try coder.decode(record, number: id.number, attributes: nil) } }
                }
            }
        }
        return try decoded?.get()
    }

    /// Objects of `entity` and its subentities: O(1) per concrete entity.
    func count(of entity: Entity) throws(MagicalRecordError) -> Int {
        try withStoreErrors {
            try entity.concreteEntities.reduce(0) { $0 + (try transaction.tree(StoreLayout.objectTree($1)).count) }
        }
    }

    /// Every stored object of the concrete entity `entityName`, in id order, until `body`
    /// returns false.
    func scan(_ entityName: String, _ body: (ObjectState) throws -> Bool) throws(MagicalRecordError) {
        try scan(entityName, decoding: nil) { state, _ in try body(state) }
    }

    /// The same, materialising only the properties named in `properties` (every one when
    /// nil; the others keep their defaults): a filter reads what its predicate needs, and
    /// decodes `record` in full (``RecordCoder/decode(_:number:attributes:)``) only for what
    /// it keeps. `record` is borrowed from the page: valid only during the call.
    func scan(
        _ entityName: String, decoding properties: Set<String>?,
        _ body: (_ state: ObjectState, _ record: UnsafeRawBufferPointer) throws -> Bool
    ) throws(MagicalRecordError) {
        let coder = try store.coder(for: entityName)
        let mask = coder.decodeMask(properties)
        try scanRecords(entityName) { number, record in
            try body(try coder.decode(record, number: number, attributes: mask), record)
        }
    }

    /// Every stored record of the concrete entity `entityName`, in id order, as its object
    /// number and its bytes (borrowed for the call), until `body` returns false.
    func scanRecords(_ entityName: String, _ body: (_ number: Int64, _ record: UnsafeRawBufferPointer) throws -> Bool) throws(MagicalRecordError) {
        try withStoreErrors {
            try transaction.tree(StoreLayout.objectTree(entityName)).forEachEntry { key, value in
                try body(try Self.number(fromObjectKey: key, entity: entityName), value)
            }
        }
    }

    /// A range of an object tree's keys: one thread's part of a scan.
    struct RecordPart: Sendable {
        /// Inclusive; nil from the first record.
        let lower: [UInt8]?
        /// Exclusive; nil to the last record.
        let upper: [UInt8]?

        /// Every record.
        static let all = RecordPart(lower: nil, upper: nil)
    }

    /// A scan's parts and the threads to read them on.
    struct RecordParts {
        /// In id order; one (every record) when one thread should scan them.
        let ranges: [RecordPart]
        let threads: Int
    }

    /// The records of the concrete entity `entityName` cut for a scan on as many threads as
    /// the store's options give a tree of its size, in `perThread` parts a thread: several
    /// let a thread that finishes early take another, and the caller use the first parts'
    /// matches while the others are read.
    func recordParts(_ entityName: String, perThread: Int) throws(MagicalRecordError) -> RecordParts {
        try withStoreErrors {
            let tree = try transaction.tree(StoreLayout.objectTree(entityName))
            let threads = store.store.options.scanThreads(forEntries: tree.count)
            let keys = threads > 1 ? try tree.splitKeys(parts: perThread * threads) : []
            let bounds: [[UInt8]?] = [nil] + keys + [nil]
            return RecordParts(ranges: (0..<keys.count + 1).map { RecordPart(lower: bounds[$0], upper: bounds[$0 + 1]) }, threads: threads)
        }
    }

    /// ``scanRecords(_:_:)`` over one part.
    func scanRecords(_ entityName: String, in part: RecordPart, _ body: (_ number: Int64, _ record: UnsafeRawBufferPointer) throws -> Bool) throws(MagicalRecordError) {
        try withStoreErrors {
            try transaction.tree(StoreLayout.objectTree(entityName)).forEachEntry(from: part.lower, below: part.upper) { key, value in
                try body(try Self.number(fromObjectKey: key, entity: entityName), value)
            }
        }
    }

    /// Object numbers from the index of `attribute` of the concrete entity `entityName`
    /// whose keys fall in `range`, in index order (reversed when `reverse`), until `body`
    /// returns false.
    func scanIndex(
        _ entityName: String, _ attribute: String, _ range: KeyRange, reverse: Bool = false,
        _ body: (Int64) throws -> Bool
    ) throws(MagicalRecordError) {
        try withStoreErrors {
            try transaction.tree(StoreLayout.indexTree(entityName, attribute)).scan(range, reverse: reverse) { key, _ in
                try body(try Self.number(fromIndexKey: key, entityName, attribute))
            }
        }
    }

    /// The smallest object number whose attribute at `position` equals `value` in the
    /// index of `coder`'s (concrete) entity (the first entry under the value's prefix), or
    /// nil. The attribute must be indexed.
    func firstIndexed(_ coder: RecordCoder, _ position: Int, equalTo value: AttributeValue) throws(MagicalRecordError) -> Int64? {
        let entityName = coder.entity.name
        let attribute = coder.entity.attributes[position].name
        let tree = coder.indexTrees[position] ?? TreeHandle(StoreLayout.indexTree(entityName, attribute))
        return try withStoreErrors {
            let reader = try transaction.tree(tree)
            func first(_ prefix: UnsafeRawBufferPointer) throws -> Int64? {
                try reader.withFirstKey(atOrAfter: prefix) { key -> Int64? in
                    guard let key, key.starts(with: prefix) else { return nil }
                    // The number is what follows the value's prefix: read alone, no tuple built.
                    let number = KeyEncoding.decodeNonNegativeInteger(UnsafeRawBufferPointer(rebasing: key[prefix.count...]))
                    return try number ?? Self.number(fromIndexKey: Array(key), entityName, attribute)
                }
            }
            // An integer's prefix is built on the stack: finders by key look integers up most.
            if case .integer(let number) = value { return try KeyEncoding.withEncodedInteger(number, first) }
            return try StoreLayout.indexPrefix(value).withUnsafeBytes(first)
        }
    }

    /// The object number an index entry's key ends with.
    static func number(fromIndexKey key: [UInt8], _ entityName: String, _ attribute: String) throws -> Int64 {
        guard let number = try KeyEncoding.decode(key).last, case .int(let value) = number else {
            throw MagicalRecordError.damagedMetadata("index \(entityName).\(attribute) holds a malformed key")
        }
        return value
    }

    /// The objects of `entity` (and its subentities) whose `attribute` equals `value`,
    /// through the index.
    func objects(of entity: Entity, where attribute: String, equals value: AttributeValue) throws(MagicalRecordError) -> [ObjectID] {
        var found: [ObjectID] = []
        for name in entity.concreteEntities {
            let interned = InternedName.token(for: name)
            try scanIndex(name, attribute, .prefix(StoreLayout.indexPrefix(value))) { number in
                found.append(ObjectID(entityName: interned, number: number))
                return true
            }
        }
        return found
    }

    /// The targets of a to-many relationship of `id`, in order for an ordered one (by
    /// number for an unordered one).
    func targets(of id: ObjectID, _ relationship: RelationshipDescription) throws(MagicalRecordError) -> [ObjectID] {
        let names = store.slots.entityNamesByCode
        let treeName = StoreLayout.relationshipTree(id.entityName, relationship.name)
        var targets: [ObjectID] = []
        // Interned once per code: a to-many's members are mostly of one entity.
        var last: (code: Int, name: Unmanaged<InternedName>)?
        func append(code: Int, number: Int64) throws(MagicalRecordError) {
            let name: Unmanaged<InternedName>
            if let last, last.code == code {
                name = last.name
            } else {
                guard let text = names[code] else { throw .damagedMetadata("the relationship tree \(treeName) names an unknown entity code \(code)") }
                name = InternedName.token(for: text)
                last = (code, name)
            }
            targets.append(ObjectID(entityName: name, number: number))
        }
        try withStoreErrors {
            let tree = try transaction.tree(treeName)
            let prefix = StoreLayout.objectKey(id.number)
            if !relationship.isOrdered && store.format >= StoreMetadata.memberRunsFormat {
                // Runs of members (O14), each keyed by its last member's number.
                var members: [MemberChunk.Member] = []
                try tree.scan(.prefix(prefix)) { key, value in
                    _ = try value.withUnsafeBytes { try MemberChunk.appendMembers(ofRun: key, $0, prefix: prefix, treeName: treeName, to: &members) }
                    return true
                }
                for member in members { try append(code: member.code, number: member.number) }
                return
            }
            try tree.scan(.prefix(prefix)) { key, value in
                let target = value.withUnsafeBytes { value in
                    StoreLayout.target(value) {
                        // The key's last part, what follows the source's number: an object
                        // number, so never negative.
                        key.withUnsafeBytes { KeyEncoding.decodeNonNegativeInteger(UnsafeRawBufferPointer(rebasing: $0[prefix.count...])) }
                    }
                }
                guard let target else {
                    throw MagicalRecordError.damagedMetadata("a relationship tree holds a malformed target")
                }
                try append(code: target.code, number: target.number)
                return true
            }
        }
        return targets
    }

    /// Inlined into each scan's loop, which reads an object key per record.
    @inline(__always)
    static func number(fromObjectKey key: UnsafeRawBufferPointer, entity: String) throws -> Int64 {
        if let number = KeyEncoding.decodeNonNegativeInteger(key) { return number }
        return try number(fromObjectKey: Array(key), entity: entity)
    }

    static func number(fromObjectKey key: [UInt8], entity: String) throws -> Int64 {
        if let number = KeyEncoding.decodeNonNegativeInteger(key) { return number }
        guard let first = try KeyEncoding.decode(key).first, case .int(let number) = first else {
            throw MagicalRecordError.damagedMetadata("the object tree of \(entity) holds a malformed key")
        }
        return number
    }
}
