import Foundation

/// What the collection operators compute (Spec/PREDICATES.md, P24).
extension PredicateAggregate {
    /// The aggregate of the values a to-many key path gathered. Nil gathered (a nil to-one
    /// on the way) counts as no elements.
    func apply(to gathered: PredicateValue, describing expression: ObjectExpression) throws(ObjectPredicateError) -> PredicateValue {
        let elements: [PredicateValue]
        switch gathered {
        case .collection(let values): elements = values
        case _ where gathered.isNull: elements = []
        default: throw .evaluation("\(expression) needs a to-many key path, but it gave a single value")
        }
        switch self {
        case .count: return .attribute(.integer(Int64(elements.count)))
        case .sum: return .attribute(try Self.sum(try Self.values(elements, expression), expression))
        case .average: return .attribute(try Self.average(try Self.values(elements, expression), expression))
        case .minimum: return .attribute(try Self.extreme(try Self.values(elements, expression), keeping: .orderedAscending, expression))
        case .maximum: return .attribute(try Self.extreme(try Self.values(elements, expression), keeping: .orderedDescending, expression))
        }
    }

    /// The non-null attribute values among the elements (objects are refused).
    private static func values(_ elements: [PredicateValue], _ expression: ObjectExpression) throws(ObjectPredicateError) -> [AttributeValue] {
        var values: [AttributeValue] = []
        for element in elements {
            guard case .attribute(let value) = element else {
                throw .evaluation("\(expression) needs attribute values, but the key path gave objects")
            }
            if !value.isNull { values.append(value) }
        }
        return values
    }

    /// Integers (and booleans) add up exactly, as an integer while the total fits in 64
    /// bits and as a decimal beyond; decimals add up as decimals; any double or float
    /// makes the sum a double.
    private static func sum(_ values: [AttributeValue], _ expression: ObjectExpression) throws(ObjectPredicateError) -> AttributeValue {
        var integerTotal: Int64? = 0
        var decimalTotal = Decimal(0)
        var doubleTotal = 0.0
        var sawBinaryFloatingPoint = false
        for value in values {
            switch value {
            case .integer, .bool:
                let number: Int64
                if case .integer(let integer) = value { number = integer } else { number = value.doubleValue == 1 ? 1 : 0 }
                integerTotal = integerTotal.flatMap { total in
                    let (result, overflow) = total.addingReportingOverflow(number)
                    return overflow ? nil : result
                }
                decimalTotal += Decimal(number)
            case .decimal(let decimal):
                integerTotal = nil
                decimalTotal += decimal
            case .double, .float:
                sawBinaryFloatingPoint = true
            default:
                throw .evaluation("\(expression) needs numbers, got \(value.kindDescription)")
            }
            doubleTotal += value.doubleValue ?? 0
        }
        if sawBinaryFloatingPoint { return .double(doubleTotal) }
        return integerTotal.map(AttributeValue.integer) ?? .decimal(decimalTotal)
    }

    /// The mean: a decimal when every value is an integer, boolean or decimal (exact for
    /// 38 digits), a double otherwise; null for no values.
    private static func average(_ values: [AttributeValue], _ expression: ObjectExpression) throws(ObjectPredicateError) -> AttributeValue {
        guard !values.isEmpty else { return .null }
        switch try sum(values, expression) {
        case .double(let total): return .double(total / Double(values.count))
        case let total: return .decimal((total.decimalValue ?? 0) / Decimal(values.count))
        }
    }

    /// The least (or greatest) value in ``AttributeValue/compare(_:_:)`` order; null for none.
    private static func extreme(
        _ values: [AttributeValue], keeping wanted: ComparisonResult, _ expression: ObjectExpression
    ) throws(ObjectPredicateError) -> AttributeValue {
        guard var best = values.first else { return .null }
        for value in values.dropFirst() {
            guard let order = AttributeValue.compare(value, best) else {
                throw .evaluation("\(expression) cannot order \(value.kindDescription) against \(best.kindDescription)")
            }
            if order == wanted { best = value }
        }
        return best
    }
}
