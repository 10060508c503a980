/// Reads one key path of many states of a fetch: an attribute, or a path through
/// relationships. A path of a to-one relationship and an attribute of its target
/// (`department.name`) is read once per target, not once per state: an aggregate grouped by
/// a department's name over a million people decoded a department for each of them.
/// The fetch's view does not change while it runs, so a target's value holds throughout.
struct KeyPathReader {
    private let path: PredicateKeyPath
    private let executor: FetchExecutor
    /// The to-one relationship the path goes through, by position in the fetched entity,
    /// when the path is that relationship and one attribute.
    private let relationship: Int?
    private var valuesByTarget: [ObjectID: AttributeValue] = [:]

    init(_ path: PredicateKeyPath, of executor: FetchExecutor) {
        self.path = path
        self.executor = executor
        let entity = executor.entity
        if path.components.count == 2, let position = entity.slot(ofRelationship: path.components[0]), !entity.relationships[position].isToMany {
            relationship = position
        } else {
            relationship = nil
        }
    }

    mutating func value(of state: ObjectState) throws(MagicalRecordError) -> AttributeValue {
        // A subentity's state may place its relationships elsewhere: read it the long way.
        guard let relationship, state.id.entityName == executor.entity.name,
              case .toOne(let target) = state.relationships[relationship], let target else {
            return try executor.attributeValue(at: path, of: state)
        }
        if let known = valuesByTarget[target] { return known }
        let value = try executor.attributeValue(at: path, of: state)
        valuesByTarget[target] = value
        return value
    }
}
