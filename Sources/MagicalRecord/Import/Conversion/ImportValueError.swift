/// Why one JSON value could not become an attribute's value: `"12abc" is not an integer`,
/// `70000 is out of range for Integer 16`, `"31/02/2020" does not match date format
/// dd/MM/yyyy: February 2020 has no day 31`.
///
/// The reason speaks of the value only; the importer adds the entity, attribute, key path
/// and record index around it.
public struct ImportValueError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

extension ImportValueError {
    /// A JSON value as error messages show it: numbers as written, strings quoted (cut at
    /// 64 characters, so a stray base64 blob does not flood the log), containers by kind.
    static func show(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.text
        case .string(let string): return quote(string)
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    static func quote(_ text: String) -> String {
        let limit = 64
        guard text.count > limit else { return "\"\(text)\"" }
        return "\"\(text.prefix(limit))…\""
    }

    /// `true cannot be converted to Date`, `an array cannot be converted to Integer 16`.
    static func cannotConvert(_ value: JSONValue, to type: AttributeType) -> ImportValueError {
        ImportValueError("\(show(value)) cannot be converted to \(type.rawValue)")
    }
}
