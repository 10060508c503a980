import MagicalStore

/// Runs a fetch request against a context's view of the store: plans it, gathers
/// candidates from the store and from unsaved changes, checks each against the
/// predicate, sorts, and slices. A class: the per-object closures of a scan capture it,
/// and copying a struct of this size per object showed up as a third of a count.
final class FetchExecutor {
    let request: FetchRequest
    let entity: Entity
    /// The request's predicate, validated against the entity (nil: every object).
    let predicate: ObjectPredicate?
    let view: ObjectView
    let plan: FetchPlan
    let sortPaths: [PredicateKeyPath]
    let concrete: Set<String>
    /// The properties the predicate reads: all a scan decodes to filter.
    let predicateKeys: Set<String>
    /// The predicate prepared for each concrete entity (empty without a predicate).
    let compiled: [String: CompiledPredicate]

    init(_ request: FetchRequest, in context: ManagedObjectContext) throws(MagicalRecordError) {
        let model = context.model
        guard let entity = model.entity(named: request.entityName) else { throw .model(.unknownEntity(request.entityName)) }
        guard request.fetchLimit >= 0, request.fetchOffset >= 0 else {
            throw .invalidFetch("fetch limit and offset cannot be negative (limit \(request.fetchLimit), offset \(request.fetchOffset))")
        }
        self.request = request
        self.entity = entity
        do {
            predicate = try request.predicate?.validated(for: entity, in: model)
        } catch {
            throw .predicate(error, entity: entity.name)
        }
        sortPaths = try request.sortKeys.map { (key) throws(MagicalRecordError) in
            try Self.attributePath(key.keyPath, of: entity, in: model, role: "sort key")
        }
        predicateKeys = predicate?.referencedKeys ?? []
        var compiled: [String: CompiledPredicate] = [:]
        if let predicate {
            for name in entity.concreteEntities {
                compiled[name] = model.entity(named: name).map { CompiledPredicate(predicate, entity: $0) } ?? .general(predicate)
            }
        }
        self.compiled = compiled
        view = try ObjectView(context: context, includesPendingChanges: request.includesPendingChanges)
        concrete = Set(entity.concreteEntities)
        // Distinct rows are counted after duplicates go, so an early stop could fall short.
        let readsInOrder = request.fetchLimit > 0 && !request.returnsDistinctResults && !view.hasPendingChanges(of: concrete)
        plan = FetchPlan.make(for: predicate, entity: entity, model: model, sortKeys: request.sortKeys, readsInOrder: readsInOrder)
    }

    /// Checks that `keyPath` names an attribute, through to-one relationships.
    static func attributePath(_ keyPath: String, of entity: Entity, in model: ObjectModel, role: String) throws(MagicalRecordError) -> PredicateKeyPath {
        let path = PredicateKeyPath(keyPath)
        var current = entity
        for (index, component) in path.components.enumerated() {
            let isLast = index == path.components.count - 1
            if isLast, current.attribute(named: component) != nil { return path }
            guard !isLast, let relationship = current.relationship(named: component), !relationship.isToMany,
                  let destination = model.entity(named: relationship.destination) else { break }
            current = destination
        }
        throw .invalidFetch("\(role) \"\(keyPath)\" is not an attribute of entity \(entity.name) (or of a to-one relationship's entity)")
    }

    // MARK: Running

    /// The matching objects' states in the request's order. With `sliced`, the offset
    /// and limit are applied.
    func states(sliced: Bool = true) throws(MagicalRecordError) -> [ObjectState] {
        if plan.orderedBy == nil, sliced, request.fetchLimit > 0, !sortPaths.isEmpty {
            return try firstSorted()
        }
        var matches = plan.orderedBy == nil ? try unorderedMatches() : try orderedMatches()
        try sort(&matches)
        return sliced ? slice(matches) : matches
    }

    /// Whether ``visitMatches(reading:materialising:_:)`` gives the matches in the order
    /// ``states(sliced:)`` returns them, all of them: no sort keys, offset or limit, one
    /// concrete entity, and no unsaved changes of it (they would come after the store's).
    var matchesComeInOrder: Bool {
        sortPaths.isEmpty && plan.orderedBy == nil && request.fetchLimit == 0 && request.fetchOffset == 0
            && concrete.count == 1 && !view.hasPendingChanges(of: concrete)
    }

    /// How many objects match, offset and limit applied. O(1) for an entity without
    /// predicate or unsaved changes.
    func count() throws(MagicalRecordError) -> Int {
        var total = 0
        if predicate == nil, !view.hasPendingChanges(of: concrete) {
            total = try view.snapshot.count(of: entity)
        } else {
            try visitMatches(reading: [], materialising: false) { _ in total += 1 }
        }
        let afterOffset = max(total - request.fetchOffset, 0)
        return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
    }

