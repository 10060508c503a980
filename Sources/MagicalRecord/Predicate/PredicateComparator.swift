import Foundation

/// The comparison core: one operator, its options, two resolved values, a truth value
/// (Spec/PREDICATES.md, P14-P22, P26-P28). The evaluator applies it per object, and per
/// element under ANY and ALL; a query planner can apply it to index keys.
enum PredicateComparator {
    static func compare(
        _ left: PredicateValue, _ comparisonOperator: PredicateOperator, _ right: PredicateValue, options: PredicateOptions
    ) throws(ObjectPredicateError) -> Bool {
        switch comparisonOperator {
        case .equalTo:
            return try equal(left, right, options)
        case .notEqualTo:
            return try !equal(left, right, options)
        case .lessThan:
            return try order(left, right, options) == .orderedAscending
        case .lessThanOrEqualTo:
            return try order(left, right, options).map { $0 != .orderedDescending } ?? false
        case .greaterThan:
            return try order(left, right, options) == .orderedDescending
        case .greaterThanOrEqualTo:
            return try order(left, right, options).map { $0 != .orderedAscending } ?? false
        case .between:
            guard case .collection(let bounds) = right, bounds.count == 2 else {
                throw .evaluation("BETWEEN needs two bounds, {lower, upper}")
            }
            guard try compare(left, .greaterThanOrEqualTo, bounds[0], options: options) else { return false }
            return try compare(left, .lessThanOrEqualTo, bounds[1], options: options)
        case .in:
            return try isIn(left, right, options)
        case .contains:
            return try contains(left, right, options)
        case .beginsWith, .endsWith, .like, .matches:
            // P14: a string operator with nil (or with a non-string) on either side is false.
            guard case .attribute(.string(let text)) = left, case .attribute(.string(let pattern)) = right else {
                return false
            }
            return try match(text, comparisonOperator, pattern, options)
        }
    }

    /// `==`: nil equals nil only; numbers equal across kinds; objects by identity (P14, P15, P26).
    private static func equal(_ left: PredicateValue, _ right: PredicateValue, _ options: PredicateOptions) throws(ObjectPredicateError) -> Bool {
        switch (left, right) {
        case (.collection, _), (_, .collection):
            throw .evaluation("a to-many value can only be compared with ANY, ALL, NONE, @count, IN or CONTAINS")
        case let (.object(a), .object(b)):
            return a == b
        case (.object(let id), .attribute(let value)), (.attribute(let value), .object(let id)):
            return id == nil && value.isNull
        case let (.attribute(a), .attribute(b)):
            if a.isNull || b.isNull { return a.isNull && b.isNull }
            let (x, y) = PredicateCoercion.harmonized(a, b)
            if case .string(let first) = x, case .string(let second) = y, !options.isEmpty {
                return PredicateStrings.fold(first, options).utf8.elementsEqual(PredicateStrings.fold(second, options).utf8)
            }
            return AttributeValue.matches(x, y)
        }
    }

    /// The order of two values, nil when they have none: nil on either side (P14), objects,
    /// or kinds that do not compare (P28).
    private static func order(
        _ left: PredicateValue, _ right: PredicateValue, _ options: PredicateOptions
    ) throws(ObjectPredicateError) -> ComparisonResult? {
        switch (left, right) {
        case (.collection, _), (_, .collection):
            throw .evaluation("a to-many value can only be compared with ANY, ALL, NONE, @count, IN or CONTAINS")
        case let (.attribute(a), .attribute(b)):
            if a.isNull || b.isNull { return nil }
            let (x, y) = PredicateCoercion.harmonized(a, b)
            if case .string(let first) = x, case .string(let second) = y, !options.isEmpty {
                return AttributeValue.compare(.string(PredicateStrings.fold(first, options)), .string(PredicateStrings.fold(second, options)))
            }
            return AttributeValue.compare(x, y)
        default:
            return nil
        }
    }

    /// IN: equal to an element of a collection, or a substring of a string (P21).
    private static func isIn(_ left: PredicateValue, _ right: PredicateValue, _ options: PredicateOptions) throws(ObjectPredicateError) -> Bool {
        switch right {
        case .collection(let elements):
            for element in elements where try equal(left, element, options) { return true }
            return false
        case .attribute(.string(let text)):
            guard case .attribute(.string(let part)) = left else { return false }
            return PredicateStrings.contains(PredicateStrings.fold(text, options), PredicateStrings.fold(part, options))
        case .attribute(.null), .object(nil):
            return false
        default:
            throw .evaluation("IN needs a collection or a string on its right")
        }
    }

    /// CONTAINS: a collection with an element equal to the right side, or a string with the
    /// right side as a substring (P17, P22).
    private static func contains(_ left: PredicateValue, _ right: PredicateValue, _ options: PredicateOptions) throws(ObjectPredicateError) -> Bool {
        switch left {
        case .collection(let elements):
            for element in elements where try equal(element, right, options) { return true }
            return false
        case .attribute(.string(let text)):
            guard case .attribute(.string(let part)) = right else { return false }
            return PredicateStrings.contains(PredicateStrings.fold(text, options), PredicateStrings.fold(part, options))
        case .attribute(.null), .object(nil):
            return false
        default:
            throw .evaluation("CONTAINS needs a collection or a string on its left")
        }
    }

    private static func match(
        _ text: String, _ comparisonOperator: PredicateOperator, _ pattern: String, _ options: PredicateOptions
    ) throws(ObjectPredicateError) -> Bool {
        switch comparisonOperator {
        case .beginsWith:
            return PredicateStrings.beginsWith(PredicateStrings.fold(text, options), PredicateStrings.fold(pattern, options))
        case .endsWith:
            return PredicateStrings.endsWith(PredicateStrings.fold(text, options), PredicateStrings.fold(pattern, options))
        case .like:
            return PredicateStrings.like(PredicateStrings.fold(text, options), PredicateStrings.fold(pattern, options))
        default:
            return try PatternCache.shared.matches(text, pattern: pattern, options: options)
        }
    }
}
