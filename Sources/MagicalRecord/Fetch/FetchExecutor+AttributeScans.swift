/// Scans that read attribute values into one reused array instead of building a state
/// per object: for aggregates and sorted pages over the fetched entity's own attributes.
extension FetchExecutor {
    /// The position of `path` when it is one attribute of the fetched entity.
    func ownPosition(of path: PredicateKeyPath) -> Int? {
        path.components.count == 1 ? entity.slot(ofAttribute: path.components[0]) : nil
    }

    /// For aggregates over the fetched entity's own attributes: calls `body` with each
    /// match's attribute values by position, of which `positions` (and what the predicate
    /// reads) are filled in, stored objects through one reused array. False, calling
    /// nothing, when the fetch does not qualify (subentities, an index plan, a predicate
    /// that reads more than attributes): use ``forEachMatch(reading:_:)`` then.
    func forEachMatchingAttributes(
        _ positions: [Int], _ body: (UnsafeBufferPointer<AttributeValue>) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) -> Bool {
        guard entity.fetchesOnlyItself, case .scan = plan.source,
              compiled[entity.name]?.readsOnlyAttributes ?? true else { return false }
        try scanOwnAttributes(positions) { (_, attributes) throws(MagicalRecordError) in try body(attributes) }
        for state in view.pendingStates(of: concrete) where try matches(state, compiled[entity.name]) {
            try Self.withBuffer(of: state.attributes, body)
        }
        return true
    }

    /// `body` on the values of `attributes` in place.
    static func withBuffer(
        of attributes: [AttributeValue], _ body: (UnsafeBufferPointer<AttributeValue>) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        var failure: MagicalRecordError?
        attributes.withUnsafeBufferPointer { buffer in
            do throws(MagicalRecordError) { try body(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The stored objects of the fetched entity (no subentities) that the predicate (which
    /// reads attributes only) matches, minus those unsaved changes replace: `body` gets
    /// each one's number and attribute values, with `positions` and the predicate's
    /// filled in, in one buffer reused from record to record (valid only during the call).
    ///
    /// `skipping`, asked of each stored match before it is decoded, turns it away unread.
    /// With `part`, only the records of that part are read (see ``inParts(_:_:consume:)``).
    func scanOwnAttributes(
        _ positions: [Int], in part: StoreSnapshot.RecordPart? = nil,
        skipping: (Int64, UnsafeRawBufferPointer) throws(MagicalRecordError) -> Bool = { _, _ in false },
        _ body: (Int64, UnsafeBufferPointer<AttributeValue>) throws(MagicalRecordError) -> Void
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
        defer {
            attributes.deinitialize()
            attributes.deallocate()
        }
        let shape = coder.makeShape()
        var failure: MagicalRecordError?
        // Read once: per record it cost a retain and release of the view's tables.
        let hasOverlays = view.hasOverlays
        let interned = InternedName.token(for: name)
        try view.snapshot.scanRecords(name, in: part ?? .all) { number, record in
            do throws(MagicalRecordError) {
                guard try isMatch(number, record, interned, filter, hasOverlays: hasOverlays), try !skipping(number, record) else { return true }
                try coder.decodeAttributes(record, number: number, mask: mask, into: attributes, shape: shape)
                try body(number, UnsafeBufferPointer(attributes))
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }
}
