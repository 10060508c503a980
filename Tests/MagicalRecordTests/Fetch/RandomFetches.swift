import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The reference model of the planner's property test: Sample objects as plain rows,
/// random conditions whose meaning is spelt out here in plain Swift, and the order a
/// fetch must return. Nothing here goes through the planner, the indexes or the
/// predicate evaluator; the conditions reach the library as format strings.

/// The attributes of Sample (FetchModel): all indexed but `note`.
enum SampleColumn: String, CaseIterable {
    case sampleID, small, big, name, day, ratio, amount, flag, note
}

/// One Sample object as the reference model holds it.
struct SampleRow {
    let id: ObjectID
    var values: [SampleColumn: AttributeValue]

    subscript(column: SampleColumn) -> AttributeValue { values[column] ?? .null }
}

/// A constant of a condition: what the predicate is given (a date may be given as an
/// ISO 8601 string) and the value it stands for.
struct SampleConstant {
    let argument: AttributeValue
    let value: AttributeValue

    init(_ value: AttributeValue, argument: AttributeValue? = nil) {
        self.value = value
        self.argument = argument ?? value
    }
}

/// A condition on a Sample, rendered as a format string with arguments.
indirect enum SampleCondition {
    /// `column op constant`, or `constant op column` when `constantFirst`.
    case comparison(SampleColumn, PredicateOperator, SampleConstant, constantFirst: Bool)
    case among(SampleColumn, [SampleConstant])
    case between(SampleColumn, SampleConstant, SampleConstant)
    case not(SampleCondition)
    case all([SampleCondition])
    case any([SampleCondition])

    var format: String {
        switch self {
        case .comparison(_, let comparisonOperator, _, let constantFirst):
            return constantFirst ? "%@ \(comparisonOperator.rawValue) %K" : "%K \(comparisonOperator.rawValue) %@"
        case .among: return "%K IN %@"
        case .between: return "%K BETWEEN %@"
        case .not(let operand): return "NOT (\(operand.format))"
        case .all(let operands): return operands.map { "(\($0.format))" }.joined(separator: " AND ")
        case .any(let operands): return operands.map { "(\($0.format))" }.joined(separator: " OR ")
        }
    }

    var arguments: [any PredicateArgumentConvertible] {
        switch self {
        case .comparison(let column, _, let constant, let constantFirst):
            return constantFirst ? [constant.argument, column.rawValue] : [column.rawValue, constant.argument]
        case .among(let column, let constants): return [column.rawValue, constants.map(\.argument)]
        case .between(let column, let lower, let upper): return [column.rawValue, [lower.argument, upper.argument]]
        case .not(let operand): return operand.arguments
        case .all(let operands), .any(let operands): return operands.flatMap(\.arguments)
        }
    }

    func predicate() throws -> ObjectPredicate {
        try ObjectPredicate(format: format, argumentArray: arguments)
    }

    /// Whether `row` meets the condition: nil equals nil only, nil never orders.
    func matches(_ row: SampleRow) -> Bool {
        switch self {
        case .comparison(let column, let comparisonOperator, let constant, let constantFirst):
            let value = row[column]
            let order = constantFirst ? ReferenceOrder.compare(constant.value, value) : ReferenceOrder.compare(value, constant.value)
            switch comparisonOperator {
            case .equalTo: return ReferenceOrder.equal(value, constant.value)
            case .notEqualTo: return !ReferenceOrder.equal(value, constant.value)
            case .lessThan: return order == -1
            case .lessThanOrEqualTo: return order == -1 || order == 0
            case .greaterThan: return order == 1
            case .greaterThanOrEqualTo: return order == 1 || order == 0
            default: fatalError("the random conditions make no \(comparisonOperator)")
            }
        case .among(let column, let constants):
            return constants.contains { ReferenceOrder.equal(row[column], $0.value) }
        case .between(let column, let lower, let upper):
            let aboveLower = ReferenceOrder.compare(row[column], lower.value).map { $0 >= 0 } ?? false
            let belowUpper = ReferenceOrder.compare(row[column], upper.value).map { $0 <= 0 } ?? false
            return aboveLower && belowUpper
        case .not(let operand): return !operand.matches(row)
        case .all(let operands): return operands.allSatisfy { $0.matches(row) }
        case .any(let operands): return operands.contains { $0.matches(row) }
        }
    }
}

/// The value orders the reference model needs, written out for the kinds of values the
/// random fetches compare.
enum ReferenceOrder {
    /// -1, 0 or 1; nil when either side is nil.
    static func compare(_ left: AttributeValue, _ right: AttributeValue) -> Int? {
        if left.isNull || right.isNull { return nil }
        if let order = directed(left, right) { return order }
        if let order = directed(right, left) { return -order }
        Issue.record("the reference model cannot compare \(left) with \(right)")
        return nil
    }

    static func equal(_ left: AttributeValue, _ right: AttributeValue) -> Bool {
        if left.isNull || right.isNull { return left.isNull && right.isNull }
        return compare(left, right) == 0
    }

