/// Reads a time zone in any of the forms every zone letter accepts (see
/// ``DateFormatPattern``): `Z`, ISO 8601 offsets, `GMT`/`UTC`/`UT` with or without an
/// offset, and North American abbreviations.
enum ZoneText {
    enum Scan {
        /// Seconds east of UTC, and where the zone text ends.
        case found(offset: Int, end: Int)
        case missing
        /// Offset syntax with an hour past 23 or minutes or seconds past 59.
        case outOfRange
    }

    /// The abbreviations `DateFormatter` reads with `en_US_POSIX` (its `z` field), with
    /// their fixed offsets in hours: each names standard or daylight time outright.
    private static let abbreviations: [(name: [UInt8], hours: Int)] = [
        ("akst", -9), ("akdt", -8), ("hst", -10), ("hdt", -9), ("est", -5), ("edt", -4),
        ("cst", -6), ("cdt", -5), ("mst", -7), ("mdt", -6), ("pst", -8), ("pdt", -7),
    ].map { (Array($0.0.utf8), $0.1) }
    /// Longest first: `UTC` before `UT`.
    private static let universalNames: [[UInt8]] = [Array("utc".utf8), Array("gmt".utf8), Array("ut".utf8)]

    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Scan {
        guard position < bytes.count else { return .missing }
        let first = bytes[position]
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            return offset(bytes, at: position)
        }
        for name in universalNames where DateNames.matches(name, in: bytes, at: position) {
            // `GMT+2`: an offset may follow; a sign with no offset after it is left for the
            // caller to reject as unexpected text.
            let afterName = position + name.count
            switch offset(bytes, at: afterName) {
            case .missing: return .found(offset: 0, end: afterName)
            case let scanned: return scanned
            }
        }
        if first | 0x20 == UInt8(ascii: "z") {
            return .found(offset: 0, end: position + 1)
        }
        for zone in abbreviations where DateNames.matches(zone.name, in: bytes, at: position) {
            return .found(offset: zone.hours * 3600, end: position + zone.name.count)
        }
        return .missing
    }

    /// `±h`, `±hh`, `±hmm`, `±hhmm`, `±hmmss`, `±hhmmss`, `±h:mm`, `±hh:mm`, `±hh:mm:ss`.
    private static func offset(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Scan {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") else {
            return .missing
        }
        let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
        var end = position + 1
        let digitsStart = end
        while end < bytes.count, end - digitsStart < 7, NumericText.isDigit(bytes[end]) { end += 1 }
        let digitCount = end - digitsStart
        func number(_ start: Int, _ count: Int) -> Int {
            (start..<start + count).reduce(0) { $0 * 10 + Int(bytes[$1] - UInt8(ascii: "0")) }
        }
        var hours = 0, minutes = 0, seconds = 0
        if (1...2).contains(digitCount), end < bytes.count, bytes[end] == UInt8(ascii: ":") {
            hours = number(digitsStart, digitCount)
            guard let minutesEnd = twoDigits(bytes, after: end) else { return .missing }
            minutes = number(end + 1, 2)
            end = minutesEnd
            if end < bytes.count, bytes[end] == UInt8(ascii: ":"), let secondsEnd = twoDigits(bytes, after: end) {
                seconds = number(end + 1, 2)
                end = secondsEnd
            }
        } else {
            switch digitCount {
            case 1, 2: hours = number(digitsStart, digitCount)
            case 3, 4: (hours, minutes) = (number(digitsStart, digitCount - 2), number(end - 2, 2))
            case 5, 6: (hours, minutes, seconds) = (number(digitsStart, digitCount - 4), number(end - 4, 2), number(end - 2, 2))
            default: return .missing
            }
        }
        guard hours <= 23, minutes <= 59, seconds <= 59 else { return .outOfRange }
        return .found(offset: sign * (hours * 3600 + minutes * 60 + seconds), end: end)
    }

    /// Where two digits after the separator at `separator` end, if they are there.
    private static func twoDigits(_ bytes: UnsafeBufferPointer<UInt8>, after separator: Int) -> Int? {
        guard separator + 2 < bytes.count, NumericText.isDigit(bytes[separator + 1]), NumericText.isDigit(bytes[separator + 2]) else { return nil }
        return separator + 3
    }
}
