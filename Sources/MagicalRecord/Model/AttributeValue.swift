import Foundation

/// One attribute's value, as fetched, stored, compared and sorted.
///
/// Integers of every width are `.integer`; the attribute's ``AttributeType`` bounds them.
public enum AttributeValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case float(Float)
    case decimal(Decimal)
    case bool(Bool)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(URL)

    /// What dictionaries and sets of values hash with: an integer (the usual key) mixed
    /// alone (``IntegerHash``), any other value as `hash(into:)` hashes it.
    public func _rawHashValue(seed: Int) -> Int {
        guard case .integer(let number) = self else {
            var hasher = Hasher()
            hasher.combine(seed)
            hash(into: &hasher)
            return hasher.finalize()
        }
        return IntegerHash.mixed(number, seed: seed)
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a Double when it is a number (booleans count as 0 and 1, as NSNumber
    /// does); nil otherwise.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        case .float(let value): return Double(value)
        case .decimal(let value): return NSDecimalNumber(decimal: value).doubleValue
        case .bool(let value): return value ? 1 : 0
        default: return nil
        }
    }

    /// The value of an integer attribute; nil for anything else.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// Compares two values the way fetches filter and sort them: numbers of any kind by
    /// magnitude (exactly, also beyond 2^53), strings by Unicode scalar (UTF-8 byte) order
    /// like the engine's key encoding, dates by time. Null sorts before everything. Nil
    /// when the two cannot be compared (a string and a number, say).
    public static func compare(_ left: AttributeValue, _ right: AttributeValue) -> ComparisonResult? {
        switch (left, right) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case let (.string(a), .string(b)): return compareUTF8(a, b)
        case let (.date(a), .date(b)): return order(a, b)
        case let (.data(a), .data(b)): return compareBytes(a, b)
        case let (.uuid(a), .uuid(b)): return compareUTF8(a.uuidString, b.uuidString)
        case let (.uri(a), .uri(b)): return compareUTF8(a.absoluteString, b.absoluteString)
        case let (.integer(a), .integer(b)): return order(a, b)
        case let (.decimal(a), .decimal(b)): return order(a, b)
        case let (.decimal(a), _):
            guard let b = right.decimalValue else { return nil }
            return order(a, b)
        case let (_, .decimal(b)):
            guard let a = left.decimalValue else { return nil }
            return order(a, b)
        case let (.integer(a), _):
            guard let b = right.doubleValue else { return nil }
            return compareExactly(a, b)
        case let (_, .integer(b)):
            guard let a = left.doubleValue else { return nil }
            return compareExactly(b, a).map(\.reversed)
        default:
            guard let a = left.doubleValue, let b = right.doubleValue else { return nil }
            return orderDoubles(a, b)
        }
    }

    /// Equality for predicates: numbers equal across kinds (`1 == 1.0 == true`), otherwise
    /// as ``compare(_:_:)``.
    public static func matches(_ left: AttributeValue, _ right: AttributeValue) -> Bool {
        compare(left, right) == .orderedSame
    }

    var decimalValue: Decimal? {
        switch self {
        case .integer(let value): return Decimal(value)
        case .decimal(let value): return value
        case .bool(let value): return value ? 1 : 0
        case .double(let value): return value.isFinite ? Decimal(value) : nil
        case .float(let value): return value.isFinite ? Decimal(Double(value)) : nil
        default: return nil
        }
    }
}

extension ComparisonResult {
    var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}

func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
    a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
}

/// NaN sorts above every number, as the key encoding orders it.
func orderDoubles(_ a: Double, _ b: Double) -> ComparisonResult {
    if a.isNaN || b.isNaN { return order(a.isNaN ? 1 : 0, b.isNaN ? 1 : 0) }
    return order(a, b)
}

/// An Int64 against a Double without rounding the integer to 53 bits.
func compareExactly(_ integer: Int64, _ double: Double) -> ComparisonResult? {
    if double.isNaN { return .orderedAscending }
    if double >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
    if double < -9_223_372_036_854_775_808.0 { return .orderedDescending }
    let truncated = Int64(double.rounded(.towardZero))
    if integer != truncated { return order(integer, truncated) }
    let fraction = double - double.rounded(.towardZero)
    return fraction > 0 ? .orderedAscending : (fraction < 0 ? .orderedDescending : .orderedSame)
}

/// Strings order by their UTF-8 bytes, compared with `memcmp` where both strings hold
/// them contiguously, as native strings do: walking both UTF-8 views a byte at a time was
/// most of a sort by name. Any other string is copied out first.
private func compareUTF8(_ a: String, _ b: String) -> ComparisonResult {
    let inPlace = a.utf8.withContiguousStorageIfAvailable { left in
        b.utf8.withContiguousStorageIfAvailable { right in compareMemory(left, right) }
    }
    if let order = inPlace ?? nil { return order }
    return Array(a.utf8).withUnsafeBufferPointer { left in
        Array(b.utf8).withUnsafeBufferPointer { right in compareMemory(left, right) }
    }
}

private func compareMemory(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
    let common = min(left.count, right.count)
    if common > 0, let x = left.baseAddress, let y = right.baseAddress {
        let bytes = memcmp(x, y, common)
        if bytes != 0 { return bytes < 0 ? .orderedAscending : .orderedDescending }
    }
    return order(left.count, right.count)
}

private func compareBytes(_ a: Data, _ b: Data) -> ComparisonResult {
    for (x, y) in zip(a, b) where x != y { return x < y ? .orderedAscending : .orderedDescending }
    return order(a.count, b.count)
}
