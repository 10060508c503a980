import MagicalStore

/// Runs a fetch request against a context's view of the store: plans it, gathers
/// candidates from the store and from unsaved changes, checks each against the
/// predicate, sorts, and slices.
struct FetchExecutor {
    let request: FetchRequest
    let entity: Entity
    /// The request's predicate, validated against the entity (nil: every object).
    let predicate: ObjectPredicate?
    let view: ObjectView
    let plan: FetchPlan
    private let sortPaths: [PredicateKeyPath]
    private let concrete: Set<String>

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
        var matches = plan.orderedBy == nil ? try unorderedMatches() : try orderedMatches()
        try sort(&matches)
        return sliced ? slice(matches) : matches
    }

    /// How many objects match, offset and limit applied. O(1) for an entity without
    /// predicate or unsaved changes.
    func count() throws(MagicalRecordError) -> Int {
        let total: Int
        if predicate == nil, !view.hasPendingChanges(of: concrete) {
            total = try view.snapshot.count(of: entity)
        } else {
            total = try unorderedMatches().count
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

    private func matches(_ state: ObjectState) throws(MagicalRecordError) -> Bool {
        guard let predicate else { return true }
        do {
            return try predicate.evaluate(on: try subject(state))
        } catch let error as ObjectPredicateError {
            throw .predicate(error, entity: entity.name)
        } catch let error as MagicalRecordError {
            throw error
        } catch {
            throw .invalidFetch("\(error)")
        }
    }

    /// The matching objects' states in no particular order: for counts and aggregates.
    func unorderedStates() throws(MagicalRecordError) -> [ObjectState] {
        try unorderedMatches()
    }

    /// Store candidates the plan finds (minus those unsaved changes replace), plus the
    /// unsaved states, each checked against the predicate.
    private func unorderedMatches() throws(MagicalRecordError) -> [ObjectState] {
        var found: [ObjectState] = []
        let snapshot = view.snapshot
        for name in entity.concreteEntities {
            switch plan.source {
            case .nothing:
                break
            case .scan:
                var failure: MagicalRecordError?
                try snapshot.scan(name) { state in
                    guard !view.isOverlaid(state.id) else { return true }
                    do throws(MagicalRecordError) {
                        if try matches(state) { found.append(state) }
                        return true
                    } catch {
                        failure = error
                        return false
                    }
                }
                if let failure { throw failure }
            case .index(let attribute, let ranges):
                // Ranges of an IN list can overlap: "a" is a byte prefix of "a\0".
                var numbers: Set<Int64> = []
                for range in ranges {
                    try snapshot.scanIndex(name, attribute, range) { number in
                        numbers.insert(number)
                        return true
                    }
                }
                for number in numbers.sorted() {
                    let id = ObjectID(entityName: name, number: number)
                    guard !view.isOverlaid(id), let state = try snapshot.state(of: id) else { continue }
                    if try matches(state) { found.append(state) }
                }
            }
        }
        for state in view.pendingStates(of: concrete) where try matches(state) {
            found.append(state)
        }
        return found
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
        try view.snapshot.scanIndex(name, key.keyPath, .all, reverse: !key.ascending) { number in
            do throws(MagicalRecordError) {
                guard let state = try view.snapshot.state(of: ObjectID(entityName: name, number: number)),
                      try matches(state) else { return true }
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
        var keyed: [(values: [AttributeValue], state: ObjectState)] = []
        keyed.reserveCapacity(states.count)
        for state in states {
            let subject = try subject(state)
            var values: [AttributeValue] = []
            for path in sortPaths {
                do {
                    values.append(try subject.attributeValue(at: path) ?? .null)
                } catch {
                    throw .invalidFetch("sort key \(path) cannot be read: \(error)")
                }
            }
            keyed.append((values, state))
        }
        let directions = request.sortKeys.map(\.ascending)
        keyed.sort { left, right in
            for (index, ascending) in directions.enumerated() {
                switch AttributeValue.compare(left.values[index], right.values[index]) {
                case .orderedAscending?: return ascending
                case .orderedDescending?: return !ascending
                default: continue
                }
            }
            return left.state.id < right.state.id
        }
        states = keyed.map(\.state)
    }
}
