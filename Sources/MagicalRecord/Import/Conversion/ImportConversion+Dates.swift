import Foundation

extension ImportConversion {
    /// How a Date attribute reads values, from its `dateFormat` user-info key.
    enum DateRule: Sendable {
        /// Strings through the pattern; numbers are seconds since 1970.
        case pattern(DateFormatPattern)
        /// `UnixTime`: numbers and numeric strings are milliseconds since 1970.
        case unixMilliseconds
        /// The key holds a pattern that does not compile: strings fail with why, numbers
        /// are still seconds.
        case unsupported(DateFormatError)

        init(format: String?) {
            guard format != ImportConversion.unixTimeFormat else {
                self = .unixMilliseconds
                return
            }
            do {
                self = .pattern(try DateFormatPattern.cached(format ?? DateFormatPattern.importDefault))
            } catch {
                self = .unsupported(error)
            }
        }

        func date(_ json: JSONValue) throws(ImportValueError) -> Date {
            // One switch after the other, not over a tuple of both: the tuple copied the
            // value and the rule for every date imported.
            switch json {
            case .number(let number):
                if case .unixMilliseconds = self {
                    return try Self.date(json, seconds: number.doubleValue.map { $0 / 1000 }, unit: "milliseconds")
                }
                return try Self.date(json, seconds: number.doubleValue, unit: "seconds")
            case .string(let string):
                switch self {
                case .pattern(let pattern):
                    return try pattern.date(from: string)
                case .unixMilliseconds:
                    guard let number = NumericText.number(string) else {
                        throw ImportValueError("\(ImportValueError.quote(string)) is not a number of milliseconds since 1970 (dateFormat UnixTime)")
                    }
                    return try Self.date(json, seconds: number.doubleValue.map { $0 / 1000 }, unit: "milliseconds")
                case .unsupported(let error):
                    throw ImportValueError(error.description)
                }
            default:
                throw .cannotConvert(json, to: .date)
            }
        }

        /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z in seconds since 1970.
        private static let earliest: Double = -62_135_596_800
        private static let end: Double = 253_402_300_800

        private static func date(_ json: JSONValue, seconds: Double?, unit: String) throws(ImportValueError) -> Date {
            guard let seconds, seconds >= earliest, seconds < end else {
                var reason = "\(ImportValueError.show(json)) is out of range for a date in \(unit) since 1970 (years 1-9999)"
                if unit == "seconds", let seconds, seconds >= end, seconds / 1000 < end {
                    reason += "; if it is milliseconds, set the attribute's dateFormat to UnixTime"
                }
                throw ImportValueError(reason)
            }
            return Date(timeIntervalSince1970: seconds)
        }
    }
}
