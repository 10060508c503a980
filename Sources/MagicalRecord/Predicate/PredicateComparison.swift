/// One comparison: `[ANY|ALL] left OPERATOR[options] right` (Spec/PREDICATES.md, P4).
///
/// `NONE left OP right` has no modifier of its own: it parses to
/// `.not(.comparison(...modifier: .any...))`, as NSPredicate defines it.
public struct PredicateComparison: Sendable, Hashable {
    public var modifier: PredicateModifier
    public var left: ObjectExpression
    public var `operator`: PredicateOperator
    public var right: ObjectExpression
    public var options: PredicateOptions
    /// Where the comparison was written, for errors found after parsing (by the validator);
    /// nil for comparisons built in Swift. Not part of equality or hashing: the same
    /// comparison written in two places is the same comparison.
    public var location: PredicateSourceLocation?

    public init(
        _ left: ObjectExpression,
        _ operator: PredicateOperator,
        _ right: ObjectExpression,
        modifier: PredicateModifier = .direct,
        options: PredicateOptions = [],
        location: PredicateSourceLocation? = nil
    ) {
        self.modifier = modifier
        self.left = left
        self.operator = `operator`
        self.right = right
        self.options = options
        self.location = location
    }

    public static func == (a: PredicateComparison, b: PredicateComparison) -> Bool {
        a.modifier == b.modifier && a.left == b.left && a.operator == b.operator && a.right == b.right
            && a.options == b.options
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(modifier)
        hasher.combine(left)
        hasher.combine(`operator`)
        hasher.combine(right)
        hasher.combine(options)
    }
}

/// The operators of a comparison (Spec/PREDICATES.md, P4 and P14-P24).
public enum PredicateOperator: String, Sendable, Hashable, CaseIterable {
    case equalTo = "=="
    case notEqualTo = "!="
    case lessThan = "<"
    case lessThanOrEqualTo = "<="
    case greaterThan = ">"
    case greaterThanOrEqualTo = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    case `in` = "IN"
    case between = "BETWEEN"

    /// Whether the operator works on strings only.
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .like, .matches: return true
        default: return false
        }
    }

    /// Whether the operator orders its operands.
    var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo: return true
        default: return false
        }
    }
}

/// How a comparison treats a to-many left side (Spec/PREDICATES.md, P23).
public enum PredicateModifier: Sendable, Hashable, CaseIterable {
    /// The left side is compared as one value.
    case direct
    /// `ANY` (or `SOME`): true when some element of the to-many left side compares true.
    case any
    /// `ALL`: true when every element does (so true for an empty collection).
    case all
}

/// The string options of a comparison, written `[c]`, `[d]`, `[cd]`, `[n]` after the
/// operator (Spec/PREDICATES.md, P13 and P16).
public struct PredicateOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: upper and lower case compare equal (full Unicode case folding: `ß` matches `SS`).
    public static let caseInsensitive = PredicateOptions(rawValue: 1 << 0)
    /// `[d]`: accents and other diacritics are ignored (`é` matches `e`).
    public static let diacriticInsensitive = PredicateOptions(rawValue: 1 << 1)
    /// `[n]`: NSPredicate's "strings are already normalized" hint; accepted, kept, and
    /// without effect here.
    public static let normalized = PredicateOptions(rawValue: 1 << 2)
}

/// Character offsets (from 0, counting Swift `Character`s) of the parts of a comparison in
/// the format string it was parsed from.
public struct PredicateSourceLocation: Sendable, Hashable {
    /// The comparison's first character: its `ANY`/`ALL`/`NONE`, or its left side.
    public var start: Int
    public var left: Int
    public var `operator`: Int
    public var right: Int

    public init(start: Int, left: Int, operator: Int, right: Int) {
        self.start = start
        self.left = left
        self.operator = `operator`
        self.right = right
    }
}
