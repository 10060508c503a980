/// Everything stored about one object: what a context changes, what a child context's
/// save hands to its parent, and what the root's save writes.
struct ObjectState: Sendable, Equatable {
    let id: ObjectID
    /// By position in ``Entity/attributes``.
    var attributes: [AttributeValue]
    /// By position in ``Entity/relationships``.
    var relationships: [RelationshipState]
    /// Typed property assignments that were refused, by property name, with the reason:
    /// a setter cannot throw, so the next save does (``ValidationFailure/Reason/refusedAssignment(property:reason:)``).
    var refusedAssignments: [String: String] = [:]

    /// A new object: every attribute at its default, no relationships.
    init(id: ObjectID, entity: Entity) {
        self.id = id
        attributes = entity.attributes.map(\.defaultValue)
        relationships = entity.relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) }
    }

    /// Appends `target` to the loaded to-many at `position`, in place: linking an inverse
    /// to a large to-many must not copy it.
    mutating func appendTarget(_ target: ObjectID, at position: Int) {
        guard case .toMany(var targets) = relationships[position] else { return }
        relationships[position] = .toMany([])
        targets.append(target)
        relationships[position] = .toMany(targets)
    }

    init(id: ObjectID, attributes: [AttributeValue], relationships: [RelationshipState]) {
        self.id = id
        self.attributes = attributes
        self.relationships = relationships
    }
}

/// A relationship's targets. To-many targets live in a tree of their own and are read
/// when first needed (`unloaded` until then).
enum RelationshipState: Sendable, Equatable {
    case toOne(ObjectID?)
    case toMany([ObjectID])
    case unloaded

    var targets: [ObjectID] {
        switch self {
        case .toOne(let target): return target.map { [$0] } ?? []
        case .toMany(let targets): return targets
        case .unloaded: return []
        }
    }
}
