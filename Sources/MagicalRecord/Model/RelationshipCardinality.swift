/// How many objects a relationship holds, and whether their order is kept: the part of
/// `isToMany` and `isOrdered` that matters (an ordered to-one is just a to-one).
public enum RelationshipCardinality: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case toOne = "to-one"
    case toMany = "to-many"
    case orderedToMany = "ordered to-many"

    public var description: String { rawValue }
}

extension RelationshipDescription {
    /// Whether this is a to-one, a to-many or an ordered to-many.
    public var cardinality: RelationshipCardinality {
        isToMany ? (isOrdered ? .orderedToMany : .toMany) : .toOne
    }
}
