import Foundation

/// Default values as Xcode's model editor writes them in `defaultValueString` (and, for
/// dates, `defaultDateTimeInterval`): Spec/MODEL.md, M4.
enum XcodeDefaultValue {
    /// The value `text` spells for an attribute of `type`, or nil when it spells none.
    /// Dates are seconds since 2001-01-01 (NSDate's reference date); Xcode offers no
    /// default for binary and transformable attributes, so there is none to read.
    static func parse(_ text: String, as type: AttributeType) -> AttributeValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let number = Int64(text), type.integerRange!.contains(number) else { return nil }
            return .integer(number)
        case .double:
            return Double(text).map { .double($0) }
        case .float:
            return Float(text).map { .float($0) }
        case .decimal:
            return DecimalText.parse(text).map { .decimal($0) }
        case .boolean:
            switch text {
            case "YES": return .bool(true)
            case "NO": return .bool(false)
            default: return nil
            }
        case .string:
            return .string(text)
        case .date:
            guard let seconds = Double(text), seconds.isFinite else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid:
            return UUID(uuidString: text).map { .uuid($0) }
        case .uri:
            return URL(string: text).map { .uri($0) }
        case .binary, .transformable:
            return nil
        }
    }
}
