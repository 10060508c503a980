import Foundation

extension AttributeValue {
    /// The value as JSON text: numbers as numbers (decimals exactly, non-finite ones as
    /// `null`), dates as ISO 8601 UTC strings (`2005-01-13T13:31:00Z`), data as base64,
    /// UUIDs and URIs as strings.
    public var jsonText: String {
        switch self {
        case .null: return "null"
        case .integer(let number): return String(number)
        case .double(let number): return number.isFinite ? "\(number)" : "null"
        case .float(let number): return number.isFinite ? "\(number)" : "null"
        case .decimal(let number): return number.isNaN ? "null" : DecimalText.format(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .string(let text): return Self.jsonString(text)
        case .date(let date): return ISO8601Text.format(date).map(Self.jsonString) ?? "null"
        case .data(let bytes): return Self.jsonString(bytes.base64EncodedString())
        case .uuid(let uuid): return Self.jsonString(uuid.uuidString)
        case .uri(let url): return Self.jsonString(url.absoluteString)
        }
    }

    /// `text` as a JSON string literal, escaped as RFC 8259 requires.
    public static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
