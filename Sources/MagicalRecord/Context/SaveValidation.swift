/// What a save checks before anything leaves the context: required attributes and
/// relationships, integer ranges, to-many counts.
enum SaveValidation {
    /// Failures of the changed, not deleted, objects of a context (under its lock).
    static func failures(in objects: [ManagedObject]) -> [ValidationFailure] {
        objects.filter { !$0.isDeletedInContext }.flatMap { failures(of: $0.state, entity: $0.entity) }
    }

    /// Failures of one object's state about to be saved. Inlined: called on an array's
    /// element (a direct import batch's states), an opaque call took a copy of the state,
    /// retaining its arrays, for every object.
    @inline(__always)
    static func failures(of state: ObjectState, entity: Entity) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let id = state.id
        if !state.refusedAssignments.isEmpty {
            for (property, reason) in state.refusedAssignments.sorted(by: { $0.key < $1.key }) {
                failures.append(ValidationFailure(object: id, reason: .refusedAssignment(property: property, reason: reason)))
            }
        }
        // By index, reading the descriptions' fields in place: iterating the descriptions
        // copied each (its name, default and user info retained) for every object saved.
        let attributes = entity.attributes
        // Values read where they lie: bound to a name, each was copied and destroyed again
        // (a string's retained and released), for every attribute of every object saved.
        state.attributes.withUnsafeBufferPointer { values in
            for index in 0..<min(attributes.count, values.count) {
                if values[index].isNull && !attributes[index].isOptional {
                    failures.append(ValidationFailure(object: id, reason: .missingRequiredAttribute(attributes[index].name)))
                } else if !attributes[index].type.accepts(values[index]) {
                    failures.append(ValidationFailure(object: id, reason: .valueOutOfRange(attribute: attributes[index].name)))
                }
            }
        }
        let relationships = entity.relationships
        for index in 0..<min(relationships.count, state.relationships.count) {
            switch state.relationships[index] {
            case .toOne(nil) where !relationships[index].isOptional:
                failures.append(ValidationFailure(object: id, reason: .missingRequiredRelationship(relationships[index].name)))
            case .toMany(let list):
                let (minimum, maximum) = (relationships[index].minCount, relationships[index].maxCount)
                if minimum > 0 && list.count < minimum && !(list.isEmpty && relationships[index].isOptional) {
                    failures.append(ValidationFailure(object: id, reason: .tooFewTargets(relationship: relationships[index].name, minimum: minimum)))
                }
                if maximum > 0 && list.count > maximum {
                    failures.append(ValidationFailure(object: id, reason: .tooManyTargets(relationship: relationships[index].name, maximum: maximum)))
                }
            default:
                break
            }
        }
        return failures
    }
}
