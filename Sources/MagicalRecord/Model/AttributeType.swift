/// The type of an attribute, with the names Xcode's model editor writes (`Integer 16`,
/// `Boolean`, ...) as raw values, so model files read without a mapping table.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case double = "Double"
    case float = "Float"
    case decimal = "Decimal"
    case boolean = "Boolean"
    case string = "String"
    case date = "Date"
    case binary = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    /// Bytes produced by a value transformer (`attributeValueClassName`).
    case transformable = "Transformable"

    /// The integer types' ranges; nil for the others.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }

    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: return true
        default: return false
        }
    }

    /// Whether `value` is a value of this type (null always is; optionality is the
    /// attribute's business).
    public func accepts(_ value: AttributeValue) -> Bool {
        switch (self, value) {
        case (_, .null): return true
        case (.integer16, .integer(let number)), (.integer32, .integer(let number)), (.integer64, .integer(let number)):
            return integerRange!.contains(number)
        case (.double, .double), (.float, .float), (.decimal, .decimal), (.boolean, .bool), (.string, .string),
             (.date, .date), (.binary, .data), (.transformable, .data), (.uuid, .uuid), (.uri, .uri):
            return true
        default:
            return false
        }
    }
}
