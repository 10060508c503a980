import Foundation

/// Converts a value to an attribute's type when that loses nothing: the rule behind
/// ``ManagedObject/setValue(_:forKey:)``.
enum AttributeCoercion {
    static func convert(_ value: AttributeValue, to type: AttributeType) -> AttributeValue? {
        if type.accepts(value) { return value }
        switch (type, value) {
        case (.integer16, _), (.integer32, _), (.integer64, _):
            guard let integer = exactInteger(value), type.integerRange!.contains(integer) else { return nil }
            return .integer(integer)
        case (.double, .integer(let number)):
            return Double(exactly: number).map { .double($0) }
        case (.double, .float(let number)):
            return .double(Double(number))
        case (.float, .integer(let number)):
            return Float(exactly: number).map { .float($0) }
        case (.float, .double(let number)):
            return Float(exactly: number).map { .float($0) } ?? (number.isNaN ? .float(.nan) : nil)
        case (.decimal, .integer(let number)):
            return .decimal(Decimal(number))
        case (.decimal, .double(let number)) where number.isFinite:
            return .decimal(Decimal(number))
        case (.boolean, .integer(let number)) where number == 0 || number == 1:
            return .bool(number == 1)
        case (.transformable, .data), (.binary, .data):
            return value
        default:
            return nil
        }
    }

    private static func exactInteger(_ value: AttributeValue) -> Int64? {
        switch value {
        case .integer(let number): return number
        case .double(let number): return Int64(exactly: number)
        case .float(let number): return Int64(exactly: number)
        case .decimal(let number):
            let rounded = NSDecimalNumber(decimal: number)
            return Decimal(rounded.int64Value) == number ? rounded.int64Value : nil
        case .bool(let flag): return flag ? 1 : 0
        default: return nil
        }
    }
}
