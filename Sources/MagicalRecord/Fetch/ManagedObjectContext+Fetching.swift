/// Running fetch requests in a context. Results include the unsaved changes of the
/// context and its parents, as with Core Data; objects come back registered in this
/// context (one object per id: an object already in the context is returned as it is).
extension ManagedObjectContext {
    /// Runs `request` and returns what its ``FetchRequest/resultType`` asks for
    /// (MagicalRecord's `executeFetchRequest`). Failures are logged and thrown.
    public func execute(_ request: FetchRequest) throws(MagicalRecordError) -> FetchResults {
        switch request.resultType {
        case .managedObjects: return .managedObjects(try fetch(request))
        case .objectIDs: return .objectIDs(try fetchObjectIDs(request))
        case .dictionaries: return .dictionaries(try fetchDictionaries(request))
        case .count: return .count(try count(for: request))
        }
    }

    /// The objects `request` matches, whatever its result type.
    public func fetch(_ request: FetchRequest) throws(MagicalRecordError) -> [ManagedObject] {
        try logged(request) { () throws(MagicalRecordError) in
            let executor = try FetchExecutor(request, in: self)
            guard executor.matchesComeInOrder else {
                let states = try executor.states()
                return try withLock { () throws(MagicalRecordError) in
                    var objects = ObjectsMade(executor: executor, capacity: states.count)
                    for state in states { try objects.add(state, in: self) }
                    return objects.objects
                }
            }
            // Made as the scan finds them: a scan in parts reads on while the first parts'
            // objects are made here.
            return try withLock { () throws(MagicalRecordError) in
                var objects = ObjectsMade(executor: executor, capacity: 0)
                try executor.visitMatches(reading: nil) { (state) throws(MagicalRecordError) in
                    if let state { try objects.add(state, in: self) }
                }
                return objects.objects
            }
        }
    }

    /// The ids of the objects `request` matches.
    public func fetchObjectIDs(_ request: FetchRequest) throws(MagicalRecordError) -> [ObjectID] {
        try logged(request) { () throws(MagicalRecordError) in
            try FetchExecutor(request, in: self).states().map(\.id)
        }
    }

    /// One dictionary per matching object, keyed by ``FetchRequest/propertiesToFetch``
    /// (every attribute when nil); nil values are `.null`. With
    /// ``FetchRequest/returnsDistinctResults``, equal dictionaries appear once (before
    /// offset and limit apply).
    public func fetchDictionaries(_ request: FetchRequest) throws(MagicalRecordError) -> [[String: AttributeValue]] {
        try logged(request) { () throws(MagicalRecordError) in
            let executor = try FetchExecutor(request, in: self)
            let names = request.propertiesToFetch ?? executor.entity.attributes.map(\.name)
            let paths = try names.map { (name) throws(MagicalRecordError) in
                try FetchExecutor.attributePath(name, of: executor.entity, in: model, role: "property to fetch")
            }
            var rows: [[String: AttributeValue]] = []
            var seen: Set<[String: MatchingValue]> = []
            for state in try executor.states(sliced: !request.returnsDistinctResults) {
                let subject = try executor.subject(state)
                var row: [String: AttributeValue] = [:]
                for (name, path) in zip(names, paths) {
                    do {
                        row[name] = try subject.attributeValue(at: path) ?? .null
                    } catch {
                        throw .invalidFetch("property \(name) cannot be read: \(error)")
                    }
                }
                if request.returnsDistinctResults {
                    guard seen.insert(row.mapValues(MatchingValue.init)).inserted else { continue }
                }
                rows.append(row)
            }
            return request.returnsDistinctResults ? executor.slice(rows) : rows
        }
    }

    /// How many objects `request` matches (offset and limit applied). O(1) without a
    /// predicate when no unsaved change touches the entity.
    public func count(for request: FetchRequest) throws(MagicalRecordError) -> Int {
        try logged(request) { () throws(MagicalRecordError) in
            try FetchExecutor(request, in: self).count()
        }
    }

    /// How the store would be read for `request`: "scan", "index age (1 range)", ...
    /// For tests and tools (`mrstore fetch --explain`).
    public func plan(for request: FetchRequest) throws(MagicalRecordError) -> String {
        try FetchExecutor(request, in: self).plan.description
    }

    /// Runs `body`, logging a failure with the request before passing it on.
    private func logged<T>(_ request: FetchRequest, _ body: () throws(MagicalRecordError) -> T) throws(MagicalRecordError) -> T {
        do {
            return try body()
        } catch {
            Log.fetchFailed(request, error)
            throw error
        }
    }
}

/// A fetch's objects, made from its states (or the registered ones), under the context's lock.
private struct ObjectsMade {
    let executor: FetchExecutor
    private(set) var objects: [ManagedObject] = []
    /// A fetch's objects are mostly of one entity: its class is looked up once.
    private var made: (entity: Entity, type: ManagedObject.Type)?

    init(executor: FetchExecutor, capacity: Int) {
        self.executor = executor
        objects.reserveCapacity(capacity)
    }

    mutating func add(_ state: ObjectState, in context: ManagedObjectContext) throws(MagicalRecordError) {
        if let registered = context.registeredObject(state.id) {
            objects.append(registered)
            return
        }
        let current: (entity: Entity, type: ManagedObject.Type)
        if let made, made.entity.name == state.id.entityName {
            current = made
        } else {
            let entity = try executor.view.entity(of: state.id)
            current = (entity, ObjectClassRegistry.objectClass(for: entity.name))
            made = current
        }
        objects.append(context.makeObject(state.id, current.entity, state, as: current.type))
    }
}
