/// What a key path resolves to on the object a predicate is evaluated against.
public enum PredicateValue: Sendable, Hashable {
    /// An attribute's value; `.null` when the attribute is nil, or when a to-one
    /// relationship along the path is nil.
    case attribute(AttributeValue)
    /// A to-one relationship's target; nil when there is none.
    case object(ObjectID?)
    /// What a to-many key path gathers: one element per object reached (flattened over
    /// several to-many steps), each an `.attribute` or an `.object`; a nil value along the
    /// way gives a null element, as key-value coding gives `NSNull`.
    case collection([PredicateValue])

    /// Whether this is nil: a null attribute or a missing to-one target.
    public var isNull: Bool {
        switch self {
        case .attribute(let value): return value.isNull
        case .object(let id): return id == nil
        case .collection: return false
        }
    }
}

/// What a predicate is evaluated against: a stored record, an object in a context, or
/// anything else that can answer key paths (Spec/PREDICATES.md, P25 and P26).
///
/// Evaluation calls ``predicateValue(forKeyPath:)`` once for every key path operand, so a
/// subject may fetch related objects lazily. It is used on the thread that evaluates.
public protocol PredicateSubject {
    /// The evaluated object, for `SELF`; nil when the subject is not a stored object.
    var predicateObjectID: ObjectID? { get }

    /// The value at `keyPath`, following relationships:
    ///
    /// - an attribute gives `.attribute(value)`;
    /// - a to-one relationship at the end gives `.object(target)`; one along the way is
    ///   followed, and when it is nil the result is `.attribute(.null)`;
    /// - a to-many relationship, at the end or along the way, gives `.collection`, with
    ///   the rest of the path resolved on every target.
    ///
    /// Throw for a key the subject does not have (``ObjectPredicateError/unknownKey(_:entity:offset:)``
    /// says it well); evaluation passes the error on.
    func predicateValue(forKeyPath keyPath: PredicateKeyPath) throws -> PredicateValue
}
