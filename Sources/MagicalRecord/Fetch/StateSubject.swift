/// An object's state as a predicate sees it: key paths resolve through the view, so a
/// path through relationships reads the related objects' unsaved changes too.
struct StateSubject: PredicateSubject {
    let state: ObjectState
    let entity: Entity
    let view: ObjectView

    var predicateObjectID: ObjectID? { state.id }

    func predicateValue(forKeyPath keyPath: PredicateKeyPath) throws -> PredicateValue {
        try resolve(keyPath.components[...], keyPath)
    }

    private func resolve(_ components: ArraySlice<String>, _ whole: PredicateKeyPath) throws -> PredicateValue {
        guard let name = components.first else { return .object(state.id) }
        let rest = components.dropFirst()
        if let position = entity.slot(ofAttribute: name) {
            guard rest.isEmpty else { throw ObjectPredicateError.unknownKey(whole.description, entity: entity.name, offset: nil) }
            return .attribute(state.attributes[position])
        }
        guard let position = entity.slot(ofRelationship: name) else {
            throw ObjectPredicateError.unknownKey(whole.description, entity: entity.name, offset: nil)
        }
        let targets = try view.targets(of: state, position: position, entity: entity)
        if !entity.relationships[position].isToMany {
            guard let target = targets.first else { return rest.isEmpty ? .object(nil) : .attribute(.null) }
            guard !rest.isEmpty else { return .object(target) }
            guard let subject = try related(target) else { return .attribute(.null) }
            return try subject.resolve(rest, whole)
        }
        guard !rest.isEmpty else { return .collection(targets.map { .object($0) }) }
        var elements: [PredicateValue] = []
        for target in targets {
            guard let subject = try related(target) else { continue }
            switch try subject.resolve(rest, whole) {
            case .collection(let inner): elements.append(contentsOf: inner)
            case let single: elements.append(single)
            }
        }
        return .collection(elements)
    }

    private func related(_ id: ObjectID) throws(MagicalRecordError) -> StateSubject? {
        guard let state = try view.state(of: id) else { return nil }
        return StateSubject(state: state, entity: try view.entity(of: id), view: view)
    }

    /// The single value at `keyPath` for sorting and dictionaries: an attribute, through
    /// to-one relationships. Nil when the path is not such a key path.
    func attributeValue(at keyPath: PredicateKeyPath) throws -> AttributeValue? {
        switch try predicateValue(forKeyPath: keyPath) {
        case .attribute(let value): return value
        case .object, .collection: return nil
        }
    }
}
