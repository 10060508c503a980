import Foundation

/// Turns JSON values into one attribute's values, strictly: a value that does not say
/// exactly what the attribute holds is an ``ImportValueError``, never a guess (MagicalRecord
/// read `"12abc"` as 12 and `"abc"` as 0, and cleared dates it could not parse).
///
/// Made once per attribute, it resolves the user-info keys up front (the `dateFormat`
/// pattern, compiled; the `attributeValueClassName` transformer, looked up), so converting
/// a value costs no lookup. It is a `Sendable` value for use from any thread, and keeps
/// what it resolved: register transformers before making it.
///
/// The rules, per attribute type (JSON `null` is always ``AttributeValue/null``: the
/// importer decides what null means for the attribute):
///
/// - **Integer 16/32/64**: JSON numbers and numeric strings whose value is a whole number,
///   exactly, also beyond 2^53: `42`, `"42"`, `"0042"`, `"+42"`, and `42.0`, `"4.2e1"`,
///   `1e3` (JSON writers disagree on how to spell whole numbers); then range-checked.
///   `"12abc"`, `"abc"`, `" 42"`, `1.5`, `true` are errors.
/// - **Double, Float**: numbers and numeric strings, rounded to the nearest; beyond the
///   type's range is an error (not infinity). No `NaN` or `Infinity`. Booleans are not
///   numbers for any numeric type.
/// - **Decimal**: numbers and numeric strings, exactly from the text; more than 38
///   significant digits is an error rather than a rounding.
/// - **String**: strings; numbers as written (`10248909829` → `"10248909829"`, `1.0` →
///   `"1.0"`); booleans as `"true"` and `"false"` (JSON's spelling, not NSNumber's "1").
/// - **Boolean**: booleans; the numbers 0 and 1 (`1.0` too; `2` is an error); the strings
///   `true` `false` `yes` `no` `1` `0` in any case.
/// - **Date**: strings through the `dateFormat` pattern (default
///   ``DateFormatPattern/importDefault``; see ``DateFormatPattern``); numbers as seconds
///   since 1970, fractions allowed. With `dateFormat` `UnixTime`, numbers and numeric
///   strings are milliseconds since 1970. Dates outside years 1...9999 are errors, which
///   catches milliseconds sent where seconds were expected.
/// - **UUID**: strings in the 8-4-4-4-12 hex form, any case.
/// - **URI**: strings `URL(string:)` accepts.
/// - **Binary**: base64 strings (standard alphabet; the `=` padding may be left off).
/// - **Transformable**: only through a value transformer (below).
///
/// An attribute whose `attributeValueClassName` user-info key matches a registered
/// ``ImportValueTransformers`` name converts through that transformer, whatever its type,
/// and must get a value its type holds. With no match, Transformable attributes refuse every
/// value and the others convert by the rules above.
///
/// Arrays and objects convert only through a transformer: for the others they are errors
/// naming the kind (`an array cannot be converted to Integer 16`).
///
/// Immutable, and a class: an import converts every value through one, and a reference is
/// one retain where a copy of the attribute description and rule was many.
public final class ImportConversion: Sendable {
    public let attribute: AttributeDescription
    private let rule: Rule

    private enum Rule: Sendable {
        case integer, double, float, decimal, boolean, string, date(DateRule), uuid, uri, binary
        case transformer(className: String, ImportValueTransform)
        /// A Transformable attribute with no transformer; the class name it asked for.
        case noTransformer(className: String?)
    }

    /// `dateFormat` `UnixTime`: numbers are milliseconds (MagicalRecord's key and value).
    static let unixTimeFormat = "UnixTime"

    /// The rule's cases records use most, as plain values (see ``commonValue(from:)``).
    private enum CommonRule {
        case integer(ClosedRange<Int64>)
        case double
        case string
        /// Unretained: `rule` holds the pattern as long as the conversion lives.
        case date(Unmanaged<DateFormatPattern>)
        case other
    }

    private let common: CommonRule

    public init(_ attribute: AttributeDescription) {
        self.attribute = attribute
        rule = Self.rule(for: attribute)
        common = switch rule {
        case .integer: attribute.type.integerRange.map(CommonRule.integer) ?? .other
        case .double: .double
        case .string: .string
        case .date(.pattern(let pattern)): .date(Unmanaged.passUnretained(pattern))
        default: .other
        }
    }

    private static func rule(for attribute: AttributeDescription) -> Rule {
        let className = attribute.userInfo[UserInfoKey.attributeValueClassName]
        if let className, let transform = ImportValueTransformers.transform(forClassName: className) {
            return .transformer(className: className, transform)
        }
        switch attribute.type {
        case .integer16, .integer32, .integer64: return .integer
        case .double: return .double
        case .float: return .float
        case .decimal: return .decimal
        case .boolean: return .boolean
        case .string: return .string
        case .date: return .date(DateRule(format: attribute.userInfo[UserInfoKey.dateFormat]))
        case .uuid: return .uuid
        case .uri: return .uri
        case .binary: return .binary
        case .transformable: return .noTransformer(className: className)
        }
    }

    /// Whether ``commonDate(_:)`` reads this attribute's strings: a date through a pattern.
    var readsDatesFromBytes: Bool {
        if case .date = common { return true }
        return false
    }

