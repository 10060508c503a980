import Foundation

/// Dates as ISO 8601 text in UTC (`2011-07-23T22:30:40.543Z`) that read back to exactly
/// the same `Date` (Spec/MODEL.md, M12).
///
/// Formatters round to milliseconds. Here the seconds since 2001 (how `Date` keeps time,
/// so no bits are lost to a change of epoch) are written as the shortest decimal that
/// reads back to the same `Double`; splitting off the fraction and putting it back is done
/// on decimal digits, which is exact, so reading rounds only once. Years beyond 9999 or
/// before 0 get ISO 8601's expanded form (`+10000-01-01T00:00:00Z`, `-0001-...`).
enum ISO8601Text {
    /// Days from 1970-01-01 to 2001-01-01.
    private static let referenceDay: Int64 = 11_323

    /// Nil for a date whose time is not finite or is absurdly far away (10^18 s, 31 billion years).
    static func format(_ date: Date) -> String? {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 1e18 else { return nil }
        let (integer, fraction) = plainDecimal(interval.magnitude)
        guard var seconds = Int64(integer) else { return nil }
        var fractionDigits = fraction
        if interval < 0 {
            // Time of day counts forward from midnight: -0.3 s is 23:59:59.7 the day before.
            seconds = fraction.isEmpty ? -seconds : -seconds - 1
            fractionDigits = complement(fraction)
        }
        let (dayOffset, secondOfDay) = floorDivide(seconds, 86_400)
        let civil = CivilCalendar.civil(fromDays: Int(dayOffset + referenceDay))
        let (year, month, day) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
        var text = (0...9999).contains(year) ? pad(year, 4) : (year < 0 ? "-" : "+") + pad(abs(year), 4)
        text += "-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if !fractionDigits.isEmpty { text += "." + fractionDigits }
        return text + "Z"
    }

    /// Reads what ``format(_:)`` writes: `[±]YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
    static func parse(_ text: String) -> Date? {
        var rest = Substring(text)
        guard rest.hasSuffix("Z") else { return nil }
        rest = rest.dropLast()
        var sign: Int64 = 1
        if let first = rest.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        var fraction = ""
        if let dot = rest.firstIndex(of: ".") {
            fraction = String(rest[rest.index(after: dot)...])
            guard !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
            rest = rest[..<dot]
        }
        let parts = rest.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard date.count == 3, time.count == 3, (4...11).contains(date[0].count),
              [date[1], date[2], time[0], time[1], time[2]].allSatisfy({ $0.count == 2 }),
              let year = number(date[0]), let month = number(date[1]), let day = number(date[2]),
              let hour = number(time[0]), let minute = number(time[1]), let second = number(time[2]),
              (1...12).contains(month), (1...Int64(CivilCalendar.daysIn(month: Int(month), year: Int(sign * year)))).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let whole = (Int64(CivilCalendar.days(year: Int(sign * year), month: Int(month), day: Int(day))) - referenceDay) * 86_400 + hour * 3600 + minute * 60 + second
        guard fraction.contains(where: { $0 != "0" }) else { return Date(timeIntervalSinceReferenceDate: Double(whole)) }
        let decimal = whole >= 0 ? "\(whole).\(fraction)" : "-\(-whole - 1).\(complement(fraction))"
        return Double(decimal).map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    /// The shortest decimal that reads back to `value` (finite, not negative), as integer
    /// digits and fraction digits without trailing zeros.
    private static func plainDecimal(_ value: Double) -> (integer: String, fraction: String) {
        // Swift's description is that shortest decimal, sometimes with an exponent: 1.5e-05.
        let text = value.description
        let mantissa = text.prefix { $0 != "e" }
        let exponent = mantissa.count < text.count ? Int(text.dropFirst(mantissa.count + 1)) ?? 0 : 0
        let digits = mantissa.filter(\.isASCIIDigit)
        let point = (mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count) + exponent
        let padded = String(repeating: "0", count: max(0, -point)) + digits + String(repeating: "0", count: max(0, point - digits.count))
        let split = max(0, point)
        var integer = String(padded.prefix(split).drop { $0 == "0" })
        if integer.isEmpty { integer = "0" }
        var fraction = String(padded.dropFirst(split))
        while fraction.last == "0" { fraction.removeLast() }
        return (integer, fraction)
    }

    /// The digits of 1 - 0.`digits`, as many as `digits` has (empty for empty).
    private static func complement(_ digits: String) -> String {
        guard let last = digits.lastIndex(where: { $0 != "0" }) else { return digits }
        var result = digits[..<last].map { Character(String(9 - $0.wholeNumberValue!)) }
        result.append(Character(String(10 - digits[last].wholeNumberValue!)))
        return String(result) + digits[digits.index(after: last)...]
    }

    private static func number(_ digits: Substring) -> Int64? {
        digits.allSatisfy(\.isASCIIDigit) ? Int64(digits) : nil
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
