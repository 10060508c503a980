import Foundation

/// Numbers from JSON numbers and numeric strings: integers exact and range-checked,
/// floating point rounded to the nearest, decimals exact (see ``ImportConversion``).
extension ImportConversion {
    static func integer(_ json: JSONValue, type: AttributeType) throws(ImportValueError) -> Int64 {
        guard let number = NumericText.number(json) else {
            if case .string(let string) = json { throw ImportValueError("\(ImportValueError.quote(string)) is not an integer") }
            throw .cannotConvert(json, to: type)
        }
        guard let value = number.int64Value else {
            // Not whole, or whole but past Int64: say which.
            let isWhole = number.doubleValue.map { $0.rounded(.towardZero) == $0 && $0.magnitude >= 0x1p63 } ?? true
            throw ImportValueError(isWhole
                ? "\(ImportValueError.show(json)) is out of range for \(type.rawValue)"
                : "\(ImportValueError.show(json)) is not an integer")
        }
        guard let range = type.integerRange, range.contains(value) else {
            throw ImportValueError("\(ImportValueError.show(json)) is out of range for \(type.rawValue)")
        }
        return value
    }

    static func double(_ json: JSONValue) throws(ImportValueError) -> Double {
        let number = try numeric(json, for: .double)
        guard let value = number.doubleValue else { throw ImportValueError("\(ImportValueError.show(json)) is out of range for Double") }
        return value
    }

    static func float(_ json: JSONValue) throws(ImportValueError) -> Float {
        let number = try numeric(json, for: .float)
        guard let value = Float(number.text), value.isFinite else {
            throw ImportValueError("\(ImportValueError.show(json)) is out of range for Float")
        }
        return value
    }

    static func decimal(_ json: JSONValue) throws(ImportValueError) -> Decimal {
        let number = try numeric(json, for: .decimal)
        guard let value = number.decimalValue else {
            throw ImportValueError(
                "\(ImportValueError.show(json)) cannot be held exactly by Decimal (38 significant digits, magnitudes about 1e-128 to 1e165)"
            )
        }
        return value
    }

    private static func numeric(_ json: JSONValue, for type: AttributeType) throws(ImportValueError) -> JSONNumber {
        guard let number = NumericText.number(json) else {
            if case .string(let string) = json { throw ImportValueError("\(ImportValueError.quote(string)) is not a number") }
            throw .cannotConvert(json, to: type)
        }
        return number
    }
}

/// Numeric strings: `[+-]digits[.digits][(e|E)[+-]digits]`, nothing around them. Leading
/// zeros and a plus sign are accepted (`"0042"`, `"+1.5"`), as spreadsheets and form
/// fields write them; whitespace, thousands separators, hex, `NaN` and `Infinity` are not.
enum NumericText {
    /// A JSON number as is, a numeric string as the JSON number it spells; nil otherwise.
    static func number(_ json: JSONValue) -> JSONNumber? {
        switch json {
        case .number(let number): return number
        case .string(let string): return number(string)
        default: return nil
        }
    }

    /// The string as JSON number syntax (plus sign and redundant leading zeros dropped),
    /// or nil when it is not a number.
    static func number(_ string: String) -> JSONNumber? {
        let bytes = Array(string.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index - start
        }
        var isNegative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            isNegative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var integerStart = index
        guard digits() > 0 else { return nil }
        while integerStart < index - 1, bytes[integerStart] == UInt8(ascii: "0") { integerStart += 1 }
        let integerEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == bytes.count else { return nil }
        if !isNegative, integerStart == 0 { return JSONNumber(text: string) }
        let text = (isNegative ? "-" : "") + String(decoding: bytes[integerStart..<integerEnd], as: UTF8.self)
            + String(decoding: bytes[integerEnd...], as: UTF8.self)
        return JSONNumber(text: text)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