    /// The order of sorts: nil first, then by value.
    static func sortOrder(_ left: AttributeValue, _ right: AttributeValue) -> Int {
        switch (left.isNull, right.isNull) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): return compare(left, right) ?? 0
        }
    }

    /// `rows` in the order of `keys`, then by object id.
    static func sorted(_ rows: [SampleRow], by keys: [SortKey]) -> [SampleRow] {
        rows.sorted { first, second in
            for key in keys {
                guard let column = SampleColumn(rawValue: key.keyPath) else { fatalError("\(key.keyPath) is not a Sample column") }
                let order = sortOrder(first[column], second[column])
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return first.id.number < second.id.number
        }
    }

    private static func directed(_ left: AttributeValue, _ right: AttributeValue) -> Int? {
        switch (left, right) {
        case let (.integer(a), .integer(b)): return sign(a, b)
        case let (.integer(a), .bool(b)): return sign(a, b ? 1 : 0)
        case let (.integer(a), .double(b)): return compare(a, b)
        case let (.bool(a), .bool(b)): return sign(a ? 1 : 0, b ? 1 : 0)
        case let (.double(a), .double(b)):
            // NaN sorts above every number and equals itself.
            if a.isNaN || b.isNaN { return sign(a.isNaN ? 1 : 0, b.isNaN ? 1 : 0) }
            return sign(a, b)
        case let (.decimal(a), .decimal(b)): return sign(a, b)
        case let (.decimal(a), .integer(b)): return sign(a, Decimal(b))
        case let (.decimal(a), .double(b)):
            // Only short binary fractions (0.5, 1.25...) are compared with decimals.
            guard let exact = Decimal(string: "\(b)") else { return nil }
            return sign(a, exact)
        case let (.string(a), .string(b)):
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case let (.date(a), .date(b)): return sign(a, b)
        default: return nil
        }
    }

    /// An integer against a double, exactly, also past 2^53 and past Int64.
    private static func compare(_ integer: Int64, _ double: Double) -> Int {
        if double.isNaN || double >= 0x1p63 { return -1 }
        if double < -0x1p63 { return 1 }
        let whole = Int64(double.rounded(.down))
        if integer != whole { return integer < whole ? -1 : 1 }
        return Double(whole) == double ? 0 : -1
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int {
        a < b ? -1 : (a == b ? 0 : 1)
    }
}

/// One random fetch: a condition (nil for none), sort keys, a limit and an offset.
struct SampleQuery: CustomStringConvertible {
    var condition: SampleCondition?
    var sortKeys: [SortKey]
    var limit: Int
    var offset: Int

    func request() throws -> FetchRequest {
        FetchRequest(entityName: "Sample", predicate: try condition?.predicate(), sortKeys: sortKeys, fetchLimit: limit, fetchOffset: offset)
    }

    /// The ids the fetch must return from `rows`, in order.
    func expected(in rows: some Collection<SampleRow>) -> [ObjectID] {
        let matching = rows.filter { condition?.matches($0) ?? true }
        let ordered = ReferenceOrder.sorted(matching, by: sortKeys).map(\.id)
        let start = min(offset, ordered.count)
        let end = limit > 0 ? min(start + limit, ordered.count) : ordered.count
        return Array(ordered[start..<end])
    }

    var description: String {
        let predicate = condition.map { "\($0.format) \($0.arguments.map { "\($0)" })" } ?? "no predicate"
        return "\(predicate), sorted by \(sortKeys), limit \(limit), offset \(offset)"
    }
}

/// Random Sample values, conditions and queries from a seeded generator: values drawn
/// from small pools so that equalities hit and sort keys tie, nils included.
struct RandomSamples {
    var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// Sample ids are drawn from 1 through this.
    static let sampleIDs: Int64 = 1_000

    private static let smalls: [Int64] = [-32_768, -3, 0, 1, 2, 5, 40, 41, 100, 32_767]
    private static let bigs: [Int64] = [.min, .max, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1, 0, 7]
    private static let names = ["", "a", "a\u{0}", "a\u{0}b", "ab", "abc", "b", "B", "é", "e\u{301}", "z", "Zoë", "😀", "a b"]
    private static let days: [Date] = (0..<12).map { Date(timeIntervalSinceReferenceDate: 725_846_400 + Double($0) * 86_400) }
        + [Date(timeIntervalSinceReferenceDate: -992_217_600), Date(timeIntervalSinceReferenceDate: 726_000_000.5)]
    private static let ratios: [Double] = [-1e300, -2.5, -1, -0.0, 0, 0.1, 0.5, 1, 2.75, 40.5, 1e300, .infinity, -.infinity, .nan]
    private static let amounts: [Decimal] = [
        "0", "0.1", "0.10", "0.5", "1.25", "-2.5", "100", "-100.5", "3.333333333333333333333333333",
        "100000000000000000000", "100000000000000000000.25", "100000000000000000000.5", "12345678901234567890123.45",
    ].map { Decimal(string: $0)! }
    private static let notes = ["x", "y", "z"]

    // MARK: Values

    /// The attributes of a new Sample but its id.
    mutating func values() -> [SampleColumn: AttributeValue] {
        var values: [SampleColumn: AttributeValue] = [:]
        for column in SampleColumn.allCases where column != .sampleID {
            values[column] = value(for: column)
        }
        return values
    }

    /// A value of `column`, nil one time in seven.
    mutating func value(for column: SampleColumn) -> AttributeValue {
        guard Int.random(in: 0..<7, using: &random) != 0 || column == .sampleID else { return .null }
        switch column {
        case .sampleID: return .integer(Int64.random(in: 1...Self.sampleIDs, using: &random))
        case .small: return .integer(chance(0.5) ? pick(Self.smalls) : Int64.random(in: -50...50, using: &random))
        case .big: return .integer(chance(0.4) ? pick(Self.bigs) : Int64.random(in: -1_000...1_000, using: &random))
        case .name: return .string(pick(Self.names))
        case .day: return .date(pick(Self.days))
        case .ratio: return .double(chance(0.5) ? pick(Self.ratios) : Double(Int.random(in: -40...40, using: &random)) / 4)
        case .amount: return .decimal(pick(Self.amounts))
        case .flag: return .bool(chance(0.5))
        case .note: return .string(pick(Self.notes))
        }
    }

    // MARK: Conditions

    /// A constant to compare `column` with: mostly values it holds, also other numeric
    /// kinds (40.5 against integers), values past its type, dates as strings, and nil.
    mutating func constant(for column: SampleColumn) -> SampleConstant {
        if chance(0.08) { return SampleConstant(.null) }
        let half = Double(Int.random(in: -60...60, using: &random)) + 0.5
        switch column {
        case .sampleID, .small, .big:
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1: return SampleConstant(.double(half))
            case 2: return SampleConstant(.double(pick([1e19, -1e19, 0x1p53, -0x1p63, 0x1p63])))
            case 3: return SampleConstant(.integer(pick([70_000, -70_000, 32_768, -32_769])))
            case 4: return SampleConstant(.bool(chance(0.5)))
            default:
                if case .integer(let number) = value(for: column), chance(0.9) { return SampleConstant(.integer(number)) }
                return SampleConstant(.integer(Int64.random(in: -60...60, using: &random)))
            }
        case .name:
            return SampleConstant(.string(chance(0.8) ? pick(Self.names) : pick(["aa", "c", "a\u{0}a", "Z", "éa"])))
        case .day:
            let day = pick(Self.days)
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where day.timeIntervalSinceReferenceDate.truncatingRemainder(dividingBy: 86_400) == 0:
                let text = ISO8601DateFormatter.string(from: day, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
                return SampleConstant(.date(day), argument: .string(text))
            case 1: return SampleConstant(.date(day.addingTimeInterval(1_800)))
            default: return SampleConstant(.date(day))
            }
        case .ratio:
            if chance(0.2) { return SampleConstant(.integer(Int64.random(in: -10...10, using: &random))) }
            return SampleConstant(.double(chance(0.5) ? pick(Self.ratios) : half / 2))
        case .amount:
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return SampleConstant(.integer(Int64.random(in: -3...100, using: &random)))
            case 1: return SampleConstant(.double(pick([0.5, 1.25, -2.5, 100, 0])))
            default: return SampleConstant(.decimal(pick(Self.amounts)))
            }
        case .flag:
            return chance(0.8) ? SampleConstant(.bool(chance(0.5))) : SampleConstant(.integer(Int64.random(in: 0...1, using: &random)))
        case .note:
            return SampleConstant(.string(pick(Self.notes + ["w"])))
        }
    }

    mutating func condition(depth: Int = 2) -> SampleCondition {
        guard depth > 0, chance(0.45) else { return atom() }
        let operands = (0..<Int.random(in: 2...3, using: &random)).map { _ in condition(depth: depth - 1) }
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return .not(operands[0])
        case 1: return .any(operands)
        default: return .all(operands)
        }
    }

    private mutating func atom() -> SampleCondition {
        let column = chance(0.1) ? .note : pick(SampleColumn.allCases)
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            return .among(column, (0..<Int.random(in: 0...4, using: &random)).map { _ in constant(for: column) })
        case 2, 3:
            return .between(column, constant(for: column), constant(for: column))
        default:
            let operators: [PredicateOperator] = [.equalTo, .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo]
            return .comparison(column, pick(operators), constant(for: column), constantFirst: chance(0.2))
        }
    }

    mutating func query() -> SampleQuery {
        let condition = chance(0.1) ? nil : self.condition()
        var columns = SampleColumn.allCases
        var sortKeys: [SortKey] = []
        for _ in 0..<pick([0, 1, 1, 1, 2, 2, 3]) {
            let column = columns.remove(at: Int.random(in: 0..<columns.count, using: &random))
            sortKeys.append(SortKey(column.rawValue, ascending: chance(0.5)))
        }
        let limit = chance(0.4) ? 0 : Int.random(in: 1...25, using: &random)
        let offset = chance(0.5) ? 0 : Int.random(in: 0...30, using: &random)
        return SampleQuery(condition: condition, sortKeys: sortKeys, limit: limit, offset: offset)
    }

    // MARK: Helpers

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }
}
