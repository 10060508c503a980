import Foundation
@testable import MagicalRecord

/// Random predicates of every shape the AST allows, meaningful or not, for the round trip
/// through ``ObjectPredicate/predicateFormat``. Keys are identifiers (reserved words and
/// non-ASCII letters included): only those have a written form (P32).
struct RandomPredicates {
    var random: SeededGenerator

    private static let keys = ["age", "name", "department", "x", "_y2", "café", "Ström", "size", "in", "SELF", "nil", "Any", "cast", "employees"]
    private static let patterns = ["a.*", "[a-z]+", "(x|y)?", #"\d{2}"#, ""]
    private static let stringPieces = [
        "a", "Z", " ", "'", "\"", "\\", "\\d", "\n", "\t", "\r", "\0", "\u{7}", "\u{7F}", "é", "e\u{301}", "\u{301}", "😀", "👨‍👩‍👧",
        "%@", "*", "?", "#", "{", "}", "AND",
    ]

    mutating func predicate(depth: Int = 3) -> ObjectPredicate {
        guard depth > 0, random.chance(0.6) else {
            switch Int.random(in: 0..<20, using: &random) {
            case 0: return .truePredicate
            case 1: return .falsePredicate
            default: return comparison()
            }
        }
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return .not(predicate(depth: depth - 1))
        case 1: return .and((0..<Int.random(in: 2...4, using: &random)).map { _ in predicate(depth: depth - 1) })
        default: return .or((0..<Int.random(in: 2...4, using: &random)).map { _ in predicate(depth: depth - 1) })
        }
    }

    mutating func comparison() -> ObjectPredicate {
        let comparisonOperator = random.pick(PredicateOperator.allCases)
        let right: ObjectExpression
        switch comparisonOperator {
        case .between where random.chance(0.8):
            right = .list([expression(depth: 1), expression(depth: 1)])
        case .matches where random.chance(0.5):
            right = .constant(.string(random.pick(Self.patterns)))
        default:
            right = expression(depth: 2, allowingPatterns: comparisonOperator != .matches && comparisonOperator != .between)
        }
        var options: PredicateOptions = []
        if random.chance(0.3) { options.insert(.caseInsensitive) }
        if random.chance(0.3) { options.insert(.diacriticInsensitive) }
        if random.chance(0.1) { options.insert(.normalized) }
        let modifier = random.pick(PredicateModifier.allCases)
        let comparison = ObjectPredicate.comparison(
            PredicateComparison(expression(depth: 2), comparisonOperator, right, modifier: modifier, options: options)
        )
        return modifier == .any && random.chance(0.3) ? .not(comparison) : comparison
    }

    /// `allowingPatterns: false` keeps string constants and lists away from the right of
    /// MATCHES and BETWEEN, where the parser checks them.
    mutating func expression(depth: Int, allowingPatterns: Bool = true) -> ObjectExpression {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .evaluatedObject
        case 1: return .object(ObjectID(entityName: random.pick(["Person", "Department"]), number: Int64.random(in: 1...1_000, using: &random)))
        case 2 where depth > 0 && allowingPatterns:
            return .list((0..<Int.random(in: 0...3, using: &random)).map { _ in expression(depth: depth - 1) })
        case 3:
            let aggregate = random.pick(PredicateAggregate.allCases)
            return .aggregate(aggregate, keyPath(), property: random.chance(0.5) ? keyPath() : nil)
        case 4, 5, 6:
            let value = self.value()
            if !allowingPatterns, case .string = value { return .constant(.integer(1)) }
            return .constant(value)
        default:
            return .keyPath(keyPath())
        }
    }

    mutating func keyPath() -> PredicateKeyPath {
        PredicateKeyPath((0..<Int.random(in: 1...3, using: &random)).map { _ in random.pick(Self.keys) })
    }

    /// Any value but NaN, which is not equal to itself.
    mutating func value() -> AttributeValue {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return .null
        case 1: return .integer(random.pick([0, 1, -1, .max, .min, Int64.random(in: -1_000_000...1_000_000, using: &random)]))
        case 2:
            return .double(random.pick([0.5, -0.0, 1e300, -2.5e-300, .infinity, -.infinity, .leastNonzeroMagnitude,
                                        Double.random(in: -1e6...1e6, using: &random)]))
        case 3: return .float(random.pick([1.1, -0.0, .infinity, .greatestFiniteMagnitude, Float.random(in: -1e3...1e3, using: &random)]))
        case 4:
            return .decimal(Decimal(sign: random.chance(0.5) ? .minus : .plus, exponent: Int.random(in: -6...6, using: &random),
                                    significand: Decimal(UInt64.random(in: 0...1_000_000_000, using: &random))))
        case 5: return .bool(random.chance(0.5))
        case 6: return .date(Date(timeIntervalSinceReferenceDate: random.pick([0, -1.5, 1e9, Double.random(in: -1e10...1e10, using: &random)])))
        case 7: return .data(Data((0..<Int.random(in: 0...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case 8:
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            return .uuid(UUID(uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )))
        case 9: return .uri(URL(string: "https://example.com/\(Int.random(in: 0...999, using: &random))?q=a%20b")!)
        default: return .string((0..<Int.random(in: 0...6, using: &random)).map { _ in random.pick(Self.stringPieces) }.joined())
        }
    }
}
