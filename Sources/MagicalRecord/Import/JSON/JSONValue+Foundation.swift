import Foundation

extension JSONValue {
    /// The JSON value of a Foundation object tree, as `JSONSerialization` produces or as
    /// MagicalRecord's `importFromObject:` takes: `[String: Any]`, `[Any]`, `NSNull`,
    /// `String`, `NSNumber` (and `NSDecimalNumber`), `Bool`, the integer types, `Double`,
    /// `Float`, `Decimal`, nil optionals (as null), and ``JSONValue`` itself.
    ///
    /// Booleans stay booleans and numbers numbers, even on Linux where `JSONSerialization`
    /// returns `NSNumber` for both and `1 as? Bool` succeeds: an `NSNumber` is a boolean
    /// only when it is one of the two shared boolean instances (`NSNumber(value: true)`,
    /// `kCFBooleanTrue` on Darwin), which is what `JSONSerialization` and bridging produce.
    /// Integers keep every digit (`Int64.min`, `UInt64.max`, NSDecimalNumber beyond both);
    /// doubles are written in their shortest exact form (`0.1`, `1e+16`). Dictionaries have
    /// no order, so their members are ordered by name.
    ///
    /// Anything else (a `Date`, `Data`, a dictionary with non-string keys, NaN or infinity)
    /// throws ``JSONError/Reason/unsupportedValue(_:path:)`` with its path from the root,
    /// such as `$.people[3].born`; trees nested deeper than
    /// ``JSONReader/defaultMaximumDepth`` throw ``JSONError/Reason/nestingTooDeep(limit:)``.
    /// (An `NSArray` that contains itself cannot be passed: on Linux, Foundation's own
    /// bridging of it to `Any` never ends.)
    public init(foundation object: Any) throws(JSONError) {
        self = try Self.bridge(object, depth: 0)
    }

    private static func bridge(_ object: Any, depth: Int) throws(JSONError) -> JSONValue {
        if let string = object as? String { return .string(string) }
        if type(of: object) is NSNumber.Type, let number = object as? NSNumber { return try bridge(number: number) }
        if let dictionary = object as? [String: Any] {
            return try bridge(members: dictionary.map { ($0.key, $0.value) }, depth: depth)
        }
        if let array = object as? [Any] {
            return try bridge(elements: array, depth: depth)
        }
        switch object {
        case is NSNull: return .null
        case let value as JSONValue: return value
        case let value as JSONNumber: return .number(value)
        case let value as Bool: return .bool(value)
        case let value as Int: return integer(value)
        case let value as Int8: return integer(value)
        case let value as Int16: return integer(value)
        case let value as Int32: return integer(value)
        case let value as Int64: return integer(value)
        case let value as UInt: return integer(value)
        case let value as UInt8: return integer(value)
        case let value as UInt16: return integer(value)
        case let value as UInt32: return integer(value)
        case let value as UInt64: return integer(value)
        case let value as Double: return try floatingPoint(value)
        case let value as Float: return try floatingPoint(value)
        case let value as Decimal: return try decimal(value)
        case let optional as any OptionalValue:
            guard let wrapped = optional.wrapped else { return .null }
            return try bridge(wrapped, depth: depth)
        default:
            throw JSONError(.unsupportedValue("a value of type \(type(of: object))", path: "$"), offset: nil)
        }
    }

    /// An object from members in any order: a Foundation dictionary has none, so they
    /// are sorted by name, for the same value on every run.
    private static func bridge(members: [(String, Any)], depth: Int) throws(JSONError) -> JSONValue {
        try checkDepth(depth)
        let sorted = members.sorted { $0.0 < $1.0 }
        var values: [JSONValue] = []
        values.reserveCapacity(sorted.count)
        for (name, member) in sorted {
            do throws(JSONError) {
                values.append(try bridge(member, depth: depth + 1))
            } catch {
                throw error.inside(Self.isIdentifier(name) ? ".\(name)" : "[\(quoted(name))]")
            }
        }
        // A dictionary's names are unique.
        return .object(JSONObject(names: JSONMemberNames(sorted.map(\.0)), values: values))
    }

    private static func bridge(elements: some Sequence<Any>, depth: Int) throws(JSONError) -> JSONValue {
        try checkDepth(depth)
        var values: [JSONValue] = []
        values.reserveCapacity(elements.underestimatedCount)
        for (index, element) in elements.enumerated() {
            do throws(JSONError) {
                values.append(try bridge(element, depth: depth + 1))
            } catch {
                throw error.inside("[\(index)]")
            }
        }
        return .array(values)
    }

    private static func bridge(number: NSNumber) throws(JSONError) -> JSONValue {
        if number === NSNumber(value: true) { return .bool(true) }
        if number === NSNumber(value: false) { return .bool(false) }
        if let decimal = number as? NSDecimalNumber { return try self.decimal(decimal.decimalValue) }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"): return try floatingPoint(number.doubleValue)
        case UInt8(ascii: "f"): return try floatingPoint(number.floatValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"):
            return integer(number.uint64Value)
        default: return integer(number.int64Value)
        }
    }

    private static func integer(_ value: some BinaryInteger) -> JSONValue {
        if let exact = Int64(exactly: value) { return .number(JSONNumber(integer: exact)) }
        return .number(JSONNumber(text: String(value)))
    }

    private static func floatingPoint<Value: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Value) throws(JSONError) -> JSONValue {
        guard value.isFinite else {
            throw JSONError(.unsupportedValue("the \(Value.self) \(value)", path: "$"), offset: nil)
        }
        return .number(JSONNumber(text: value.description))
    }

    private static func decimal(_ value: Decimal) throws(JSONError) -> JSONValue {
        guard value.isFinite else { throw JSONError(.unsupportedValue("the Decimal NaN", path: "$"), offset: nil) }
        return .number(JSONNumber(text: DecimalText.format(value)))
    }

    private static func checkDepth(_ depth: Int) throws(JSONError) {
        guard depth < JSONReader.defaultMaximumDepth else {
            throw JSONError(.nestingTooDeep(limit: JSONReader.defaultMaximumDepth), offset: nil)
        }
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension JSONError {
    /// The same error one level down a Foundation tree: `component` is `.name` or `[3]`.
    fileprivate func inside(_ component: String) -> JSONError {
        guard case .unsupportedValue(let value, let path) = reason else { return self }
        return JSONError(.unsupportedValue(value, path: "$" + component + path.dropFirst()), offset: offset)
    }
}

/// Lets the bridge see through an `Optional` stored in an `Any`.
private protocol OptionalValue {
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrapped: Any? { self.map { $0 as Any } }
}
