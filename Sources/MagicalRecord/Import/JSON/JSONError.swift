/// Why JSON could not be read, and where.
///
/// Reading errors carry the byte offset of the problem, counted from the start of the
/// document or stream (0-based), so a user can open the file at that byte. Errors from
/// ``JSONValue/init(foundation:)`` carry no offset; their reason names the path instead.
///
/// ```swift
/// do {
///     let value = try JSONReader().read(data)
/// } catch {
///     print(error) // "trailing comma at byte 40 (allowsTrailingCommas accepts it)"
/// }
/// ```
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: Reason
    /// The byte offset of the problem from the start of the input; nil when it is not about bytes.
    public var offset: Int?

    public init(_ reason: Reason, offset: Int?) {
        self.reason = reason
        self.offset = offset
    }

    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// A byte that cannot come here. The offset is the byte's.
        case unexpectedCharacter(UInt8, expected: Expectation)
        /// The input ended where more was required. The offset is the input's length.
        case unexpectedEnd(expected: Expectation)
        /// The input ended inside a string. The offset is the opening quote's.
        case unterminatedString
        /// A comma before `]` or `}` (RFC 8259 has none). The offset is the comma's.
        case trailingComma
        /// A backslash followed by something other than `"\/bfnrtu`. The offset is the backslash's.
        case invalidEscape(UInt8)
        /// `\u` not followed by four hexadecimal digits. The offset is the backslash's.
        case invalidUnicodeEscape
        /// A `\uD800`-`\uDFFF` escape that is not half of a high-low pair. The offset is
        /// the backslash's.
        case loneSurrogate(UInt16)
        /// A byte below 0x20 inside a string, which JSON requires to be escaped.
        case controlCharacterInString(UInt8)
        /// A number such as `012`. The offset is the zero's.
        case leadingZero
        /// Arrays and objects nested deeper than the reader's `maximumDepth`. The offset
        /// is the bracket that went one level too deep.
        case nestingTooDeep(limit: Int)
        /// Bytes in a string that are not well-formed UTF-8. The offset is the first
        /// byte of the ill-formed sequence.
        case invalidUTF8
        /// Reading the stream's source failed; the text is the system's message.
        case readFailed(String)
        /// A Foundation value with no JSON equivalent (a `Date`, a dictionary with
        /// non-string keys, an infinite `Double`...), at a path such as `$.people[3].born`.
        case unsupportedValue(String, path: String)
    }

    /// What the reader was looking for when it met an unexpected byte or the end.
    public enum Expectation: Sendable, Equatable {
        case value
        case commaOrClosingBracket
        case commaOrClosingBrace
        case memberName
        case colon
        case digitAfterMinus
        case digitAfterDecimalPoint
        case exponentDigit
        /// The rest of `true`, `false` or `null`.
        case literal(String)
        /// Only whitespace may follow the document's value.
        case endOfInput
        /// A stream holds an array or an object (``JSONArrayStream``).
        case arrayOrObject
    }

    public var description: String {
        let at = offset.map { " at byte \($0)" } ?? ""
        switch reason {
        case .unexpectedCharacter(let byte, let expected):
            return "unexpected \(Self.describe(byte))\(at), expected \(expected)"
        case .unexpectedEnd(let expected):
            return "unexpected end of input\(at), expected \(expected)"
        case .unterminatedString:
            return "unterminated string starting\(at)"
        case .trailingComma:
            return "trailing comma\(at) (allowsTrailingCommas accepts it)"
        case .invalidEscape(let byte):
            let shown = (0x21...0x7E).contains(byte) ? "'\\\(Character(Unicode.Scalar(byte)))'" : "'\\' then \(Self.describe(byte))"
            return "invalid escape \(shown)\(at)"
        case .invalidUnicodeEscape:
            return "invalid \\u escape\(at), expected four hexadecimal digits"
        case .loneSurrogate(let unit):
            return "lone surrogate \\u\(Self.hex(unit))\(at), expected a \\uD800-\\uDBFF \\uDC00-\\uDFFF pair"
        case .controlCharacterInString(let byte):
            return "unescaped control character 0x\(Self.hex(UInt16(byte), digits: 2)) in string\(at)"
        case .leadingZero:
            return "number with a leading zero\(at)"
        case .nestingTooDeep(let limit):
            return "arrays and objects nested deeper than \(limit) levels\(at)"
        case .invalidUTF8:
            return "invalid UTF-8\(at)"
        case .readFailed(let message):
            return "could not read the input\(at): \(message)"
        case .unsupportedValue(let value, let path):
            return "\(value) at \(path) has no JSON equivalent"
        }
    }

    /// `character 'x'` for printable ASCII, `byte 0xFF` otherwise.
    private static func describe(_ byte: UInt8) -> String {
        (0x20...0x7E).contains(byte) ? "character '\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(UInt16(byte), digits: 2))"
    }

    private static func hex(_ value: UInt16, digits: Int = 4) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

extension JSONError.Expectation: CustomStringConvertible {
    public var description: String {
        switch self {
        case .value: "a value"
        case .commaOrClosingBracket: "',' or ']'"
        case .commaOrClosingBrace: "',' or '}'"
        case .memberName: "a member name in double quotes"
        case .colon: "':'"
        case .digitAfterMinus: "a digit after '-'"
        case .digitAfterDecimalPoint: "a digit after '.'"
        case .exponentDigit: "a digit in the exponent"
        case .literal(let word): "'\(word)'"
        case .endOfInput: "the end of the input after the value"
        case .arrayOrObject: "'[' or '{'"
        }
    }
}
