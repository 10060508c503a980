import Foundation

extension DateFormatPattern {
    /// The date `text` spells; all of `text` must match the pattern. The hot path reads the
    /// string's UTF-8 in place and allocates nothing; only a failure builds a message:
    /// `"31/02/2020" does not match date format dd/MM/yyyy: February 2020 has no day 31`.
    public func date(from text: String) throws(ImportValueError) -> Date {
        let outcome: Result<Date, ParseFailure>
        if let read = text.utf8.withContiguousStorageIfAvailable({ parse($0) }) {
            outcome = read
        } else {
            outcome = Array(text.utf8).withUnsafeBufferPointer { parse($0) }
        }
        switch outcome {
        case .success(let date):
            return date
        case .failure(let failure):
            throw ImportValueError("\(ImportValueError.quote(text)) does not match date format \(format): \(explain(failure, in: text))")
        }
    }

    enum ParseFailure: Error {
        case expectedLiteral(Range<Int>, at: Int)
        case expectedDigits(NumericField, at: Int)
        case tooManyDigits(NumericField, at: Int)
        case expectedMonthName(at: Int)
        case expectedWeekdayName(at: Int)
        case expectedDayPeriod(at: Int)
        case expectedZone(at: Int)
        case zoneOutOfRange(at: Int)
        case outOfRange(NumericField, Int)
        case noSuchDay(year: Int, month: Int, day: Int)
        case wrongWeekday(year: Int, month: Int, day: Int, named: Int, actual: Int)
        case unexpectedText(at: Int)
    }

    func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Date, ParseFailure> {
        if let fixedLayout, let date = fixedLayout.date(bytes) { return .success(date) }
        return parseInGeneral(bytes)
    }

    /// `parse` element by element, for any text.
    func parseInGeneral(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Date, ParseFailure> {
        var position = 0
        // Fields the pattern leaves out keep DateFormatter's defaults: 2000-01-01 00:00:00 UTC.
        var year = 2000, month = 1, day = 1, hour = 0, minute = 0, second = 0
        var hourStyle = HourStyle.from0To23
        var isPM = false
        var fraction = 0, fractionDigits = 0
        var weekday: Int?
        var offset = 0
        for element in elements {
            switch element {
            case .literal(let range):
                guard bytes.count - position >= range.count else { return .failure(.expectedLiteral(range, at: position)) }
                for index in 0..<range.count where bytes[position + index] != literalBytes[range.lowerBound + index] {
                    return .failure(.expectedLiteral(range, at: position))
                }
                position += range.count
            case .number(let field, let width):
                var available = 0
                while position + available < bytes.count, NumericText.isDigit(bytes[position + available]) { available += 1 }
                let taken: Int
                switch width {
                case .greedy: taken = available
                case .exactly(let count): taken = available >= count ? count : 0
                case .leaving(let count): taken = max(0, available - count)
                }
                guard taken > 0 else { return .failure(.expectedDigits(field, at: position)) }
                if field == .fraction {
                    // Nine digits are nanoseconds, finer than a Date holds: the rest are read and dropped.
                    fractionDigits = min(taken, 9)
                    fraction = Self.number(bytes, position, fractionDigits)
                    position += taken
                    continue
                }
                guard taken <= 9 else { return .failure(.tooManyDigits(field, at: position)) }
                let value = Self.number(bytes, position, taken)
                switch field {
                case .year(let twoDigitWindow):
                    if twoDigitWindow, taken == 2 {
                        // DateFormatter's two-digit window on Linux (CoreFoundation's default): 1950...2049.
                        year = value < 50 ? 2000 + value : 1900 + value
                    } else {
                        guard value >= 1 else { return .failure(.outOfRange(field, value)) }
                        year = value
                    }
                case .month:
                    guard (1...12).contains(value) else { return .failure(.outOfRange(field, value)) }
                    month = value
                case .day:
                    guard (1...31).contains(value) else { return .failure(.outOfRange(field, value)) }
                    day = value
                case .hour(let style):
                    guard style.range.contains(value) else { return .failure(.outOfRange(field, value)) }
                    hour = value
                    hourStyle = style
                case .minute:
                    guard value <= 59 else { return .failure(.outOfRange(field, value)) }
                    minute = value
                case .second:
                    guard value <= 59 else { return .failure(.outOfRange(field, value)) }
                    second = value
                case .fraction:
                    break
                }
                position += taken
            case .monthName:
                guard let name = DateNames.month(in: bytes, at: position) else {
                    return .failure(.expectedMonthName(at: position))
                }
                month = name.index + 1
                position += name.length
            case .weekdayName:
                guard let name = DateNames.weekday(in: bytes, at: position) else {
                    return .failure(.expectedWeekdayName(at: position))
                }
                weekday = name.index
                position += name.length
            case .dayPeriod:
                guard let marker = DateNames.dayPeriod(in: bytes, at: position) else {
                    return .failure(.expectedDayPeriod(at: position))
                }
                isPM = marker.index == 1
                position += marker.length
            case .zone(let optional):
                if optional, position == bytes.count { continue }
                switch ZoneText.scan(bytes, at: position) {
                case .found(let zoneOffset, let end):
                    offset = zoneOffset
                    position = end
                case .missing:
                    return .failure(.expectedZone(at: position))
                case .outOfRange:
                    return .failure(.zoneOutOfRange(at: position))
                }
            }
        }
        guard position == bytes.count else { return .failure(.unexpectedText(at: position)) }
        guard day <= CivilCalendar.daysIn(month: month, year: year) else {
            return .failure(.noSuchDay(year: year, month: month, day: day))
        }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        if checksWeekday, let weekday, CivilCalendar.weekday(days: days) != weekday {
            return .failure(.wrongWeekday(year: year, month: month, day: day, named: weekday, actual: CivilCalendar.weekday(days: days)))
        }
        switch hourStyle {
        case .from0To23: break
        case .from1To24: hour %= 24
        case .from1To12: hour = hour % 12 + (isPM ? 12 : 0)
        case .from0To11: hour += isPM ? 12 : 0
        }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return .success(Self.date(seconds: seconds, fraction: fraction, digits: fractionDigits))
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int {
        var value = 0
        for index in start..<start + count { value = value * 10 + Int(bytes[index] &- UInt8(ascii: "0")) }
        return value
    }

    private static let powersOfTen = (0...9).map { (0..<$0).reduce(1) { power, _ in power * 10 } }

    /// Seconds since 1970 plus `fraction` / 10^`digits`, divided once where the sum is
    /// exact, so up to milliseconds the result is the Double `DateFormatter` gives
    /// (milliseconds / 1000).
    static func date(seconds: Int, fraction: Int, digits: Int) -> Date {
        var fraction = fraction, digits = digits
        while digits > 0, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        guard digits > 0 else { return Date(timeIntervalSince1970: Double(seconds)) }
        let scale = powersOfTen[digits]
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: scale)
        let (sum, sumOverflow) = scaled.addingReportingOverflow(fraction)
        guard !overflow, !sumOverflow else {
            return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / Double(scale))
        }
        return Date(timeIntervalSince1970: Double(sum) / Double(scale))
    }

