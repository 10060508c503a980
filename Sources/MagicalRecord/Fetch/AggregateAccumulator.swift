import Foundation

/// A partial result of a fold in parts, merged with the next part's in id order.
protocol MergingFold {
    /// Adds what `later` folded, as if its values had come after this one's.
    mutating func merge(_ later: Self)
}

/// Folds values into one aggregate. Accumulators of parts of a scan merge into the one a
/// single scan would give (``merge(_:)``): integer sums are exact and doubles are summed
/// with their rounding errors carried, so how a scan was cut changes no integer result and
/// a double one at most in its last bits.
struct AggregateAccumulator: MergingFold {
    let operation: AggregateOperation
    let type: AttributeType
    private var count = 0
    /// Exact: 2^64 values of Int64 cannot overflow it.
    private var integerSum: Int128 = 0
    private var decimalSum: Decimal = 0
    private var hasDecimals = false
    private var doubleSum = CompensatedSum()
    private var extreme: AttributeValue?

    init(_ operation: AggregateOperation, type: AttributeType) {
        self.operation = operation
        self.type = type
    }

    mutating func add(_ value: AttributeValue) {
        guard !value.isNull else { return }
        count += 1
        switch operation {
        case .count:
            return
        case .min, .max:
            offerExtreme(value)
        case .sum, .average:
            switch value {
            case .integer(let number):
                integerSum += Int128(number)
            case .decimal(let number):
                decimalSum += number
                hasDecimals = true
            default:
                doubleSum.add(value.doubleValue ?? 0)
            }
        }
    }

    mutating func merge(_ later: AggregateAccumulator) {
        count += later.count
        integerSum += later.integerSum
        if later.hasDecimals {
            decimalSum += later.decimalSum
            hasDecimals = true
        }
        doubleSum.add(later.doubleSum)
        if let value = later.extreme { offerExtreme(value) }
    }

    /// The first of the most extreme values wins, as when they come one by one.
    private mutating func offerExtreme(_ value: AttributeValue) {
        let wanted: ComparisonResult = operation == .min ? .orderedAscending : .orderedDescending
        if let current = extreme, AttributeValue.compare(value, current) != wanted { return }
        extreme = value
    }

    var result: AttributeValue {
        switch operation {
        case .count:
            return .integer(Int64(count))
        case .min, .max:
            return extreme ?? .null
        case .sum:
            guard count > 0 else { return .null }
            if type == .decimal { return .decimal(exactSum) }
            if type.integerRange != nil {
                guard !hasDecimals, let sum = Int64(exactly: integerSum) else { return .decimal(exactSum) }
                return .integer(sum)
            }
            return .double(doubleSum.value + Double(integerSum))
        case .average:
            guard count > 0 else { return .null }
            if type == .decimal { return .decimal(exactSum / Decimal(count)) }
            if type.integerRange != nil {
                return .double(NSDecimalNumber(decimal: exactSum / Decimal(count)).doubleValue)
            }
            return .double((doubleSum.value + Double(integerSum)) / Double(count))
        }
    }

    /// The integers and decimals added, exactly.
    private var exactSum: Decimal {
        let integers = Int64(exactly: integerSum).map { Decimal($0) } ?? Decimal(string: String(integerSum), locale: Locale(identifier: "en_US_POSIX")) ?? .nan
        return hasDecimals ? decimalSum + integers : integers
    }
}

/// A sum of doubles with the rounding error of each addition carried beside it
/// (Neumaier's summation): the result does not depend on how the values were grouped,
/// beyond its last bits, where a plain sum's error grows with the number of values.
struct CompensatedSum {
    private var sum = 0.0
    private var compensation = 0.0

    mutating func add(_ value: Double) {
        let total = sum + value
        compensation += abs(sum) >= abs(value) ? (sum - total) + value : (value - total) + sum
        sum = total
    }

    mutating func add(_ other: CompensatedSum) {
        add(other.sum)
        compensation += other.compensation
    }

    /// An infinite or NaN sum as it is: its compensation is then NaN.
    var value: Double { sum.isFinite ? sum + compensation : sum }
}
