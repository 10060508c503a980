import MagicalStore

/// The short way for `findFirst(byAttribute:withValue:)` on an indexed attribute: one
/// index probe and one record read, where a general fetch would validate a predicate,
/// plan, gather and slice for each lookup (three quarters of a point get's time).
///
/// It answers exactly as the general fetch would, and declines (nil) whenever that is
/// not plain: unsaved changes of the entity in this context or a parent (they overlay
/// the store), subentities, an attribute without an index, or a value that is not
/// already of the attribute's type (the general fetch applies its conversions).
extension ManagedObjectContext {
    /// `.some(object)` or `.some(nil)` (no match): the answer; nil: take the general fetch.
    func firstObjectThroughIndex(
        entityName: String, attribute: String, value: (any PredicateArgumentConvertible)?
    ) throws(MagicalRecordError) -> ManagedObject?? {
        guard let entity = model.entity(named: entityName), entity.fetchesOnlyItself,
              let position = entity.indexedSlot(ofAttribute: attribute) else { return nil }
        let wanted: AttributeValue
        switch value?.predicateArgument ?? .value(.null) {
        case .value(let argument): wanted = argument
        case .object, .list: return nil
        }
        let type = entity.attributes[position].type
        guard type.indexEqualityIsValueEquality, type.accepts(wanted), !hasPendingChanges(of: entity.name) else { return nil }

        do {
            return try probe(entity, position, wanted)
        } catch {
            let lookup = ObjectPredicate.comparison(PredicateComparison(.keyPath(PredicateKeyPath(attribute)), .equalTo, .constant(wanted)))
            Log.fetchFailed(FetchRequest(entityName: entityName, predicate: lookup, fetchLimit: 1), error)
            throw error
        }
    }

    private func probe(_ entity: Entity, _ position: Int, _ wanted: AttributeValue) throws(MagicalRecordError) -> ManagedObject?? {
        let snapshot = try stack.latestSnapshot()
        let coder = try stack.store.coder(for: entity)
        if let found = try probeByHint(entity, position, wanted, snapshot, coder) { return found }
        // Entries of one value are ordered by object number: the first is the one the
        // general fetch returns.
        guard let number = try snapshot.firstIndexed(coder, position, equalTo: wanted) else { return .some(nil) }
        if let key = coder.hintedKey(wanted, at: position) { coder.keyHints?.note(key: key, number: number) }
        let id = ObjectID(entityName: entity.internedName, number: number)
        return try withLock { () throws(MagicalRecordError) -> ManagedObject?? in
            if let registered = registeredObject(id) { return .some(registered) }
            // The record disagreeing with its index entry is for the general fetch to sort out.
            guard let state = try snapshot.state(of: id, coder: coder), state.attributes[position] == wanted else { return nil }
            return .some(makeObject(id, entity, state))
        }
    }

    /// The object with integer key `wanted` through the key's hints (``KeyHints``): the
    /// record the hint names, read in `snapshot`, must hold the key. Keys are unique in
    /// every snapshot, so it is then the one object with it, as the index would say; no
    /// object when the table, complete as of the snapshot, has no slot for the key; nil
    /// (ask the index) without a hint or when the record does not hold the key.
    private func probeByHint(
        _ entity: Entity, _ position: Int, _ wanted: AttributeValue, _ snapshot: StoreSnapshot, _ coder: RecordCoder
    ) throws(MagicalRecordError) -> ManagedObject?? {
        guard let key = coder.hintedKey(wanted, at: position), let hints = coder.keyHints else { return nil }
        let number: Int64
        switch hints.presence(of: key, asOf: snapshot.transaction.transactionID) {
        case .absent: return .some(nil)
        case .candidate(let hinted): number = hinted
        case .unknown: return nil
        }
        let id = ObjectID(entityName: entity.internedName, number: number)
        guard let state = try snapshot.state(of: id, coder: coder), state.attributes[position] == wanted else { return nil }
        return .some(registeredObject(id, orMadeFrom: state, of: entity))
    }

    /// Whether this context or a parent holds an unsaved change of an object of `entityName`.
    /// Asked of each level in turn, not walked with a variable: that retained and released
    /// each context, which their weak references make the slow way, twice per get.
    private func hasPendingChanges(of entityName: String) -> Bool {
        let changed = withLock { !changedObjects.isEmpty && changedObjects.keys.contains { $0.entityName == entityName } }
        return changed || (parent?.hasPendingChanges(of: entityName) ?? false)
    }
}

extension AttributeType {
    /// Whether index keys of this type are equal exactly when the values are (floating
    /// point and decimals are not: -0.0 and 0.0, decimals indexed as doubles).
    fileprivate var indexEqualityIsValueEquality: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .boolean, .string, .date, .uuid: return true
        default: return false
        }
    }
}
