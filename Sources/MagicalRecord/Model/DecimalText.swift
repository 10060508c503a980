import Foundation

/// Decimals written as text, as model files keep them: exact, in the POSIX locale.
enum DecimalText {
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The decimal `text` spells, or nil unless all of it is one number
    /// (`[+-]digits[.digits][e[+-]digits]`). `Decimal(string:)` alone would read the
    /// leading number of "12abc" and drop the rest.
    static func parse(_ text: String) -> Decimal? {
        guard isNumber(text), let value = Decimal(string: text, locale: posix), !value.isNaN else { return nil }
        return value
    }

    static func format(_ value: Decimal) -> String {
        value.description
    }

    private static func isNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        func skip(_ allowed: String) -> Bool {
            guard let first = bytes.first, allowed.utf8.contains(first) else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        _ = skip("+-")
        var mantissa = digits()
        if skip(".") { mantissa += digits() }
        guard mantissa > 0 else { return false }
        if skip("eE") {
            _ = skip("+-")
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
