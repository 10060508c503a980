/// What can stand on the left of a comparison: a ``Key``, a collection operator such as
/// `Key("employees").count`, or a key under ANY, ALL or NONE (``QuantifiedKey``).
public protocol PredicateComparand {
    /// This left side compared with `right`.
    func comparison(_ operator: PredicateOperator, _ right: ObjectExpression, options: PredicateOptions) -> ObjectPredicate
}

/// An expression that can stand on either side of a comparison.
public protocol ObjectExpressionConvertible: PredicateComparand {
    var predicateExpression: ObjectExpression { get }
}

extension ObjectExpressionConvertible {
    public func comparison(_ operator: PredicateOperator, _ right: ObjectExpression, options: PredicateOptions) -> ObjectPredicate {
        .comparison(PredicateComparison(predicateExpression, `operator`, right, options: options))
    }
}

/// A key path from the evaluated object, `Key("age")` or `Key("department.name")`: the
/// start of the typed Swift way to write predicates (Spec/PREDICATES.md, P33), which gives
/// the same ``ObjectPredicate`` values the format parser makes, without a string to get wrong.
///
/// ```swift
/// Key("age") > 40 && Key("lastName").beginsWith("S", options: .caseInsensitive)
/// Key("department.name") == "Sales"
/// Key("employees.salary").any > 100_000
/// Key("employees").count > 3
/// Key("id").in([1, 2, 3])
/// Key("age").between(18, 65)
/// 40 < Key("age")
/// Key("manager") == nil
/// ```
///
/// Building checks nothing; ``ObjectPredicate/validated(for:in:)`` checks keys and types.
public struct Key: ObjectExpressionConvertible, Sendable {
    public let keyPath: PredicateKeyPath

    /// A dotted key path: keys separated by `.`.
    public init(_ keyPath: String) {
        self.keyPath = PredicateKeyPath(keyPath)
    }

    public var predicateExpression: ObjectExpression { .keyPath(keyPath) }

    /// `ANY key ...`: true when some value of this to-many key path compares true.
    public var any: QuantifiedKey { QuantifiedKey(key: self, modifier: .any, negated: false) }

    /// `ALL key ...`: true when every value does (so true when there are none).
    public var all: QuantifiedKey { QuantifiedKey(key: self, modifier: .all, negated: false) }

    /// `NONE key ...`: true when no value does; written `NOT (ANY key ...)`.
    public var none: QuantifiedKey { QuantifiedKey(key: self, modifier: .any, negated: true) }

    /// `key.@count`: the number of objects (or values) this to-many key path reaches.
    public var count: KeyAggregate { KeyAggregate(.count, of: self, property: nil) }

    /// `key.@sum.property`: the sum of `property` over this to-many key path's objects.
    public func sum(of property: String) -> KeyAggregate { KeyAggregate(.sum, of: self, property: property) }

    /// `key.@avg.property`: the mean of `property` over this to-many key path's objects.
    public func average(of property: String) -> KeyAggregate { KeyAggregate(.average, of: self, property: property) }

    /// `key.@min.property`: the least `property` of this to-many key path's objects.
    public func minimum(of property: String) -> KeyAggregate { KeyAggregate(.minimum, of: self, property: property) }

    /// `key.@max.property`: the greatest `property` of this to-many key path's objects.
    public func maximum(of property: String) -> KeyAggregate { KeyAggregate(.maximum, of: self, property: property) }
}

/// A collection operator applied to a to-many key path: `Key("employees").count`,
/// `Key("employees").sum(of: "salary")`.
public struct KeyAggregate: ObjectExpressionConvertible, Sendable {
    public let predicateExpression: ObjectExpression

    init(_ aggregate: PredicateAggregate, of key: Key, property: String?) {
        predicateExpression = .aggregate(aggregate, key.keyPath, property: property.map { PredicateKeyPath($0) })
    }
}

/// `SELF`: the evaluated object itself, as in `EvaluatedObject() == someObjectID` or
/// `EvaluatedObject().in(selectedIDs)`.
public struct EvaluatedObject: ObjectExpressionConvertible, Sendable {
    public init() {}

    public var predicateExpression: ObjectExpression { .evaluatedObject }
}

/// A to-many key under ANY, ALL or NONE: `Key("employees.salary").any > 100_000`.
public struct QuantifiedKey: PredicateComparand, Sendable {
    let key: Key
    let modifier: PredicateModifier
    let negated: Bool

    public func comparison(_ operator: PredicateOperator, _ right: ObjectExpression, options: PredicateOptions) -> ObjectPredicate {
        let comparison = ObjectPredicate.comparison(
            PredicateComparison(key.predicateExpression, `operator`, right, modifier: modifier, options: options)
        )
        return negated ? .not(comparison) : comparison
    }
}
