/// Scans that read attribute values (and to-one references) into reused buffers instead of
/// building a state per object: for aggregates and sorted pages over the fetched entity's
/// own attributes and its to-ones' targets.
extension FetchExecutor {
    /// The position of `path` when it is one attribute of the fetched entity.
    func ownPosition(of path: PredicateKeyPath) -> Int? {
        path.components.count == 1 ? entity.slot(ofAttribute: path.components[0]) : nil
    }

    /// For aggregates over the fetched entity's own attributes and its to-ones' targets:
    /// folds each match into a partial result (`start` makes one, `add` folds in a match's
    /// attribute values by position, of which `positions` and what the predicate reads are
    /// filled in, and the targets of the to-ones at `relationships`, by relationship
    /// position). A large entity's records are read in parts on several threads, a partial
    /// each, returned in id order; the unsaved matches are folded into one last partial.
    /// Nil, calling nothing, when the fetch does not qualify (subentities, an index plan, a
    /// predicate that reads more than attributes): use ``forEachMatch(reading:_:)`` then.
    func foldMatchingFields<Partial>(
        _ positions: [Int], targetsOf relationships: [Int] = [], start: @escaping () -> Partial,
        _ add: @escaping (inout Partial, UnsafeBufferPointer<AttributeValue>, UnsafeBufferPointer<ObjectID?>) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) -> [Partial]? {
        try foldInParts(start, stored: { [self] (part, partial) throws(MagicalRecordError) in
            try scanOwnAttributes(positions, targetsOf: relationships, in: part) { (_, attributes, targets) throws(MagicalRecordError) in
                try add(&partial, attributes, targets)
            }
        }, pending: { [self] (partial, state) throws(MagicalRecordError) in
            var targets = [ObjectID?](repeating: nil, count: relationships.isEmpty ? 0 : entity.relationships.count)
            for position in relationships {
                targets[position] = try view.targets(of: state, position: position, entity: entity).first
            }
            try state.attributes.withUnsafeBufferPointer { attributes throws(MagicalRecordError) in
                try targets.withUnsafeBufferPointer { targets throws(MagicalRecordError) in try add(&partial, attributes, targets) }
            }
        })
    }

    /// The skeleton of both folds: nil unless the fetch is a scan of one concrete entity
    /// whose predicate reads attributes only; else `stored` folds each part of its records
    /// on the scan threads into a partial of its own, returned in id order, and `pending`
    /// the unsaved matches into one last partial.
    private func foldInParts<Partial>(
        _ start: @escaping () -> Partial,
        stored: @escaping (StoreSnapshot.RecordPart, inout Partial) throws(MagicalRecordError) -> Void,
        pending: (inout Partial, ObjectState) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) -> [Partial]? {
        guard entity.fetchesOnlyItself, case .scan = plan.source,
              compiled[entity.name]?.readsOnlyAttributes ?? true else { return nil }
        var partials: [Partial] = []
        try Self.inParts(try view.snapshot.recordParts(entity.name, perThread: 4), { part in
            Result { () throws(MagicalRecordError) -> Partial in
                var partial = start()
                try stored(part, &partial)
                return partial
            }
        }, consume: { (partial) throws(MagicalRecordError) in partials.append(try partial.get()) })
        var unsaved = start()
        for state in view.pendingStates(of: concrete) where try matches(state, compiled[entity.name]) {
            try pending(&unsaved, state)
        }
        partials.append(unsaved)
        return partials
    }