    func slice<T>(_ items: [T]) -> [T] {
        let start = min(request.fetchOffset, items.count)
        let end = request.fetchLimit > 0 ? start + min(request.fetchLimit, items.count - start) : items.count
        return Array(items[start..<end])
    }

    func subject(_ state: ObjectState) throws(MagicalRecordError) -> StateSubject {
        StateSubject(state: state, entity: try view.entity(of: state.id), view: view)
    }

    /// Whether `state` satisfies the predicate, as prepared for its entity (`compiled`, nil
    /// without a predicate).
    func matches(_ state: ObjectState, _ compiled: CompiledPredicate?) throws(MagicalRecordError) -> Bool {
        guard let compiled else { return true }
        return try evaluating { try compiled.evaluate(state) { try subject($0) } }
    }

    /// Runs a predicate evaluation, its errors as this fetch's errors.
    private func evaluating(_ evaluation: () throws -> Bool) throws(MagicalRecordError) -> Bool {
        do {
            return try evaluation()
        } catch let error as ObjectPredicateError {
            throw .predicate(error, entity: entity.name)
        } catch let error as MagicalRecordError {
            throw error
        } catch {
            throw .invalidFetch("\(error)")
        }
    }

    /// Calls `body` with each matching object, in no particular order, for aggregates. Its
    /// states are partial: they carry `attributes` and what the predicate reads, with
    /// every other attribute at its default.
    func forEachMatch(reading attributes: Set<String>, _ body: (ObjectState) throws(MagicalRecordError) -> Void) throws(MagicalRecordError) {
        try visitMatches(reading: attributes) { state throws(MagicalRecordError) in
            if let state { try body(state) }
        }
    }

    private func unorderedMatches() throws(MagicalRecordError) -> [ObjectState] {
        var found: [ObjectState] = []
        try visitMatches(reading: nil) { state in
            if let state { found.append(state) }
        }
        return found
    }

    /// Store candidates the plan finds (minus those unsaved changes replace), then the
    /// unsaved states, each checked against the predicate. A scan decodes only what the
    /// predicate reads plus `reading`; with `reading` nil the states are complete (a
    /// match is decoded again in full). Without `materialising`, a match found by a scan
    /// comes as nil (a count needs no state).
    func visitMatches(
        reading: Set<String>?, materialising: Bool = true, _ body: (ObjectState?) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        let snapshot = view.snapshot
        let decoded = reading.map { $0.union(predicateKeys) } ?? (predicate == nil ? nil : predicateKeys)
        for name in entity.concreteEntities {
            let compiled = self.compiled[name]
            switch plan.source {
            case .nothing:
                break
            case .scan:
                let coder = try snapshot.store.coder(for: name)
                if compiled?.readsOnlyAttributes ?? true {
                    try scanFiltering(name, coder, compiled, materialising ? reading.map { coder.decodeMask($0.union(predicateKeys)) } ?? nil : nil,
                                      materialising: materialising, body)
                    continue
                }
                let completes = reading == nil && decoded != nil
                var failure: MagicalRecordError?
                try snapshot.scan(name, decoding: decoded) { state, record in
                    guard !view.isOverlaid(state.id) else { return true }
                    do throws(MagicalRecordError) {
                        guard try matches(state, compiled) else { return true }
                        try body(completes ? try coder.decode(record, number: state.id.number, attributes: nil) : state)
                        return true
                    } catch {
                        failure = error
                        return false
                    }
                }
                if let failure { throw failure }
            case .index(let attribute, let ranges):
                var numbers: [Int64] = []
                for range in ranges {
                    try snapshot.scanIndex(name, attribute, range) { number in
                        numbers.append(number)
                        return true
                    }
                }
                // Ranges of an IN list can overlap: "a" is a byte prefix of "a\0".
                if ranges.count > 1 { numbers = Array(Set(numbers)) }
                numbers.sort()
                let interned = InternedName.token(for: name)
                for number in numbers {
                    let id = ObjectID(entityName: interned, number: number)
                    guard !view.isOverlaid(id), let state = try snapshot.state(of: id) else { continue }
                    if try matches(state, compiled) { try body(state) }
                }
            }
        }
        for state in view.pendingStates(of: concrete) where try matches(state, compiled[state.id.entityName]) {
            try body(state)
        }
    }

