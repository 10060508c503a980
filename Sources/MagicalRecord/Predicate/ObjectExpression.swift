/// One side of a comparison: a key path, a constant, a list, `SELF`, or a collection
/// operator such as `employees.@count` (Spec/PREDICATES.md, P6-P11).
public indirect enum ObjectExpression: Sendable, Hashable {
    /// A key path from the evaluated object: `age`, `department.name`, `employees.salary`.
    case keyPath(PredicateKeyPath)
    /// `SELF`: the evaluated object itself.
    case evaluatedObject
    /// A constant value: `40`, `"Sales"`, `nil`, `YES`, `CAST(0, "NSDate")`.
    case constant(AttributeValue)
    /// A constant reference to a stored object, from a `%@` argument given an ``ObjectID``.
    case object(ObjectID)
    /// `{1, 2, 3}`, or a `%@` argument given an array or a set.
    case list([ObjectExpression])
    /// A collection operator over a to-many key path: `employees.@count`,
    /// `employees.@sum.salary` (the operator, the collection's key path, and the key path
    /// after the operator, if any).
    case aggregate(PredicateAggregate, PredicateKeyPath, property: PredicateKeyPath?)

    /// The key path whose values an aggregate gathers: the collection, then the property.
    static func gatheredPath(_ collection: PredicateKeyPath, _ property: PredicateKeyPath?) -> PredicateKeyPath {
        guard let property else { return collection }
        return PredicateKeyPath(collection.components + property.components)
    }
}

/// A dotted key path, split into its keys: `department.name` is `["department", "name"]`.
public struct PredicateKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var components: [String]

    public init(_ components: [String]) {
        self.components = components
    }

    /// Splits `dotted` on its dots.
    public init(_ dotted: String) {
        components = dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String { components.joined(separator: ".") }
}

/// The collection operators: what `@count`, `@sum`, `@avg`, `@min` and `@max` compute over
/// the values a to-many key path gathers (Spec/PREDICATES.md, P24).
public enum PredicateAggregate: String, Sendable, Hashable, CaseIterable {
    /// The number of elements, null ones included.
    case count
    /// The sum of the numbers (null elements are skipped; 0 for none).
    case sum
    /// The mean of the numbers (null elements are skipped; null for none).
    case average = "avg"
    /// The smallest value (null elements are skipped; null for none).
    case minimum = "min"
    /// The largest value (null elements are skipped; null for none).
    case maximum = "max"
}
