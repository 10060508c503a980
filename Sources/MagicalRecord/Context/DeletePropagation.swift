/// Applies delete rules to a context's deleted objects before it saves: cascades to the
/// targets of cascade relationships, refuses when a deny relationship has targets, and
/// removes the deleted objects from the inverse relationships of what remains.
struct DeletePropagation {
    let context: ManagedObjectContext

    /// Runs under the context's lock. Nothing changes when a deny rule refuses.
    func run() throws(MagicalRecordError) {
        let roots = context.deletedIDs.compactMap { context.changedObjects[$0] }
        var doomed: [ObjectID: ManagedObject] = [:]
        var pending = roots
        while let object = pending.popLast() {
            guard doomed.updateValue(object, forKey: object.objectID) == nil else { continue }
            for (position, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .cascade {
                for id in try object.loadedTargets(position) where doomed[id] == nil {
                    if let target = try? context.existingObject(with: id) { pending.append(target) }
                }
            }
        }
        var failures: [ValidationFailure] = []
        for object in doomed.values {
            for (position, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
                if try object.loadedTargets(position).contains(where: { doomed[$0] == nil }) {
                    failures.append(ValidationFailure(object: object.objectID, reason: .deleteDenied(relationship: relationship.name)))
                }
            }
        }
        guard failures.isEmpty else { throw .validation(failures) }
        for object in doomed.values {
            if !object.isDeletedInContext { try context.delete(object) }
            for (position, relationship) in object.entity.relationships.enumerated() {
                guard let inverse = relationship.inverse else { continue }
                for id in try object.loadedTargets(position) where doomed[id] == nil {
                    guard let target = try? context.existingObject(with: id) else { continue }
                    try target.unlinkInverse(inverse, from: object)
                }
            }
        }
    }
}
