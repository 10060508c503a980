import Foundation

/// Sorting a fetch's matches: the whole set, or the first `offset + limit` of them.
extension FetchExecutor {
    /// The first `offset + limit` matches by the sort keys: a bounded list kept in order
    /// as the scan goes, so nothing is sorted whole and most objects are turned away on
    /// their first sort key; the winners are then read in full.
    func firstSorted() throws(MagicalRecordError) -> [ObjectState] {
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

    /// The positions of the sort keys when each is an attribute of the fetched entity and
    /// it has no subentities; nil otherwise.
    private func ownSortPositions() -> [Int]? {
        guard entity.fetchesOnlyItself else { return nil }
        var positions: [Int] = []
        for path in sortPaths {
            guard path.components.count == 1, let position = entity.slot(ofAttribute: path.components[0]) else { return nil }
            positions.append(position)
        }
        return positions
    }

    /// ``firstSorted()``'s scan when the predicate and the sort keys read only the
    /// entity's attributes: an object becomes a state only if it wins a place. A large
    /// entity is scanned in parts at once, each keeping a list of its own; merged, they
    /// hold the same first matches whatever the cut (the order is total: ids break ties).
    private func scanForTop(_ positions: [Int], into top: inout TopMatches) throws(MagicalRecordError) {
        // One part a thread: each part's list must fill before its bound turns records away.
        let parts = try view.snapshot.recordParts(entity.name, perThread: 1)
        if parts.ranges.count > 1 {
            let (capacity, directions) = (top.capacity, top.directions)
            try Self.inParts(parts, { [self] part in
                Result { () throws(MagicalRecordError) -> TopMatches in
                    var partTop = TopMatches(capacity: capacity, directions: directions)
                    try scanStoredForTop(positions, in: part, into: &partTop)
                    return partTop
                }
            }, consume: { (partTop) throws(MagicalRecordError) in
                for match in try partTop.get().matches { top.offer(match) }
            })
        } else {
            try scanStoredForTop(positions, in: nil, into: &top)
        }
        for state in view.pendingStates(of: concrete) where try matches(state, compiled[entity.name]) {
            top.offer(SortedMatch(values: try sortValues(of: state), id: state.id))
        }
    }

    /// The stored part of ``scanForTop(_:into:)``, over `part` (nil: every record).
    private func scanStoredForTop(_ positions: [Int], in part: StoreSnapshot.RecordPart?, into top: inout TopMatches) throws(MagicalRecordError) {
        let probe = SortKeyProbe(coder: try view.snapshot.store.coder(for: entity.name), position: positions[0])
        var probedVersion = -1
        let rejected: ComparisonResult = top.directions[0] ? .orderedDescending : .orderedAscending
        try scanOwnAttributes(positions, in: part, skipping: { (number, record) throws(MagicalRecordError) in
            if probedVersion != top.version {
                guard let bound = top.bound else { return false }
                probe.setBound(bound)
                probedVersion = top.version
            }
            return try probe.keyOrder(of: record, number: number) == rejected
        }) { number, attributes, _ in
            guard !top.rejects(attributes[positions[0]]) else { return }
            top.offer(SortedMatch(values: positions.map { attributes[$0] }, id: ObjectID(entityName: entity.internedName, number: number)))
        }
    }

    private func sortValues(of state: ObjectState) throws(MagicalRecordError) -> [AttributeValue] {
        var values: [AttributeValue] = []
        values.reserveCapacity(sortPaths.count)
        for path in sortPaths {
            values.append(try attributeValue(at: path, of: state, role: "sort key"))
        }
        return values
    }

    /// Sorts by the request's keys, then by object id so equal objects keep one order.
    func sort(_ states: inout [ObjectState]) throws(MagicalRecordError) {
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
