/// The builder's comparisons: operators for `==` `!=` `<` `<=` `>` `>=` against a value, a
/// key, or with the value on the left (`40 < Key("age")`), and methods for the operators
/// that have no Swift symbol. `&&`, `||` and `!` combine the results.
extension PredicateComparand {
    public static func == (left: Self, right: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        left.comparison(.equalTo, argument(right), options: [])
    }

    public static func != (left: Self, right: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        left.comparison(.notEqualTo, argument(right), options: [])
    }

    public static func < (left: Self, right: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        left.comparison(.lessThan, argument(right), options: [])
    }

    public static func <= (left: Self, right: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        left.comparison(.lessThanOrEqualTo, argument(right), options: [])
    }

    public static func > (left: Self, right: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        left.comparison(.greaterThan, argument(right), options: [])
    }

    public static func >= (left: Self, right: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        left.comparison(.greaterThanOrEqualTo, argument(right), options: [])
    }

    public static func == (left: Self, right: some ObjectExpressionConvertible) -> ObjectPredicate {
        left.comparison(.equalTo, right.predicateExpression, options: [])
    }

    public static func != (left: Self, right: some ObjectExpressionConvertible) -> ObjectPredicate {
        left.comparison(.notEqualTo, right.predicateExpression, options: [])
    }

    public static func < (left: Self, right: some ObjectExpressionConvertible) -> ObjectPredicate {
        left.comparison(.lessThan, right.predicateExpression, options: [])
    }

    public static func <= (left: Self, right: some ObjectExpressionConvertible) -> ObjectPredicate {
        left.comparison(.lessThanOrEqualTo, right.predicateExpression, options: [])
    }

    public static func > (left: Self, right: some ObjectExpressionConvertible) -> ObjectPredicate {
        left.comparison(.greaterThan, right.predicateExpression, options: [])
    }

    public static func >= (left: Self, right: some ObjectExpressionConvertible) -> ObjectPredicate {
        left.comparison(.greaterThanOrEqualTo, right.predicateExpression, options: [])
    }

    /// `BEGINSWITH`: the string starts with `prefix`.
    public func beginsWith(_ prefix: String, options: PredicateOptions = []) -> ObjectPredicate {
        comparison(.beginsWith, .constant(.string(prefix)), options: options)
    }

    /// `ENDSWITH`: the string ends with `suffix`.
    public func endsWith(_ suffix: String, options: PredicateOptions = []) -> ObjectPredicate {
        comparison(.endsWith, .constant(.string(suffix)), options: options)
    }

    /// `LIKE`: the string matches `pattern`, where `*` stands for any characters and `?`
    /// for one.
    public func like(_ pattern: String, options: PredicateOptions = []) -> ObjectPredicate {
        comparison(.like, .constant(.string(pattern)), options: options)
    }

    /// `MATCHES`: the whole string matches the regular expression `pattern` (ICU syntax).
    public func matches(_ pattern: String, options: PredicateOptions = []) -> ObjectPredicate {
        comparison(.matches, .constant(.string(pattern)), options: options)
    }

    /// `CONTAINS`: a string containing `value` as a substring, or a to-many key path (or
    /// list) with an element equal to `value`.
    public func contains(_ value: (any PredicateArgumentConvertible)?, options: PredicateOptions = []) -> ObjectPredicate {
        comparison(.contains, argument(value), options: options)
    }

    /// `IN`: equal to one of `values` (an array or a set), or a substring of a string.
    public func `in`(_ values: some PredicateArgumentConvertible, options: PredicateOptions = []) -> ObjectPredicate {
        comparison(.in, argument(values), options: options)
    }

    /// `IN`: equal to one of the values of a to-many key path.
    public func `in`(_ collection: some ObjectExpressionConvertible, options: PredicateOptions = []) -> ObjectPredicate {
        comparison(.in, collection.predicateExpression, options: options)
    }

    /// `BETWEEN {lower, upper}`: at least `lower` and at most `upper`.
    public func between(
        _ lower: some PredicateArgumentConvertible, _ upper: some PredicateArgumentConvertible, options: PredicateOptions = []
    ) -> ObjectPredicate {
        comparison(.between, .list([argument(lower), argument(upper)]), options: options)
    }
}

extension ObjectExpressionConvertible {
    public static func == (left: (any PredicateArgumentConvertible)?, right: Self) -> ObjectPredicate {
        constant(left, .equalTo, right)
    }

    public static func != (left: (any PredicateArgumentConvertible)?, right: Self) -> ObjectPredicate {
        constant(left, .notEqualTo, right)
    }

    public static func < (left: (any PredicateArgumentConvertible)?, right: Self) -> ObjectPredicate {
        constant(left, .lessThan, right)
    }

    public static func <= (left: (any PredicateArgumentConvertible)?, right: Self) -> ObjectPredicate {
        constant(left, .lessThanOrEqualTo, right)
    }

    public static func > (left: (any PredicateArgumentConvertible)?, right: Self) -> ObjectPredicate {
        constant(left, .greaterThan, right)
    }

    public static func >= (left: (any PredicateArgumentConvertible)?, right: Self) -> ObjectPredicate {
        constant(left, .greaterThanOrEqualTo, right)
    }

    /// A constant on the left stays on the left, as the parser keeps `40 < age`.
    private static func constant(
        _ left: (any PredicateArgumentConvertible)?, _ comparisonOperator: PredicateOperator, _ right: Self
    ) -> ObjectPredicate {
        .comparison(PredicateComparison(argument(left), comparisonOperator, right.predicateExpression))
    }
}

extension ObjectPredicate {
    /// `AND`; operands that are conjunctions already are merged into one list.
    public static func && (left: ObjectPredicate, right: ObjectPredicate) -> ObjectPredicate {
        .and(left.conjuncts + right.conjuncts)
    }

    /// `OR`; operands that are disjunctions already are merged into one list.
    public static func || (left: ObjectPredicate, right: ObjectPredicate) -> ObjectPredicate {
        .or(left.disjuncts + right.disjuncts)
    }

    /// `NOT`.
    public static prefix func ! (operand: ObjectPredicate) -> ObjectPredicate {
        .not(operand)
    }

    /// The predicates this one requires together: its operands if it is an AND, else itself.
    public var conjuncts: [ObjectPredicate] {
        if case .and(let operands) = self { return operands }
        return [self]
    }

    /// The predicates this one accepts any of: its operands if it is an OR, else itself.
    public var disjuncts: [ObjectPredicate] {
        if case .or(let operands) = self { return operands }
        return [self]
    }
}

/// A builder operand as an expression; nil is `nil`.
private func argument(_ value: (any PredicateArgumentConvertible)?) -> ObjectExpression {
    (value?.predicateArgument ?? .value(.null)).expression
}
