/// MagicalRecord's `MR_requestAll...` and `MR_requestFirst...`: fetch requests for a
/// subclass's entity, to adjust before running them with ``ManagedObject/executeFetchRequest(_:in:)``
/// or ``ManagedObjectContext/execute(_:)``.
extension ManagedObject {
    public static func requestAll(with predicate: ObjectPredicate? = nil) -> FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate)
    }

    /// All objects, sorted by a MagicalRecord sort string (`"lastName:NO,firstName"`).
    public static func requestAll(
        with predicate: ObjectPredicate? = nil, sortedBy sortString: String, ascending: Bool = true
    ) throws(MagicalRecordError) -> FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate, sortKeys: try SortKey.parse(sortString, ascending: ascending))
    }

    /// Objects whose `attribute` equals `value` (MR_requestAllWhere:isEqualTo:).
    public static func requestAll(
        where attribute: String, isEqualTo value: (any PredicateArgumentConvertible)?
    ) throws(MagicalRecordError) -> FetchRequest {
        FetchRequest(entityName: entityName, predicate: try equality(attribute, value))
    }

    /// At most one object.
    public static func requestFirst(with predicate: ObjectPredicate? = nil) -> FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate, fetchLimit: 1)
    }

    public static func requestFirst(
        byAttribute attribute: String, withValue value: (any PredicateArgumentConvertible)?
    ) throws(MagicalRecordError) -> FetchRequest {
        FetchRequest(entityName: entityName, predicate: try equality(attribute, value), fetchLimit: 1)
    }

    /// `attribute == value`, as `ObjectPredicate(format: "%K == %@", attribute, value)`
    /// parses it; built directly for a plain key path and a value or object (finders run
    /// it per lookup), parsed otherwise so a bad argument gets the parser's error.
    static func equality(_ attribute: String, _ value: (any PredicateArgumentConvertible)?) throws(MagicalRecordError) -> ObjectPredicate {
        let argument = value?.predicateArgument ?? .value(.null)
        let path = PredicateKeyPath(attribute)
        if path.components.allSatisfy({ !$0.isEmpty }) {
            switch argument {
            case .value, .object: return .comparison(PredicateComparison(.keyPath(path), .equalTo, argument.expression))
            case .list: break
            }
        }
        do {
            return try ObjectPredicate(format: "%K == %@", attribute, value)
        } catch {
            throw .predicate(error, entity: entityName)
        }
    }
}

extension ManagedObject: PredicateArgumentConvertible {
    /// An object stands for itself in predicates: `department == %@`.
    public var predicateArgument: PredicateArgument { .object(objectID) }
}