    private func explain(_ failure: ParseFailure, in text: String) -> String {
        let length = text.utf8.count
        func at(_ offset: Int) -> String { offset >= length ? "at the end" : "at offset \(offset)" }
        switch failure {
        case .expectedLiteral(let range, let offset):
            return "expected \"\(String(decoding: literalBytes[range], as: UTF8.self))\" \(at(offset))"
        case .expectedDigits(let field, let offset):
            return "expected the \(field.name) \(at(offset))"
        case .tooManyDigits(let field, let offset):
            return "the \(field.name) \(at(offset)) has more than nine digits"
        case .expectedMonthName(let offset):
            return "expected an English month name \(at(offset))"
        case .expectedWeekdayName(let offset):
            return "expected an English weekday name \(at(offset))"
        case .expectedDayPeriod(let offset):
            return "expected AM or PM \(at(offset))"
        case .expectedZone(let offset):
            return "expected a time zone (Z, +02:00, +0200, GMT+2, UTC, PST...) \(at(offset))"
        case .zoneOutOfRange(let offset):
            return "the time zone offset \(at(offset)) is out of range"
        case .outOfRange(let field, let value):
            switch field {
            case .year: return "there is no year \(value) (years start at 1)"
            case .month: return "month \(value) is out of range 1-12"
            case .day: return "day \(value) is out of range 1-31"
            case .hour(let style): return "hour \(value) is out of range \(style.range.lowerBound)-\(style.range.upperBound)"
            default: return "\(field.name) \(value) is out of range 0-59"
            }
        case .noSuchDay(let year, let month, let day):
            return "\(CivilCalendar.monthNames[month - 1]) \(year) has no day \(day)"
        case .wrongWeekday(let year, let month, let day, let named, let actual):
            let date = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
            return "\(date) is a \(CivilCalendar.weekdayNames[actual]), not a \(CivilCalendar.weekdayNames[named])"
        case .unexpectedText(let offset):
            let rest = String(decoding: text.utf8.dropFirst(offset), as: UTF8.self)
            return "unexpected \(ImportValueError.quote(rest)) \(at(offset))"
        }
    }
}