    /// The stored objects of the fetched entity (no subentities) that the predicate (which
    /// reads attributes only) matches, minus those unsaved changes replace: `body` gets
    /// each one's number, its attribute values, with `positions` and the predicate's
    /// filled in, and the targets of the to-ones at `relationships`, each in one buffer
    /// reused from record to record (valid only during the call).
    ///
    /// `skipping`, asked of each stored match before it is decoded, turns it away unread.
    /// With `part`, only the records of that part are read (see ``inParts(_:_:consume:)``).
    func scanOwnAttributes(
        _ positions: [Int], targetsOf relationships: [Int] = [], in part: StoreSnapshot.RecordPart? = nil,
        skipping: (Int64, UnsafeRawBufferPointer) throws(MagicalRecordError) -> Bool = { _, _ in false },
        _ body: (Int64, UnsafeBufferPointer<AttributeValue>, UnsafeBufferPointer<ObjectID?>) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        let name = entity.name
        let coder = try view.snapshot.store.coder(for: name)
        let filter = try self.compiled[name].map { compiled throws(MagicalRecordError) in try recordFilter(compiled, coder) }
        var wanted = coder.decodeMask(predicateKeys)?.attributes ?? Array(repeating: false, count: entity.attributes.count)
        for position in positions { wanted[position] = true }
        // A constant: the closure reads a captured variable through its box, a retain per record.
        let mask = wanted
        // One buffer for every record: an array in the closure's box was retained to be
        // handed on, and checked for uniqueness at each write.
        let attributes = UnsafeMutableBufferPointer<AttributeValue>.allocate(capacity: coder.defaultAttributes.count)
        _ = attributes.initialize(from: coder.defaultAttributes)
        let targets = UnsafeMutableBufferPointer<ObjectID?>.allocate(capacity: entity.relationships.count)
        targets.initialize(repeating: nil)
        defer {
            attributes.deinitialize()
            attributes.deallocate()
            targets.deinitialize()
            targets.deallocate()
        }
        let shape = coder.makeShape()
        var failure: MagicalRecordError?
        // Read once: per record it cost a retain and release of the view's tables.
        let hasOverlays = view.hasOverlays
        let interned = InternedName.token(for: name)
        try view.snapshot.scanRecords(name, in: part ?? .all) { number, record in
            do throws(MagicalRecordError) {
                guard try isMatch(number, record, interned, filter, hasOverlays: hasOverlays), try !skipping(number, record) else { return true }
                if relationships.isEmpty {
                    try coder.decodeAttributes(record, number: number, mask: mask, into: attributes, shape: shape)
                } else {
                    try coder.decodeAttributes(record, number: number, mask: mask, into: attributes, targetsOf: relationships, into: targets, shape: shape)
                }
                try body(number, UnsafeBufferPointer(attributes), UnsafeBufferPointer(targets))
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }
}

extension FetchExecutor {
    /// For aggregates over longer key paths: folds the state of each match, decoded with
    /// `reading` and what the predicate reads, into partial results, as
    /// ``foldMatchingFields(_:targetsOf:start:_:)`` folds fields: a large entity's parts on
    /// the scan threads (`add` runs on several at once, on partials of its own), in id
    /// order, the unsaved matches in a last partial. Nil when the fetch does not qualify.
    func foldMatchingStates<Partial>(
        reading: Set<String>, start: @escaping () -> Partial,
        _ add: @escaping (inout Partial, ObjectState) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) -> [Partial]? {
        try foldInParts(start, stored: { [self] (part, partial) throws(MagicalRecordError) in
            // Per part, once the fetch qualifies: an abstract entity has no coder.
            let coder = try view.snapshot.store.coder(for: entity.name)
            try foldStoredStates(in: part, coder, compiled[entity.name], coder.decodeMask(reading.union(predicateKeys)), into: &partial, add)
        }, pending: add)
    }

    private func foldStoredStates<Partial>(
        in part: StoreSnapshot.RecordPart, _ coder: RecordCoder, _ compiled: CompiledPredicate?, _ mask: RecordCoder.DecodeMask?,
        into partial: inout Partial, _ add: (inout Partial, ObjectState) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        let filter = try compiled.map { compiled throws(MagicalRecordError) in try recordFilter(compiled, coder) }
        let hasOverlays = view.hasOverlays
        let interned = InternedName.token(for: entity.name)
        var failure: MagicalRecordError?
        try view.snapshot.scanRecords(entity.name, in: part) { number, record in
            do throws(MagicalRecordError) {
                guard try isMatch(number, record, interned, filter, hasOverlays: hasOverlays) else { return true }
                try add(&partial, try coder.decode(record, number: number, attributes: mask))
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }
}
