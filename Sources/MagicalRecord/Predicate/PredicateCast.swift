import Foundation

/// `CAST(value, "Type")`: constants that have no literal of their own, in both directions
/// (Spec/PREDICATES.md, P9). The parser converts with ``convert(_:to:valueOffset:typeOffset:)``;
/// the formatter writes with ``literal(_:)``.
enum PredicateCast {
    static let typeNames = [
        "NSDate", "NSNumber", "NSDecimalNumber", "NSString", "NSData", "NSUUID", "NSURL", "NSManagedObjectID", "Float",
    ]

    static func convert(
        _ value: AttributeValue, to typeName: String, valueOffset: Int, typeOffset: Int
    ) throws(ObjectPredicateError) -> ObjectExpression {
        let converted: ObjectExpression?
        switch (typeName, value) {
        case ("NSDate", .string(let text)):
            converted = PredicateCoercion.date(fromISO8601: text).map { .constant(.date($0)) }
        case ("NSDate", _):
            converted = value.doubleValue.map { .constant(.date(Date(timeIntervalSinceReferenceDate: $0))) }
        case ("NSNumber", .string(let text)):
            converted = (Int64(text).map(AttributeValue.integer) ?? Double(text).map(AttributeValue.double)).map { .constant($0) }
        case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .float), ("NSNumber", .decimal), ("NSNumber", .bool):
            converted = .constant(value)
        case ("NSDecimalNumber", .string(let text)):
            converted = decimal(from: text).map { .constant(.decimal($0)) }
        case ("NSDecimalNumber", _):
            converted = value.decimalValue.map { .constant(.decimal($0)) }
        case ("Float", .string(let text)):
            converted = Float(text).map { .constant(.float($0)) }
        case ("Float", _):
            converted = value.doubleValue.map { .constant(.float(Float($0))) }
        case ("NSString", .string), ("NSString", .integer), ("NSString", .double):
            converted = .constant(.string(value.plainText))
        case ("NSData", .string(let text)):
            converted = Data(base64Encoded: text).map { .constant(.data($0)) }
        case ("NSUUID", .string(let text)):
            converted = UUID(uuidString: text).map { .constant(.uuid($0)) }
        case ("NSURL", .string(let text)):
            converted = URL(string: text).map { .constant(.uri($0)) }
        case ("NSManagedObjectID", .string(let text)):
            converted = ObjectID(uriRepresentation: text).map { .object($0) }
        default:
            guard typeNames.contains(typeName) else {
                throw .syntax(
                    "unknown CAST type \(quoted(typeName)); expected one of \(typeNames.joined(separator: ", "))",
                    offset: typeOffset
                )
            }
            converted = nil
        }
        guard let converted else {
            throw .syntax("cannot CAST \(value.plainText.isEmpty ? value.kindDescription : quoted(value.plainText)) to \(typeName)", offset: valueOffset)
        }
        return converted
    }

    /// How the formatter writes a constant: a literal when there is one (`42`, `1.5`, `"x"`,
    /// `nil`, `YES`), a CAST otherwise. Parsing the result gives back an equal value.
    static func literal(_ value: AttributeValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let flag): return flag ? "YES" : "NO"
        case .integer(let number): return String(number)
        case .double(let number):
            return number.isFinite ? number.description : cast(quoted(number.description), "NSNumber")
        case .float(let number): return cast(quoted(number.description), "Float")
        case .decimal(let number): return cast(quoted(number.description), "NSDecimalNumber")
        case .string(let text): return quoted(text)
        case .date(let date): return cast(literal(.double(date.timeIntervalSinceReferenceDate)), "NSDate")
        case .data(let bytes): return cast(quoted(bytes.base64EncodedString()), "NSData")
        case .uuid(let id): return cast(quoted(id.uuidString), "NSUUID")
        case .uri(let url): return cast(quoted(url.absoluteString), "NSURL")
        }
    }

    static func literal(_ id: ObjectID) -> String {
        cast(quoted(id.uriRepresentation), "NSManagedObjectID")
    }

    private static func cast(_ value: String, _ typeName: String) -> String {
        "CAST(\(value), \(quoted(typeName)))"
    }

    /// A decimal number written plainly (`-12.5`, `1e30`); `Decimal(string:)` alone also
    /// takes text with trailing garbage.
    private static func decimal(from text: String) -> Decimal? {
        var rest = Substring(text)
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        let mantissa = rest.prefix { $0 != "e" && $0 != "E" }
        let exponent = rest.dropFirst(mantissa.count)
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.contains(where: { !$0.isEmpty }),
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isWholeNumber } })
        else { return nil }
        if !exponent.isEmpty {
            var digits = exponent.dropFirst()
            if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { return nil }
        }
        return Decimal(string: text)
    }
}

extension AttributeValue {
    /// Numbers and strings as plain text (for CAST to NSString and messages); "" otherwise.
    var plainText: String {
        switch self {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number): return number.description
        case .float(let number): return number.description
        case .decimal(let number): return number.description
        default: return ""
        }
    }
}

extension PredicateParser {
    /// After `CAST`: `(value, "Type")`, the value a number, a string or an argument.
    mutating func parseCast() throws(ObjectPredicateError) -> ObjectExpression {
        try expect(.leftParenthesis)
        let valueOffset = token.offset
        let value: AttributeValue
        switch token.kind {
        case .string(let text):
            try advance()
            value = .string(text)
        case .symbol(.minus), .integer, .real:
            value = try parseNumber()
        case .specifier(let specifier) where specifier.conversion != .keyPath:
            try advance()
            guard case .value(let argument) = try takeArgument(for: specifier, at: valueOffset) else {
                throw .argument("CAST takes a single value, not an object ID or a list", offset: valueOffset)
            }
            value = argument
        default:
            throw .syntax("expected a number or a string to CAST", offset: valueOffset)
        }
        try expect(.comma)
        let typeOffset = token.offset
        guard case .string(let typeName) = token.kind else {
            throw .syntax("expected a type name such as \"NSDate\"", offset: typeOffset)
        }
        try advance()
        try expect(.rightParenthesis)
        return try PredicateCast.convert(value, to: typeName, valueOffset: valueOffset, typeOffset: typeOffset)
    }
}
