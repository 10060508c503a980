import Foundation
import Testing
@testable import MagicalRecord

/// Accumulators of the parts of a sequence merge into the accumulator of the whole, and a
/// sum of doubles carries its rounding errors.
@Suite struct AggregateAccumulatorTests {
    /// Values of one kind at a time, as an attribute has, with nils among them.
    private static func values(_ type: AttributeType, count: Int, using random: inout SeededGenerator) -> [AttributeValue] {
        (0..<count).map { _ in
            guard Int.random(in: 0..<6, using: &random) != 0 else { return .null }
            switch type {
            case .integer64: return .integer(Int64.random(in: Int64.min / 4...Int64.max / 4, using: &random))
            case .double: return .double(Double.random(in: -1e6...1e6, using: &random) * (Bool.random(using: &random) ? 1e-9 : 1))
            case .decimal: return .decimal(Decimal(Int.random(in: -100_000...100_000, using: &random)) / 100)
            default: return .string(String(Int.random(in: 0..<50, using: &random)))
            }
        }
    }

    @Test func mergedPartsEqualTheWhole() {
        var random = SeededGenerator(seed: 8)
        for round in 0..<300 {
            let type = [AttributeType.integer64, .double, .decimal, .string][round % 4]
            let values = Self.values(type, count: Int.random(in: 0..<60, using: &random), using: &random)
            for operation in AggregateOperation.allCases where type != .string || !operation.isArithmetic {
                var whole = AggregateAccumulator(operation, type: type)
                for value in values { whole.add(value) }
                // The values cut at random places, each part folded alone, merged in order.
                var cuts = (0..<Int.random(in: 0..<5, using: &random)).map { _ in Int.random(in: 0...values.count, using: &random) }.sorted()
                cuts = [0] + cuts + [values.count]
                var merged = AggregateAccumulator(operation, type: type)
                for (start, end) in zip(cuts, cuts.dropFirst()) {
                    var part = AggregateAccumulator(operation, type: type)
                    for value in values[start..<end] { part.add(value) }
                    merged.merge(part)
                }
                if case .double(let wanted) = whole.result, case .double(let found) = merged.result {
                    #expect(abs(found - wanted) <= 1e-12 * max(abs(wanted), 1), "\(operation) of \(type), round \(round)")
                } else {
                    #expect(merged.result == whole.result, "\(operation) of \(type), round \(round)")
                }
            }
        }
    }

    /// Integer sums stay exact past Int64 on the way, whatever the order.
    @Test func integerSumsAreExactInAnyOrder() {
        for values in [[Int64.max, Int64.max, -Int64.max], [Int64.min, -1, 1], [Int64.max, 1]] {
            var forward = AggregateAccumulator(.sum, type: .integer64)
            var parts = AggregateAccumulator(.sum, type: .integer64)
            for value in values { forward.add(.integer(value)) }
            for value in values.reversed() {
                var part = AggregateAccumulator(.sum, type: .integer64)
                part.add(.integer(value))
                parts.merge(part)
            }
            let exact = values.reduce(Decimal(0)) { $0 + Decimal($1) }
            let expected: AttributeValue = exact <= Decimal(Int64.max) && exact >= Decimal(Int64.min) ? .integer(Int64(truncating: exact as NSNumber)) : .decimal(exact)
            #expect(forward.result == expected, "\(values)")
            #expect(parts.result == expected, "\(values)")
        }
    }

    @Test func doubleSumsCarryTheirRoundingErrors() {
        var sum = CompensatedSum()
        for value in [1e16, 1.0, -1e16] { sum.add(value) }
        #expect(sum.value == 1.0)
        var tenths = CompensatedSum()
        for _ in 0..<1_000_000 { tenths.add(0.1) }
        #expect(tenths.value == 100_000.0)
        var infinite = CompensatedSum()
        for value in [1.0, Double.infinity, 2.0] { infinite.add(value) }
        #expect(infinite.value == .infinity)
        var undefined = CompensatedSum()
        for value in [Double.infinity, -Double.infinity] { undefined.add(value) }
        #expect(undefined.value.isNaN)
    }
}
