extension ObjectPredicate {
    /// The first key of every key path the predicate reads: which properties of the
    /// evaluated object it needs, so a scan can decode only those.
    var referencedKeys: Set<String> {
        var keys: Set<String> = []
        collectKeys(into: &keys)
        return keys
    }

    private func collectKeys(into keys: inout Set<String>) {
        switch self {
        case .truePredicate, .falsePredicate: break
        case .comparison(let comparison):
            comparison.left.collectKeys(into: &keys)
            comparison.right.collectKeys(into: &keys)
        case .not(let inner): inner.collectKeys(into: &keys)
        case .and(let parts), .or(let parts):
            for part in parts { part.collectKeys(into: &keys) }
        }
    }
}

extension ObjectExpression {
    fileprivate func collectKeys(into keys: inout Set<String>) {
        switch self {
        case .keyPath(let path): if let first = path.components.first { keys.insert(first) }
        case .aggregate(_, let collection, _): if let first = collection.components.first { keys.insert(first) }
        case .list(let elements): for element in elements { element.collectKeys(into: &keys) }
        case .evaluatedObject, .constant, .object: break
        }
    }
}
