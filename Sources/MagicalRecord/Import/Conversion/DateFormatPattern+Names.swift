/// The English month and weekday names and AM/PM markers that `DateFormatter` reads with
/// the `en_US_POSIX` locale, as lowercase bytes matched without regard to case.
enum DateNames {
    static let months: [[UInt8]] = CivilCalendar.monthNames.map { Array($0.lowercased().utf8) }
    static let monthAbbreviations: [[UInt8]] = months.map { Array($0.prefix(3)) }
    /// Sunday first, as ``CivilCalendar/weekday(days:)`` counts.
    static let weekdays: [[UInt8]] = CivilCalendar.weekdayNames.map { Array($0.lowercased().utf8) }
    static let weekdayAbbreviations: [[UInt8]] = weekdays.map { Array($0.prefix(3)) }
    static let dayPeriods: [[UInt8]] = [Array("am".utf8), Array("pm".utf8)]

    /// January is 0.
    static func month(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (index: Int, length: Int)? {
        match(full: months, abbreviated: monthAbbreviations, in: bytes, at: position)
    }

    /// Sunday is 0.
    static func weekday(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (index: Int, length: Int)? {
        match(full: weekdays, abbreviated: weekdayAbbreviations, in: bytes, at: position)
    }

    /// AM is 0, PM 1.
    static func dayPeriod(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (index: Int, length: Int)? {
        match(full: dayPeriods, abbreviated: [], in: bytes, at: position)
    }

    /// The index of the full name or else the abbreviation at `position`, and its length
    /// (a full name first, so `June` is not read as `Jun` followed by `e`).
    private static func match(
        full: [[UInt8]], abbreviated: [[UInt8]], in bytes: UnsafeBufferPointer<UInt8>, at position: Int
    ) -> (index: Int, length: Int)? {
        for (index, name) in full.enumerated() where matches(name, in: bytes, at: position) {
            return (index, name.count)
        }
        for (index, name) in abbreviated.enumerated() where matches(name, in: bytes, at: position) {
            return (index, name.count)
        }
        return nil
    }

    /// Whether the letters of `name` (lowercase ASCII) are at `position`, in any case.
    static func matches(_ name: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        guard bytes.count - position >= name.count else { return false }
        for offset in 0..<name.count where bytes[position + offset] | 0x20 != name[offset] {
            return false
        }
        return true
    }
}
