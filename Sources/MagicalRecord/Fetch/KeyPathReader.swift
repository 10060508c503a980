/// Reads one key path of many matches of a fetch: an attribute, or a path through
/// relationships. A path of a to-one relationship and an attribute of its target
/// (`department.name`) is read once per target, not once per match: an aggregate grouped by
/// a department's name over a million people decoded a department for each of them.
/// The fetch's view does not change while it runs, so a target's value holds throughout.
struct KeyPathReader {
    private let path: PredicateKeyPath
    private let executor: FetchExecutor
    /// The attribute position the path reads in place, if it is one of the entity's own.
    let ownPosition: Int?
    /// The to-one relationship (by position) whose target's attribute the path is, if it is.
    let relationship: Int?
    private var valuesByTarget: [ObjectID: AttributeValue] = [:]

    init(_ path: PredicateKeyPath, of executor: FetchExecutor) {
        self.path = path
        self.executor = executor
        let entity = executor.entity
        ownPosition = executor.ownPosition(of: path)
        relationship = path.components.count == 2
            ? entity.slot(ofRelationship: path.components[0]).flatMap { entity.relationships[$0].isToMany ? nil : $0 }
            : nil
    }

    /// Whether ``value(_:_:)`` can read the path from a match's fields in place.
    var readsInPlace: Bool { ownPosition != nil || relationship != nil }

    /// The value for a match whose own attributes and to-one targets a scan read in place
    /// (by position; see ``FetchExecutor/foldMatchingFields(_:targetsOf:start:_:)``).
    @inline(__always)
    mutating func value(
        _ attributes: UnsafeBufferPointer<AttributeValue>, _ targets: UnsafeBufferPointer<ObjectID?>
    ) throws(MagicalRecordError) -> AttributeValue {
        if let ownPosition { return attributes[ownPosition] }
        guard let relationship else { throw .invalidFetch("\(path) is not read in place") }
        return try value(of: targets[relationship])
    }

    mutating func value(of state: ObjectState) throws(MagicalRecordError) -> AttributeValue {
        // A subentity's state may place its relationships elsewhere: read it the long way.
        guard let relationship, state.id.entityName == executor.entity.name,
              case .toOne(let target) = state.relationships[relationship] else {
            return try executor.attributeValue(at: path, of: state)
        }
        return try value(of: target)
    }

    /// The path's attribute of `target` as the fetch's view has it (unsaved changes
    /// included): null without a target, or for one that does not exist.
    private mutating func value(of target: ObjectID?) throws(MagicalRecordError) -> AttributeValue {
        guard let target else { return .null }
        if let known = valuesByTarget[target] { return known }
        let value = try executor.attributeValue(path.components[1], ofTarget: target)
        valuesByTarget[target] = value
        return value
    }
}
