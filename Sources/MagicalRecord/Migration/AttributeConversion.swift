import Foundation

/// How a stored value of one attribute type becomes a value of another in a migration
/// without user code (Spec/MIGRATION.md, "Attribute types").
enum AttributeConversion: Sendable, Equatable {
    /// The stored bytes already read as the new type: same type, or a wider integer.
    case unchanged
    case integerToDouble
    case floatToDouble
    /// Any value to its text (`42`, `1.5`, `true`, ISO 8601 dates, base64 bytes, ...).
    case toString

    /// The conversion from `source` to `target`, or nil when there is none without user code.
    init?(from source: AttributeType, to target: AttributeType) {
        if source == target {
            self = .unchanged
            return
        }
        switch (source, target) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64):
            self = .unchanged
        case (.integer16, .double), (.integer32, .double), (.integer64, .double):
            self = .integerToDouble
        case (.float, .double):
            self = .floatToDouble
        case (_, .string):
            self = .toString
        default:
            return nil
        }
    }

    /// Whether stored records must be rewritten to carry the converted value.
    var rewritesRecords: Bool { self != .unchanged }

    func apply(_ value: AttributeValue) -> AttributeValue {
        switch (self, value) {
        case (_, .null), (.unchanged, _): return value
        case (.integerToDouble, .integer(let number)): return .double(Double(number))
        case (.floatToDouble, .float(let number)): return .double(Double(number))
        case (.toString, _): return .string(Self.text(of: value))
        default: return value
        }
    }

    /// The text a value converts to: what the JSON model description writes for defaults
    /// (Spec/MODEL.md, M12), with numbers as Swift prints them.
    static func text(of value: AttributeValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let number): return String(number)
        case .double(let number): return number.description
        case .float(let number): return number.description
        case .decimal(let number): return number.description
        case .bool(let flag): return flag ? "true" : "false"
        case .string(let text): return text
        case .date(let date): return ISO8601Text.format(date) ?? date.timeIntervalSinceReferenceDate.description
        case .data(let bytes): return bytes.base64EncodedString()
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        }
    }
}
