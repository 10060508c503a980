import Synchronization

/// A Unicode date pattern (the `dateFormat` user-info key, as `DateFormatter` takes it),
/// compiled once into a parser that reads dates without Foundation's formatters, which
/// take tens of seconds per million parses on Linux (this reads a million in about 0.1 s).
///
/// ```swift
/// let pattern = try DateFormatPattern.cached("M/d/yyyy H-mm-ss")
/// let date = try pattern.date(from: "8/5/2011 1-56-04")   // 2011-08-05 01:56:04 UTC
/// ```
///
/// Supported fields, read as `DateFormatter` reads them with the `en_US_POSIX` locale:
///
/// | letters | field |
/// | --- | --- |
/// | `y` `yy` `yyyy`... | year; with `y` or `yy`, exactly two digits mean 1950...2049 |
/// | `M` `MM`, `L` `LL` | month number |
/// | `MMM` `MMMM`, `LLL` `LLLL` | English month name, abbreviated or full either way, any case |
/// | `d` `dd` | day of the month |
/// | `H` `HH` (0-23), `k` `kk` (1-24) | hour of the day |
/// | `h` `hh` (1-12; 0 reads as 12), `K` `KK` (0-11) | hour with `a`; without `a` the hour is AM |
/// | `a` | `AM` or `PM`, any case |
/// | `m` `mm`, `s` `ss` | minute, second |
/// | `S`... | fraction of a second, any number of digits (nine are kept) |
/// | `E`...`EEEE` | English weekday name, abbreviated or full; checked against the date |
/// | `Z`...`ZZZZZ`, `X`...`XXXXX`, `x`...`xxxxx`, `O` `OOOO`, `z`...`zzz` | time zone |
/// | `'T'`, `''` | quoted literal text, a quote |
///
/// Every zone letter reads the same forms: `Z`, `+02`, `+0200`, `+02:00`, `+020015`,
/// `GMT`, `UTC`, `UT` (each optionally followed by an offset, as in `GMT+2` or
/// `GMT+02:00`), and the North American abbreviations `EST` `EDT` `CST` `CDT` `MST` `MDT`
/// `PST` `PDT` `AKST` `AKDT` `HST` `HDT`. A zone that ends the pattern may be missing from
/// the text: the time is then UTC, as it is for patterns without a zone. (MagicalRecord's
/// own default ended in a quoted `'Z'`, which `DateFormatter` lets go missing at the end,
/// so its users' zoneless timestamps imported as UTC.)
///
/// Leniency follows `DateFormatter` where MagicalRecord's users rely on it: number fields
/// take one digit or more (`M/d/yyyy` reads `8/5/2011`, `MM` reads `8`), except where two
/// number fields touch (`yyyyMMdd`): there each takes as many digits as it has letters,
/// the first taking the rest. Otherwise it is strict: literals match exactly (case too),
/// only ASCII digits count, no text may follow, and calendar values are checked (February
/// 30, hour 24 with `H`, minute 60 are errors). Fields the pattern leaves out default to
/// 2000-01-01 00:00:00, as `DateFormatter`'s do.
///
/// Where this differs from `DateFormatter`, on purpose: the calendar is the proleptic
/// Gregorian one throughout (ISO 8601's; `DateFormatter` switches to the Julian calendar
/// before 1582-10-15); a weekday that does not match the date is an error (`DateFormatter`
/// ignores it); fractions keep up to nanoseconds (`DateFormatter` truncates to
/// milliseconds); whitespace and punctuation are not interchangeable (`DateFormatter`
/// reads `2011/08/05` with `yyyy-MM-dd`); zone abbreviations mean their fixed offsets
/// (`DateFormatter` reads `HST` in 1935 as Honolulu's offset then, -10:30).
///
/// Letters outside the table are rejected when the pattern is compiled, naming the letter,
/// rather than giving wrong dates: `Y` (the week-based year, a classic mistake for `y`),
/// `D`, `G`, `u`, `w`, `zzzz`, `MMMMM`...
///
/// A pattern is immutable: share it across threads freely. (A class: an import reads it
/// for every date, and a reference is one retain where a copy of its arrays was three.)
public final class DateFormatPattern: Sendable, CustomStringConvertible {
    /// The format a `Date` attribute without a `dateFormat` user-info key reads:
    /// `yyyy-MM-dd'T'HH:mm:ssZ`, so `2011-07-23T22:30:40Z` and `2011-07-23T22:30:40+0200`
    /// both read.
    public static let importDefault = "yyyy-MM-dd'T'HH:mm:ssZ"

