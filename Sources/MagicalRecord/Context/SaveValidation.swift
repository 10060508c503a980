/// What a save checks before anything leaves the context: required attributes and
/// relationships, integer ranges, to-many counts.
enum SaveValidation {
    /// Failures of the changed, not deleted, objects of a context (under its lock).
    static func failures(in objects: [ManagedObject]) -> [ValidationFailure] {
        objects.filter { !$0.isDeletedInContext }.flatMap { failures(of: $0.state, entity: $0.entity) }
    }

    /// Failures of one object's state about to be saved.
    static func failures(of state: ObjectState, entity: Entity) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let id = state.id
        for (property, reason) in state.refusedAssignments.sorted(by: { $0.key < $1.key }) {
            failures.append(ValidationFailure(object: id, reason: .refusedAssignment(property: property, reason: reason)))
        }
        for (attribute, value) in zip(entity.attributes, state.attributes) {
            if value.isNull && !attribute.isOptional {
                failures.append(ValidationFailure(object: id, reason: .missingRequiredAttribute(attribute.name)))
            } else if !attribute.type.accepts(value) {
                failures.append(ValidationFailure(object: id, reason: .valueOutOfRange(attribute: attribute.name)))
            }
        }
        for (relationship, targets) in zip(entity.relationships, state.relationships) {
            switch targets {
            case .toOne(nil) where !relationship.isOptional:
                failures.append(ValidationFailure(object: id, reason: .missingRequiredRelationship(relationship.name)))
            case .toMany(let list):
                if relationship.minCount > 0 && list.count < relationship.minCount && !(list.isEmpty && relationship.isOptional) {
                    failures.append(ValidationFailure(object: id, reason: .tooFewTargets(relationship: relationship.name, minimum: relationship.minCount)))
                }
                if relationship.maxCount > 0 && list.count > relationship.maxCount {
                    failures.append(ValidationFailure(object: id, reason: .tooManyTargets(relationship: relationship.name, maximum: relationship.maxCount)))
                }
            default:
                break
            }
        }
        return failures
    }
}