    /// The date a string of these bytes converts to, as ``value(from:)`` converts it; nil
    /// when it does not (``value(from:)`` then says why) or the attribute is not a date
    /// read through a pattern.
    @inline(__always)
    func commonDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard case .date(let pattern) = common else { return nil }
        return pattern._withUnsafeGuaranteedRef { pattern in
            guard case .success(let date) = pattern.parse(bytes) else { return nil }
            return date
        }
    }

    /// `json` as ``value(from:)`` converts it, for the values records hold most: an integer
    /// in range for an integer attribute, a number kept as a value for a Double, a string
    /// for a String, a string the pattern reads for a date. Nil for anything else, and for
    /// a value that does not convert: ``value(from:)`` then converts it or says why not.
    /// The general rule's switch copied its payloads and built a result that could carry
    /// an error for every value (a seventh of planning a record).
    @inline(__always)
    func commonValue(from json: JSONValue) -> AttributeValue? {
        switch common {
        case .integer(let range):
            guard case .number(let number) = json, let value = number.storedInteger, range.contains(value) else { return nil }
            return .integer(value)
        case .double:
            guard case .number(let number) = json, let value = number.storedInteger.map(Double.init) ?? number.storedDecimal else { return nil }
            return .double(value)
        case .string:
            guard case .string(let string) = json else { return nil }
            return .string(string)
        case .date:
            guard case .string(let string) = json, let date = string.utf8.withContiguousStorageIfAvailable(commonDate) ?? nil else { return nil }
            return .date(date)
        case .other:
            return nil
        }
    }

    /// `json` as the attribute's value, or why it cannot be.
    public func value(from json: JSONValue) throws(ImportValueError) -> AttributeValue {
        if case .null = json { return .null }
        let type = attribute.type
        switch rule {
        case .integer: return .integer(try Self.integer(json, type: type))
        case .double: return .double(try Self.double(json))
        case .float: return .float(try Self.float(json))
        case .decimal: return .decimal(try Self.decimal(json))
        case .boolean: return .bool(try Self.boolean(json))
        case .string: return .string(try Self.string(json))
        case .date(let dateRule): return .date(try dateRule.date(json))
        case .uuid: return .uuid(try Self.uuid(json))
        case .uri: return .uri(try Self.uri(json))
        case .binary: return .data(try Self.binary(json))
        case .transformer(let className, let transform):
            let value = try transform(json)
            guard type.accepts(value) else {
                throw ImportValueError(
                    "the value transformer for \(className) made \(Self.kind(of: value)), which an attribute of type \(type.rawValue) cannot hold"
                )
            }
            return value
        case .noTransformer(let className):
            guard let className else {
                throw ImportValueError(
                    "a Transformable attribute needs an attributeValueClassName user-info key naming a registered value transformer"
                )
            }
            throw ImportValueError(
                "no value transformer is registered for attributeValueClassName \(className) (see ImportValueTransformers.register)"
            )
        }
    }

    /// One value for `attribute`; an importer converting many should keep an
    /// `ImportConversion(attribute)` instead.
    public static func value(from json: JSONValue, for attribute: AttributeDescription) throws(ImportValueError) -> AttributeValue {
        try ImportConversion(attribute).value(from: json)
    }

    private static func string(_ json: JSONValue) throws(ImportValueError) -> String {
        switch json {
        case .string(let string): return string
        case .number(let number): return number.text
        case .bool(let flag): return flag ? "true" : "false"
        default: throw .cannotConvert(json, to: .string)
        }
    }

    private static func boolean(_ json: JSONValue) throws(ImportValueError) -> Bool {
        switch json {
        case .bool(let flag):
            return flag
        case .number(let number):
            guard let value = number.int64Value, value == 0 || value == 1 else {
                throw ImportValueError("\(number.text) is not a boolean (0 or 1)")
            }
            return value == 1
        case .string(let string):
            switch string.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw ImportValueError("\(ImportValueError.quote(string)) is not a boolean (true/false, yes/no or 1/0)")
            }
        default:
            throw .cannotConvert(json, to: .boolean)
        }
    }

    private static func uuid(_ json: JSONValue) throws(ImportValueError) -> UUID {
        guard case .string(let string) = json else { throw .cannotConvert(json, to: .uuid) }
        guard let uuid = UUID(uuidString: string) else { throw ImportValueError("\(ImportValueError.quote(string)) is not a UUID") }
        return uuid
    }

    private static func uri(_ json: JSONValue) throws(ImportValueError) -> URL {
        guard case .string(let string) = json else { throw .cannotConvert(json, to: .uri) }
        guard let url = URL(string: string) else { throw ImportValueError("\(ImportValueError.quote(string)) is not a URI") }
        return url
    }

    private static func binary(_ json: JSONValue) throws(ImportValueError) -> Data {
        guard case .string(let string) = json else { throw .cannotConvert(json, to: .binary) }
        let padding = (4 - string.utf8.count % 4) % 4
        guard padding < 3, let data = Data(base64Encoded: padding == 0 ? string : string + String(repeating: "=", count: padding)) else {
            throw ImportValueError("\(ImportValueError.quote(string)) is not base64")
        }
        return data
    }

    private static func kind(of value: AttributeValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let number): return "the integer \(number)"
        case .double, .float, .decimal: return "a number"
        case .bool: return "a boolean"
        case .string: return "a string"
        case .date: return "a date"
        case .data: return "data"
        case .uuid: return "a UUID"
        case .uri: return "a URI"
        }
    }
}