    /// A scan whose predicate reads attributes only: each record is tested where it lies
    /// (``RecordFilter``), so an object that does not match costs no value and no state; a
    /// match is decoded with `mask` (nil: in full), or not at all without `materialising`.
    /// A large entity is scanned in parts on several threads (``scanInParts``).
    private func scanFiltering(
        _ name: String, _ coder: RecordCoder, _ compiled: CompiledPredicate?, _ mask: RecordCoder.DecodeMask?,
        materialising: Bool, _ body: (ObjectState?) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        let parts = try view.snapshot.recordParts(name, perThread: 4)
        if parts.ranges.count > 1 {
            try scanInParts(parts, RecordScan(name: name, coder: coder, compiled: compiled, mask: mask, materialising: materialising), body)
            return
        }
        let filter = try compiled.map { compiled throws(MagicalRecordError) in try recordFilter(compiled, coder) }
        var failure: MagicalRecordError?
        // Read once: per record it cost a retain and release of the view's tables.
        let hasOverlays = view.hasOverlays
        let interned = InternedName.token(for: name)
        try view.snapshot.scanRecords(name) { number, record in
            do throws(MagicalRecordError) {
                guard try isMatch(number, record, interned, filter, hasOverlays: hasOverlays) else { return true }
                try body(materialising ? try coder.decode(record, number: number, attributes: mask) : nil)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    /// Whether the record of object `number` of entity `name` (interned once per scan) is
    /// one the scan passes on: not replaced by an unsaved change, and accepted by `filter`.
    @inline(__always)
    func isMatch(
        _ number: Int64, _ record: UnsafeRawBufferPointer, _ name: Unmanaged<InternedName>, _ filter: RecordFilter?, hasOverlays: Bool
    ) throws(MagicalRecordError) -> Bool {
        if hasOverlays, view.isOverlaid(ObjectID(entityName: name, number: number)) { return false }
        return try filter?.matches(record, number: number) ?? true
    }

    /// `compiled` (attribute comparisons only) as a filter on the records of `coder`'s entity.
    func recordFilter(_ compiled: CompiledPredicate, _ coder: RecordCoder) throws(MagicalRecordError) -> RecordFilter {
        guard let filter = RecordFilter(compiled, coder: coder, entityName: entity.name) else {
            throw .invalidFetch("a predicate part that reads more than attributes reached the attribute filter")
        }
        return filter
    }

    /// The value at an attribute key path (checked by ``attributePath(_:of:in:role:)``) of
    /// a matching object: read by position for an attribute of the object's own entity,
    /// through the view for a path across relationships.
    func attributeValue(at path: PredicateKeyPath, of state: ObjectState, role: String = "") throws(MagicalRecordError) -> AttributeValue {
        if path.components.count == 1, state.id.entityName == entity.name, let position = entity.slot(ofAttribute: path.components[0]) {
            return state.attributes[position]
        }
        do {
            return try subject(state).attributeValue(at: path) ?? .null
        } catch let error as MagicalRecordError {
            throw error
        } catch {
            throw .invalidFetch("\(role.isEmpty ? "" : role + " ")\(path) cannot be read: \(error)")
        }
    }

    /// Attribute `name` of `target` (a to-one's target) as the view has it, as a key path
    /// through the relationship reads it: null for a target that does not exist.
    func attributeValue(_ name: String, ofTarget target: ObjectID) throws(MagicalRecordError) -> AttributeValue {
        guard let state = try view.state(of: target) else { return .null }
        let entity = try view.entity(of: target)
        guard let position = entity.slot(ofAttribute: name) else {
            throw .invalidFetch("\(name) is not an attribute of entity \(entity.name)")
        }
        return state.attributes[position]
    }

    /// Reads the first sort key's index in order and stops once `offset + limit` objects
    /// match and the key's value moves on (so ties at the edge are all seen). Only
    /// planned with no unsaved changes and one concrete entity.
    private func orderedMatches() throws(MagicalRecordError) -> [ObjectState] {
        guard let key = plan.orderedBy, let name = entity.concreteEntities.first else { return [] }
        let (sum, overflow) = request.fetchOffset.addingReportingOverflow(request.fetchLimit)
        let needed = overflow ? Int.max : sum
        let position = entity.slot(ofAttribute: key.keyPath)
        var found: [ObjectState] = []
        var failure: MagicalRecordError?
        let compiled = self.compiled[name]
        let interned = InternedName.token(for: name)
        try view.snapshot.scanIndex(name, key.keyPath, .all, reverse: !key.ascending) { number in
            do throws(MagicalRecordError) {
                guard let state = try view.snapshot.state(of: ObjectID(entityName: interned, number: number)),
                      try matches(state, compiled) else { return true }
                if found.count >= needed, let position, let last = found.last,
                   AttributeValue.compare(state.attributes[position], last.attributes[position]) != .orderedSame {
                    return false
                }
                found.append(state)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        return found
    }
}
