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
    private let sortPaths: [PredicateKeyPath]
    private let concrete: Set<String>
    /// The properties the predicate reads: all a scan decodes to filter.
    private let predicateKeys: Set<String>
    /// The predicate prepared for each concrete entity (empty without a predicate).
    private let compiled: [String: CompiledPredicate]

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
    private func matches(_ state: ObjectState, _ compiled: CompiledPredicate?) throws(MagicalRecordError) -> Bool {
        guard let compiled else { return true }
        do {
            return try compiled.evaluate(state) { try subject($0) }
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
    private func visitMatches(
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
                for number in numbers {
                    let id = ObjectID(entityName: name, number: number)
                    guard !view.isOverlaid(id), let state = try snapshot.state(of: id) else { continue }
                    if try matches(state, compiled) { try body(state) }
                }
            }
        }
        for state in view.pendingStates(of: concrete) where try matches(state, compiled[state.id.entityName]) {
            try body(state)
        }
    }

    /// A scan whose predicate reads attributes only: each record's predicate attributes go
    /// into one reused array and are tested there, so an object that does not match costs
    /// no state; a match is decoded with `mask` (nil: in full), or not at all without
    /// `materialising`.
    private func scanFiltering(
        _ name: String, _ coder: RecordCoder, _ compiled: CompiledPredicate?, _ mask: RecordCoder.DecodeMask?,
        materialising: Bool, _ body: (ObjectState?) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        let filterMask = coder.decodeMask(predicateKeys)?.attributes ?? []
        var attributes = coder.defaultAttributes
        var failure: MagicalRecordError?
        try view.snapshot.scanRecords(name) { number, record in
            do throws(MagicalRecordError) {
                if view.hasOverlays, view.isOverlaid(ObjectID(entityName: name, number: number)) { return true }
                if let compiled {
                    try coder.decodeAttributes(record, number: number, mask: filterMask, into: &attributes)
                    guard try passes(compiled, attributes) else { return true }
                }
                try body(materialising ? try coder.decode(record, number: number, attributes: mask) : nil)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    /// `compiled` (attribute comparisons only) on attribute values.
    private func passes(_ compiled: CompiledPredicate, _ attributes: [AttributeValue]) throws(MagicalRecordError) -> Bool {
        do {
            return try compiled.evaluate(attributes: attributes) { _ in
                throw MagicalRecordError.invalidFetch("a predicate part that reads more than attributes reached the attribute filter")
            }
        } catch let error as ObjectPredicateError {
            throw .predicate(error, entity: entity.name)
        } catch let error as MagicalRecordError {
            throw error
        } catch {
            throw .invalidFetch("\(error)")
        }
    }

    /// The first `offset + limit` matches by the sort keys: a bounded list kept in order
    /// as the scan goes, so nothing is sorted whole and most objects are turned away on
    /// their first sort key; the winners are then read in full.
    private func firstSorted() throws(MagicalRecordError) -> [ObjectState] {
        let (sum, overflow) = request.fetchOffset.addingReportingOverflow(request.fetchLimit)
        var top = TopMatches(capacity: overflow ? Int.max : sum, directions: request.sortKeys.map(\.ascending))
        if let positions = ownSortPositions(), case .scan = plan.source, compiled[entity.name]?.readsOnlyAttributes ?? true {
            try scanForTop(positions, into: &top)
        } else {
            try visitMatches(reading: Set(sortPaths.compactMap(\.components.first))) { (state) throws(MagicalRecordError) in
                guard let state, !top.rejects(try attributeValue(at: sortPaths[0], of: state)) else { return }
                top.offer(SortedMatch(values: try sortValues(of: state), id: state.id))
            }
        }
        var states: [ObjectState] = []
        for match in top.matches.dropFirst(request.fetchOffset) {
            guard let state = try view.state(of: match.id) else { continue }
            states.append(state)
        }
        return states
    }

    /// The position of `path` when it is one attribute of the fetched entity.
    func ownPosition(of path: PredicateKeyPath) -> Int? {
        path.components.count == 1 ? entity.slot(ofAttribute: path.components[0]) : nil
    }

    /// The positions of the sort keys when each is an attribute of the fetched entity and
    /// it has no subentities; nil otherwise.
    private func ownSortPositions() -> [Int]? {
        guard entity.concreteEntities == [entity.name] else { return nil }
        var positions: [Int] = []
        for path in sortPaths {
            guard path.components.count == 1, let position = entity.slot(ofAttribute: path.components[0]) else { return nil }
            positions.append(position)
        }
        return positions
    }

    /// ``firstSorted()``'s scan when the predicate and the sort keys read only the
    /// entity's attributes: an object becomes a state only if it wins a place.
    private func scanForTop(_ positions: [Int], into top: inout TopMatches) throws(MagicalRecordError) {
        try scanOwnAttributes(positions) { number, attributes in
            guard !top.rejects(attributes[positions[0]]) else { return }
            top.offer(SortedMatch(values: positions.map { attributes[$0] }, id: ObjectID(entityName: entity.name, number: number)))
        }
        for state in view.pendingStates(of: concrete) where try matches(state, compiled[entity.name]) {
            top.offer(SortedMatch(values: try sortValues(of: state), id: state.id))
        }
    }

    /// For aggregates over the fetched entity's own attributes: calls `body` with each
    /// match's attribute values by position, of which `positions` (and what the predicate
    /// reads) are filled in, stored objects through one reused array. False, calling
    /// nothing, when the fetch does not qualify (subentities, an index plan, a predicate
    /// that reads more than attributes): use ``forEachMatch(reading:_:)`` then.
    func forEachMatchingAttributes(
        _ positions: [Int], _ body: ([AttributeValue]) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) -> Bool {
        guard entity.concreteEntities == [entity.name], case .scan = plan.source,
              compiled[entity.name]?.readsOnlyAttributes ?? true else { return false }
        try scanOwnAttributes(positions) { (_, attributes) throws(MagicalRecordError) in try body(attributes) }
        for state in view.pendingStates(of: concrete) where try matches(state, compiled[entity.name]) {
            try body(state.attributes)
        }
        return true
    }

    /// The stored objects of the fetched entity (no subentities) that the predicate (which
    /// reads attributes only) matches, minus those unsaved changes replace: `body` gets
    /// each one's number and attribute values, with `positions` and the predicate's
    /// filled in, in one array reused from record to record.
    private func scanOwnAttributes(
        _ positions: [Int], _ body: (Int64, [AttributeValue]) throws(MagicalRecordError) -> Void
    ) throws(MagicalRecordError) {
        let name = entity.name
        let coder = try view.snapshot.store.coder(for: name)
        let compiled = self.compiled[name]
        var mask = coder.decodeMask(predicateKeys)?.attributes ?? Array(repeating: false, count: entity.attributes.count)
        for position in positions { mask[position] = true }
        var attributes = coder.defaultAttributes
        var failure: MagicalRecordError?
        try view.snapshot.scanRecords(name) { number, record in
            do throws(MagicalRecordError) {
                if view.hasOverlays, view.isOverlaid(ObjectID(entityName: name, number: number)) { return true }
                try coder.decodeAttributes(record, number: number, mask: mask, into: &attributes)
                if let compiled { guard try passes(compiled, attributes) else { return true } }
                try body(number, attributes)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    private func sortValues(of state: ObjectState) throws(MagicalRecordError) -> [AttributeValue] {
        var values: [AttributeValue] = []
        values.reserveCapacity(sortPaths.count)
        for path in sortPaths {
            values.append(try attributeValue(at: path, of: state, role: "sort key"))
        }
        return values
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
        try view.snapshot.scanIndex(name, key.keyPath, .all, reverse: !key.ascending) { number in
            do throws(MagicalRecordError) {
                guard let state = try view.snapshot.state(of: ObjectID(entityName: name, number: number)),
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

    /// Sorts by the request's keys, then by object id so equal objects keep one order.
    private func sort(_ states: inout [ObjectState]) throws(MagicalRecordError) {
        guard !sortPaths.isEmpty else {
            if plan.orderedBy == nil { states.sort { $0.id < $1.id } }
            return
        }
        var keyed: [(match: SortedMatch, state: ObjectState)] = []
        keyed.reserveCapacity(states.count)
        for state in states {
            keyed.append((SortedMatch(values: try sortValues(of: state), id: state.id), state))
        }
        let directions = request.sortKeys.map(\.ascending)
        keyed.sort { $0.match.precedes($1.match, directions) }
        states = keyed.map(\.state)
    }
}

/// An object's sort-key values, ordered by the keys' directions, then by id.
private struct SortedMatch {
    let values: [AttributeValue]
    let id: ObjectID

    func precedes(_ other: SortedMatch, _ directions: [Bool]) -> Bool {
        for (index, ascending) in directions.enumerated() {
            switch AttributeValue.compare(values[index], other.values[index]) {
            case .orderedAscending?: return ascending
            case .orderedDescending?: return !ascending
            default: continue
            }
        }
        return id < other.id
    }
}

/// The best `capacity` matches so far, in order.
private struct TopMatches {
    let capacity: Int
    let directions: [Bool]
    private(set) var matches: [SortedMatch] = []

    init(capacity: Int, directions: [Bool]) {
        self.capacity = capacity
        self.directions = directions
    }

    /// Whether a match whose first sort value is `first` cannot win a place: the list is
    /// full and its last match comes strictly first on that key alone.
    func rejects(_ first: AttributeValue) -> Bool {
        guard matches.count >= capacity, let last = matches.last else { return false }
        return AttributeValue.compare(first, last.values[0]) == (directions[0] ? .orderedDescending : .orderedAscending)
    }

    mutating func offer(_ candidate: SortedMatch) {
        if matches.count >= capacity, let last = matches.last, !candidate.precedes(last, directions) { return }
        var low = 0
        var high = matches.count
        while low < high {
            let middle = (low + high) / 2
            if candidate.precedes(matches[middle], directions) { high = middle } else { low = middle + 1 }
        }
        matches.insert(candidate, at: low)
        if matches.count > capacity { matches.removeLast() }
    }
}