    /// The pattern as written.
    public let format: String
    let elements: [Element]
    /// The bytes of every literal, which `Element.literal` ranges point into.
    let literalBytes: [UInt8]
    /// Year, month and day are all in the pattern, so a weekday can be checked.
    let checksWeekday: Bool
    /// Where the fields lie in texts that write every number in full, when the pattern
    /// has only numbers and literals: such texts are read without the general parser.
    let fixedLayout: FixedLayout?

    /// Compiles `format`. Throws when it uses a letter this parser does not support, has an
    /// unterminated quote, repeats a field, or pairs `a` with a 24-hour hour.
    public init(_ format: String) throws(DateFormatError) {
        self.format = format
        var compiler = DateFormatCompiler(format: format)
        try compiler.compile()
        elements = compiler.elements
        literalBytes = compiler.literalBytes
        checksWeekday = compiler.hasFields([.year, .month, .day])
        fixedLayout = FixedLayout(elements: elements, letterCounts: compiler.letterCounts, literalBytes: literalBytes)
    }

    /// The compiled pattern for `format`, compiled on first use and kept (failures too, so
    /// a bad model pattern costs one compilation). Safe from any thread.
    public static func cached(_ format: String) throws(DateFormatError) -> DateFormatPattern {
        if let known = cache.withLock({ $0[format] }) { return try known.get() }
        let compiled: Result<DateFormatPattern, DateFormatError>
        do {
            compiled = .success(try DateFormatPattern(format))
        } catch {
            compiled = .failure(error)
        }
        cache.withLock { patterns in
            // Formats come from models, so few; the bound only stops a caller that makes
            // them up per value from growing the cache without end.
            if patterns.count >= 1024 { patterns.removeAll() }
            patterns[format] = compiled
        }
        return try compiled.get()
    }

    private static let cache = Mutex<[String: Result<DateFormatPattern, DateFormatError>]>([:])

    public var description: String { format }
}

/// A date pattern that cannot be compiled, and why: `date format "YYYY-MM-dd" is not
/// supported: Y is the week-based year...`.
public struct DateFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public let format: String
    public let reason: String

    public init(format: String, reason: String) {
        self.format = format
        self.reason = reason
    }

    public var description: String { "date format \"\(format)\" is not supported: \(reason)" }
}

extension DateFormatPattern {
    /// One step of the parser.
    enum Element: Sendable {
        /// Bytes to match exactly: a range of `literalBytes`.
        case literal(Range<Int>)
        case number(NumericField, Width)
        case monthName
        case weekdayName
        case dayPeriod
        /// `optional`: the zone ends the pattern and may be missing.
        case zone(optional: Bool)
    }

    enum NumericField: Sendable, Equatable {
        /// `twoDigitWindow`: `y` or `yy`, where exactly two digits mean 1950...2049.
        case year(twoDigitWindow: Bool)
        case month, day, hour(HourStyle), minute, second, fraction

        var name: String {
            switch self {
            case .year: return "year"
            case .month: return "month"
            case .day: return "day"
            case .hour: return "hour"
            case .minute: return "minute"
            case .second: return "second"
            case .fraction: return "fraction of a second"
            }
        }
    }

    enum HourStyle: Sendable, Equatable {
        /// `H`: 0-23.
        case from0To23
        /// `k`: 1-24, 24 being midnight.
        case from1To24
        /// `h`: 1-12 with `a` (0 is read as 12, as `DateFormatter` does).
        case from1To12
        /// `K`: 0-11 with `a`.
        case from0To11

        var range: ClosedRange<Int> {
            switch self {
            case .from0To23: return 0...23
            case .from1To24: return 1...24
            case .from1To12: return 0...12
            case .from0To11: return 0...11
            }
        }
    }

    /// How many digits a number field takes.
    enum Width: Sendable, Equatable {
        /// One or more: all the digits there are.
        case greedy
        /// Exactly this many (a number field touching the one before it).
        case exactly(Int)
        /// All the digits there are but this many, which the touching fields after it take.
        case leaving(Int)
    }
}
