/// A predicate: the condition a fetch filters objects by, in the language of Core Data's
/// `NSPredicate` (Spec/PREDICATES.md).
///
/// Write one as a format string, or with the typed builder:
///
/// ```swift
/// let fromFormat = try ObjectPredicate(format: "age > %d AND lastName BEGINSWITH[c] %@", 40, "s")
/// let fromBuilder = Key("age") > 40 && Key("lastName").beginsWith("s", options: .caseInsensitive)
/// // fromFormat == fromBuilder
/// ```
///
/// A predicate is a plain value: `Sendable` and `Hashable`, so it crosses threads and
/// contexts freely and can key a cache. ``predicateFormat`` renders it back to a format
/// string that parses to an equal predicate. Check it against an entity with
/// ``validated(for:in:)``; evaluate it with ``evaluate(on:)`` or a ``PredicateEvaluator``.
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: every object matches.
    case truePredicate
    /// `FALSEPREDICATE`: no object matches.
    case falsePredicate
    /// Two expressions compared by an operator, such as `age > 40`.
    case comparison(PredicateComparison)
    /// `NOT p`.
    case not(ObjectPredicate)
    /// `a AND b AND ...`: true when every subpredicate is (so true when there are none).
    case and([ObjectPredicate])
    /// `a OR b OR ...`: true when any subpredicate is (so false when there are none).
    case or([ObjectPredicate])
}

extension ObjectPredicate {
    /// Parses an NSPredicate format string, substituting `arguments` for its `%@`, `%K`,
    /// `%d`, `%f`... in order (Spec/PREDICATES.md, P2 and P12).
    ///
    /// ```swift
    /// let adults = try ObjectPredicate(format: "age >= %d AND department.name == %@", 18, "Sales")
    /// let byKey = try ObjectPredicate(format: "%K BETWEEN %@", "salary", [50_000, 90_000])
    /// let unset = try ObjectPredicate(format: "manager == %@", nil)
    /// ```
    ///
    /// Throws ``ObjectPredicateError`` with the character offset of the problem: a syntax error,
    /// an argument missing, left over or of the wrong type, an invalid MATCHES pattern.
    /// Keys are not checked here: ``validated(for:in:)`` checks them against an entity.
    public init(format: String, _ arguments: (any PredicateArgumentConvertible)?...) throws(ObjectPredicateError) {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a format string with its arguments in an array: ``init(format:_:)`` for
    /// arguments gathered at run time.
    public init(format: String, argumentArray: [(any PredicateArgumentConvertible)?]) throws(ObjectPredicateError) {
        var parser = try PredicateParser(
            format: format, arguments: argumentArray.map { $0?.predicateArgument ?? .value(.null) }
        )
        self = try parser.parse()
    }
}
