/// Evaluates predicates against subjects (Spec/PREDICATES.md, P14-P28).
///
/// Stateless and thread-safe: compiled MATCHES patterns are cached process-wide. A
/// predicate need not be validated first, but then a string compared with a date is read
/// as an ISO 8601 date on every evaluation, where ``ObjectPredicate/validated(for:in:)``
/// converts it once.
public enum PredicateEvaluator {
    /// Whether `subject` satisfies `predicate`. Throws ``ObjectPredicateError/evaluation(_:)`` when
    /// a value cannot be used as the predicate asks (a to-many value compared directly, a
    /// single value under ANY), and passes on what the subject throws.
    public static func evaluate(_ predicate: ObjectPredicate, on subject: some PredicateSubject) throws -> Bool {
        switch predicate {
        case .truePredicate:
            return true
        case .falsePredicate:
            return false
        case .comparison(let comparison):
            return try evaluate(comparison, on: subject)
        case .not(let operand):
            return try !evaluate(operand, on: subject)
        case .and(let operands):
            for operand in operands where try !evaluate(operand, on: subject) { return false }
            return true
        case .or(let operands):
            for operand in operands where try evaluate(operand, on: subject) { return true }
            return false
        }
    }

    /// The comparison core, for one operator and two values already resolved: `==` with nil,
    /// numbers across kinds, string options, LIKE, MATCHES, IN, BETWEEN... exactly as
    /// ``evaluate(_:on:)`` applies them (ANY and ALL apply it to each element of the left side).
    public static func compare(
        _ left: PredicateValue, _ comparisonOperator: PredicateOperator, _ right: PredicateValue,
        options: PredicateOptions = []
    ) throws(ObjectPredicateError) -> Bool {
        try PredicateComparator.compare(left, comparisonOperator, right, options: options)
    }

    private static func evaluate(_ comparison: PredicateComparison, on subject: some PredicateSubject) throws -> Bool {
        let left = try resolve(comparison.left, on: subject)
        let right = try resolve(comparison.right, on: subject)
        let compare = { (element: PredicateValue) throws(ObjectPredicateError) -> Bool in
            try PredicateComparator.compare(element, comparison.operator, right, options: comparison.options)
        }
        switch comparison.modifier {
        case .direct:
            return try compare(left)
        case .any:
            for element in try elements(of: left, for: comparison) where try compare(element) { return true }
            return false
        case .all:
            for element in try elements(of: left, for: comparison) where try !compare(element) { return false }
            return true
        }
    }

    /// The elements ANY and ALL range over: nil (a nil to-one on the way) has none (P23).
    private static func elements(of value: PredicateValue, for comparison: PredicateComparison) throws(ObjectPredicateError) -> [PredicateValue] {
        switch value {
        case .collection(let elements): return elements
        case _ where value.isNull: return []
        default:
            let modifier = comparison.modifier == .all ? "ALL" : "ANY"
            throw .evaluation("\(modifier) needs a to-many key path; \(comparison.left) gave a single value")
        }
    }

    private static func resolve(_ expression: ObjectExpression, on subject: some PredicateSubject) throws -> PredicateValue {
        switch expression {
        case .keyPath(let path):
            return try subject.predicateValue(forKeyPath: path)
        case .evaluatedObject:
            return .object(subject.predicateObjectID)
        case .constant(let value):
            return .attribute(value)
        case .object(let id):
            return .object(id)
        case .list(let items):
            return .collection(try items.map { try resolve($0, on: subject) })
        case .aggregate(let aggregate, let collection, let property):
            let gathered = try subject.predicateValue(forKeyPath: ObjectExpression.gatheredPath(collection, property))
            return try aggregate.apply(to: gathered, describing: expression)
        }
    }
}

extension ObjectPredicate {
    /// Whether `subject` satisfies this predicate: ``PredicateEvaluator/evaluate(_:on:)``.
    public func evaluate(on subject: some PredicateSubject) throws -> Bool {
        try PredicateEvaluator.evaluate(self, on: subject)
    }
}
