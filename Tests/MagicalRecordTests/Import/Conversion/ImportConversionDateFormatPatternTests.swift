import Foundation
import Testing
@testable import MagicalRecord

/// DateFormatPattern by hand: each field, the leniency kept from DateFormatter, calendar
/// checks, error messages, compile-time refusals, and the shared cache.
struct ImportConversionDateFormatPatternTests {
    private func date(_ format: String, _ text: String) throws -> Date {
        try DateFormatPattern(format).date(from: text)
    }

    /// The explanation after "does not match date format ...: ", or nil when `text` parses.
    private func why(_ format: String, _ text: String) throws -> String? {
        let pattern = try DateFormatPattern(format)
        do {
            _ = try pattern.date(from: text)
            return nil
        } catch {
            let prefix = "\(ImportValueError.quote(text)) does not match date format \(format): "
            #expect(error.reason.hasPrefix(prefix), "\(error.reason)")
            return String(error.reason.dropFirst(prefix.count))
        }
    }

    // MARK: Fields

    @Test func theFixtureFormats() throws {
        #expect(try date(DateFormatPattern.importDefault, "2011-07-23T22:30:40Z") == utcDate(2011, 7, 23, 22, 30, 40))
        #expect(try date("M/d/yyyy H-mm-ss", "8/5/2011 1-56-04") == utcDate(2011, 8, 5, 1, 56, 4))
    }

    @Test func numberFieldsTakeOneDigitOrMore() throws {
        #expect(try date("MM/dd/yyyy", "8/5/2011") == utcDate(2011, 8, 5))
        #expect(try date("M/d/yyyy", "08/05/2011") == utcDate(2011, 8, 5))
        #expect(try date("yyyy-M-d H:m:s", "2011-7-3 2:3:4") == utcDate(2011, 7, 3, 2, 3, 4))
        #expect(try date("yyyy-MM-dd", "11-08-05") == Date(timeIntervalSince1970: -61_801_401_600))
        #expect(try date("yyyy", "12345") == utcDate(12345, 1, 1))
        #expect(try why("yyyy-MM-dd", "2011-0000000008-05") == "the month at offset 5 has more than nine digits")
    }

    @Test func touchingNumberFieldsTakeTheirLetterCounts() throws {
        #expect(try date("yyyyMMdd", "20110805") == utcDate(2011, 8, 5))
        #expect(try date("yyyyMMddHHmmss", "20110805015604") == utcDate(2011, 8, 5, 1, 56, 4))
        #expect(try date("HHmmss", "10203") == utcDate(2000, 1, 1, 1, 2, 3))
        #expect(try date("yyMMdd", "110805") == utcDate(2011, 8, 5))
        #expect(try date("HH:mm:ssSSS", "01:02:03456") == Date(timeIntervalSince1970: 946_688_523.456))
        #expect(try why("yyMMdd", "1185") == "expected the year at offset 0")
        #expect(try why("yyyyMMdd", "2011085") == "day 85 is out of range 1-31")
    }

    @Test func twoDigitYearsWithYOrYYFallIn1950To2049() throws {
        #expect(try date("yy-MM-dd", "49-01-01") == utcDate(2049, 1, 1))
        #expect(try date("yy-MM-dd", "50-01-01") == utcDate(1950, 1, 1))
        #expect(try date("yy-MM-dd", "00-01-01") == utcDate(2000, 1, 1))
        #expect(try date("y-MM-dd", "99-01-01") == utcDate(1999, 1, 1))
        #expect(try date("yy-MM-dd", "2011-08-05") == utcDate(2011, 8, 5))
        #expect(try date("yy-MM-dd", "1-08-05") == Date(timeIntervalSince1970: -62_116_934_400))
        #expect(try date("yyy-MM-dd", "11-08-05") == Date(timeIntervalSince1970: -61_801_401_600))
    }

    @Test func monthNamesAreEnglishInAnyCaseAndEitherLength() throws {
        #expect(try date("dd MMM yyyy", "05 Aug 2011") == utcDate(2011, 8, 5))
        #expect(try date("dd MMM yyyy", "05 aug 2011") == utcDate(2011, 8, 5))
        #expect(try date("dd MMM yyyy", "05 AUGUST 2011") == utcDate(2011, 8, 5))
        #expect(try date("dd MMMM yyyy", "05 Aug 2011") == utcDate(2011, 8, 5))
        #expect(try date("MMMM d, yyyy", "June 5, 2011") == utcDate(2011, 6, 5))
        #expect(try date("MMMM d, yyyy", "May 5, 2011") == utcDate(2011, 5, 5))
        #expect(try date("LLL d yyyy", "Sep 5 2011") == utcDate(2011, 9, 5))
        #expect(try date("dMMMyyyy", "5Aug2011") == utcDate(2011, 8, 5))
        #expect(try why("dd MMM yyyy", "05 Sept 2011") == "expected \" \" at offset 6")
        #expect(try why("dd MMM yyyy", "05 08 2011") == "expected an English month name at offset 3")
    }

    @Test func weekdayNamesAreCheckedWhenTheDateIsComplete() throws {
        #expect(try date("EEE, dd MMM yyyy HH:mm:ss Z", "Fri, 05 Aug 2011 01:56:04 +0000") == utcDate(2011, 8, 5, 1, 56, 4))
        #expect(try date("EEE, dd MMM yyyy", "friday, 05 Aug 2011") == utcDate(2011, 8, 5))
        #expect(try date("EEEE, dd MMM yyyy", "Fri, 05 Aug 2011") == utcDate(2011, 8, 5))
        #expect(try date("E yyyy-MM-dd", "Sun 2011-08-07") == utcDate(2011, 8, 7))
        #expect(try why("EEE, dd MMM yyyy", "Mon, 05 Aug 2011") == "2011-08-05 is a Friday, not a Monday")
        #expect(try why("EEE yyyy-MM-dd", "Fry 2011-08-05") == "expected an English weekday name at offset 0")
        // Without a full date there is nothing to check against: the name is read and left.
        #expect(try date("EEE HH:mm", "Mon 10:30") == utcDate(2000, 1, 1, 10, 30))
    }

    @Test func twelveHourClocksUseAMAndPM() throws {
        #expect(try date("h:mm a", "1:56 PM") == utcDate(2000, 1, 1, 13, 56))
        #expect(try date("h:mm a", "1:56 am") == utcDate(2000, 1, 1, 1, 56))
        #expect(try date("hh:mm aa", "12:56 AM") == utcDate(2000, 1, 1, 0, 56))
        #expect(try date("hh:mm aaa", "12:56 PM") == utcDate(2000, 1, 1, 12, 56))
        #expect(try date("h:mm a", "0:56 PM") == utcDate(2000, 1, 1, 12, 56))
        #expect(try date("a h:mm", "PM 1:56") == utcDate(2000, 1, 1, 13, 56))
        #expect(try date("ha", "1PM") == utcDate(2000, 1, 1, 13))
        #expect(try date("h:mm", "1:56") == utcDate(2000, 1, 1, 1, 56))
        #expect(try date("K:mm a", "11:56 PM") == utcDate(2000, 1, 1, 23, 56))
        #expect(try date("K:mm a", "0:56 PM") == utcDate(2000, 1, 1, 12, 56))
        #expect(try why("K:mm a", "12:56 PM") == "hour 12 is out of range 0-11")
        #expect(try why("h:mm a", "13:56 PM") == "hour 13 is out of range 0-12")
        #expect(try why("h:mm a", "1:56 p.m.") == "expected AM or PM at offset 5")
    }

    @Test func hourStylesKeepTheirRanges() throws {
        #expect(try date("yyyy-MM-dd kk:mm", "2011-08-05 24:00") == utcDate(2011, 8, 5))
        #expect(try date("yyyy-MM-dd kk:mm", "2011-08-05 13:00") == utcDate(2011, 8, 5, 13))
        #expect(try why("yyyy-MM-dd HH:mm", "2011-08-05 24:00") == "hour 24 is out of range 0-23")
        #expect(try why("yyyy-MM-dd kk:mm", "2011-08-05 00:00") == "hour 0 is out of range 1-24")
        #expect(try why("HH:mm", "10:60") == "minute 60 is out of range 0-59")
        #expect(try why("HH:mm:ss", "10:59:60") == "second 60 is out of range 0-59")
    }

    @Test func fractionsKeepUpToNanoseconds() throws {
        let base = utcDate(2011, 8, 5, 1, 56, 4)
        #expect(try date("yyyy-MM-dd HH:mm:ss.SSS", "2011-08-05 01:56:04.543") == Date(timeIntervalSince1970: 1_312_509_364.543))
        #expect(try date("yyyy-MM-dd HH:mm:ss.SSS", "2011-08-05 01:56:04.5") == Date(timeIntervalSince1970: 1_312_509_364.5))
        #expect(try date("yyyy-MM-dd HH:mm:ss.S", "2011-08-05 01:56:04.543") == Date(timeIntervalSince1970: 1_312_509_364.543))
        #expect(try date("yyyy-MM-dd HH:mm:ss.SSS", "2011-08-05 01:56:04.000") == base)
        let micro = try date("yyyy-MM-dd HH:mm:ss.SSSSSS", "2011-08-05 01:56:04.543219")
        #expect(abs(micro.timeIntervalSince1970 - 1_312_509_364.543219) < 1e-6)
        #expect(micro != Date(timeIntervalSince1970: 1_312_509_364.543))
        let beyondNine = try date("ss.S", "04.123456789999")
        #expect(beyondNine == (try date("ss.S", "04.123456789")))
        #expect(try why("yyyy-MM-dd HH:mm:ss.SSS", "2011-08-05 01:56:04.") == "expected the fraction of a second at the end")
        #expect(try why("yyyy-MM-dd HH:mm:ss.SSS", "2011-08-05 01:56:04") == "expected \".\" at the end")
    }

    @Test func everyZoneLetterReadsEveryZoneForm() throws {
        let noon = utcDate(2011, 8, 5, 12)
        let cases: [(String, TimeInterval)] = [
            ("Z", 0), ("z", 0), ("+02", -7200), ("+2", -7200), ("+0200", -7200), ("+02:00", -7200), ("-0530", 19800),
            ("-05:30", 19800), ("+020", -1200), ("+02:30:15", -9015), ("+023015", -9015), ("+14:00", -50400),
            ("GMT", 0), ("UTC", 0), ("UT", 0), ("gmt", 0), ("GMT+2", -7200), ("GMT-5", 18000), ("GMT+02:30", -9000),
            ("GMT+2:30", -9000), ("UTC+0200", -7200), ("EST", 18000), ("EDT", 14400), ("CST", 21600), ("CDT", 18000),
            ("MST", 25200), ("MDT", 21600), ("PST", 28800), ("PDT", 25200), ("AKST", 32400), ("AKDT", 28800),
            ("HST", 36000), ("HDT", 32400), ("pdt", 25200),
        ]
        for letters in ["Z", "ZZZZ", "ZZZZZ", "X", "XXX", "XXXXX", "x", "xxx", "O", "OOOO", "z", "zzz"] {
            let pattern = try DateFormatPattern("yyyy-MM-dd HH:mm \(letters)")
            for (zone, shift) in cases {
                #expect(try pattern.date(from: "2011-08-05 12:00 \(zone)") == noon.addingTimeInterval(shift), "\(letters) \(zone)")
            }
        }
    }

    @Test func zonesOutOfRangeOrUnknownAreErrors() throws {
        #expect(try why("HH:mm Z", "10:00 +2400") == "the time zone offset at offset 6 is out of range")
        #expect(try why("HH:mm Z", "10:00 +0260") == "the time zone offset at offset 6 is out of range")
        #expect(try why("HH:mm Z", "10:00 +02:3") == "expected a time zone (Z, +02:00, +0200, GMT+2, UTC, PST...) at offset 6")
        #expect(try why("HH:mm Z", "10:00 +0200000") == "expected a time zone (Z, +02:00, +0200, GMT+2, UTC, PST...) at offset 6")
        #expect(try why("HH:mm Z", "10:00 CEST") == "expected a time zone (Z, +02:00, +0200, GMT+2, UTC, PST...) at offset 6")
        #expect(try why("HH:mm Z", "10:00 Zulu") == "unexpected \"ulu\" at offset 7")
        #expect(try why("HH:mm Z", "10:00 GMT+") == "unexpected \"+\" at offset 9")
    }

    @Test func onlyAZoneThatEndsThePatternMayBeMissing() throws {
        #expect(try date("yyyy-MM-dd'T'HH:mm:ssXXX", "2011-08-05T01:56:04") == utcDate(2011, 8, 5, 1, 56, 4))
        #expect(try why("yyyy-MM-dd'T'HH:mm:ss Z'!'", "2011-08-05T01:56:04 !") == "expected a time zone (Z, +02:00, +0200, GMT+2, UTC, PST...) at offset 20")
        #expect(try why("yyyy-MM-dd'T'HH:mm:ssZ", "2011-08-05T01:56:04 +0200") == "expected a time zone (Z, +02:00, +0200, GMT+2, UTC, PST...) at offset 19")
    }

    @Test func literalsMatchExactly() throws {
        #expect(try date("yyyy''MM", "2011'08") == utcDate(2011, 8, 1))
        #expect(try date("h 'o''clock' a", "3 o'clock PM") == utcDate(2000, 1, 1, 15))
        #expect(try date("yyyy年M月d日", "2011年8月5日") == utcDate(2011, 8, 5))
        #expect(try date("d. MMMM yyyy 'um' HH:mm", "5. August 2011 um 14:30") == utcDate(2011, 8, 5, 14, 30))
        #expect(try why("yyyy-MM-dd", "2011/08/05") == "expected \"-\" at offset 4")
        #expect(try why("yyyy-MM-dd'T'HH", "2011-08-05t01") == "expected \"T\" at offset 10")
        #expect(try why("yyyy-MM-dd", " 2011-08-05") == "expected the year at offset 0")
        #expect(try why("yyyy-MM-dd", "2011-08-05 ") == "unexpected \" \" at offset 10")
        #expect(try why("yyyy-MM-dd HH", "2011-08-05  01") == "expected the hour at offset 11")
        #expect(try why("yyyy-MM-dd", "2011-08") == "expected \"-\" at the end")
        #expect(try why("yyyy-MM-dd", "２０１１-08-05") == "expected the year at offset 0")
        #expect(try why("yyyy-MM-dd", "") == "expected the year at the end")
    }

    @Test func missingFieldsDefaultTo2000January1st() throws {
        #expect(try date("MM-dd", "08-05") == utcDate(2000, 8, 5))
        #expect(try date("HH:mm:ss", "01:02:03") == utcDate(2000, 1, 1, 1, 2, 3))
        #expect(try date("yyyy-MM", "2011-08") == utcDate(2011, 8, 1))
        #expect(try date("yyyy", "2011") == utcDate(2011, 1, 1))
        #expect(try date("dd", "31") == utcDate(2000, 1, 31))
    }

    // MARK: Calendar

    @Test func calendarValuesAreChecked() throws {
        #expect(try why("dd/MM/yyyy", "31/02/2020") == "February 2020 has no day 31")
        #expect(try why("dd/MM/yyyy", "30/02/2020") == "February 2020 has no day 30")
        #expect(try date("dd/MM/yyyy", "29/02/2020") == utcDate(2020, 2, 29))
        #expect(try why("dd/MM/yyyy", "29/02/2019") == "February 2019 has no day 29")
        #expect(try why("dd/MM/yyyy", "29/02/1900") == "February 1900 has no day 29")
        #expect(try date("dd/MM/yyyy", "29/02/2000") == utcDate(2000, 2, 29))
        #expect(try why("dd/MM/yyyy", "31/04/2011") == "April 2011 has no day 31")
        #expect(try why("dd/MM/yyyy", "00/02/2019") == "day 0 is out of range 1-31")
        #expect(try why("dd/MM/yyyy", "32/01/2019") == "day 32 is out of range 1-31")
        #expect(try why("dd/MM/yyyy", "10/13/2019") == "month 13 is out of range 1-12")
        #expect(try why("dd/MM/yyyy", "10/00/2019") == "month 0 is out of range 1-12")
        #expect(try why("dd/MM/yyyy", "10/01/0000") == "there is no year 0 (years start at 1)")
        #expect(try why("dd/MM/yy", "29/02/01") == "February 2001 has no day 29")
    }

    /// Our calendar is proleptic Gregorian (DateFormatter's is Julian before 1582-10-15).
    @Test func theCalendarIsProlepticGregorian() throws {
        #expect(try date("yyyy-MM-dd", "1582-10-10") == Date(timeIntervalSince1970: -12_219_724_800))
        #expect(try date("yyyy-MM-dd", "0001-01-01") == Date(timeIntervalSince1970: -62_135_596_800))
        #expect(try why("yyyy-MM-dd", "1500-02-29") == "February 1500 has no day 29")
    }

    // MARK: Compiling

    @Test(arguments: [
        ("YYYY-MM-dd", "Y is the week-based year, which differs from the calendar year around New Year: use y"),
        ("yyyy-DDD", "D (day of year) is not supported"),
        ("G yyyy", "G (era) is not supported"),
        ("uuuu-MM-dd", "u (extended year) is not supported"),
        ("yyyy 'week' ww", "w (week of year) is not supported"),
        ("HH:mm zzzz", "zzzz (long time zone names such as Pacific Standard Time) is not supported: use z, Z or XXX"),
        ("HH:mm v", "v (generic time zone name) is not supported"),
        ("HH:mm VV", "V (time zone identifier) is not supported"),
        ("MMMMM d", "MMMMM (narrow month names) is not supported: use MMM or MMMM"),
        ("EEEEE d", "EEEEE (narrow or short weekday names) is not supported: use EEE or EEEE"),
        ("h:mm aaaa", "aaaa (narrow AM/PM markers) is not supported: use a"),
        ("HH:mm ZZZZZZ", "ZZZZZZ is not a time zone field: use at most five letters"),
        ("HH:mm OO", "OO is not a time zone field: use O or OOOO"),
        ("yyyy-MM-ddTHH", "'T' is not a date field letter: quote literal letters, as in 'T'"),
        ("yyyy-MM-dd'T", "the quote at offset 10 is not closed"),
        ("", "it has no date fields (letters such as yyyy, MM, dd)"),
        ("'today'", "it has no date fields (letters such as yyyy, MM, dd)"),
        ("yyyy-MM-dd yy", "yy repeats the year, already given by yyyy"),
        ("MM MMM", "MMM repeats the month, already given by MM"),
        ("HH hh a", "hh repeats the hour, already given by HH"),
        ("HH:mm a", "a (AM/PM) goes with a 12-hour hour (h or K), not HH"),
        ("kk:mm a", "a (AM/PM) goes with a 12-hour hour (h or K), not kk"),
    ])
    func unsupportedPatternsAreRefusedNamingTheLetter(format: String, reason: String) {
        #expect(throws: DateFormatError(format: format, reason: reason)) { try DateFormatPattern(format) }
        #expect(throws: DateFormatError(format: format, reason: reason)) { try DateFormatPattern.cached(format) }
    }

    @Test func compileErrorsReadAsSentences() {
        #expect(DateFormatError(format: "YYYY", reason: "why").description == "date format \"YYYY\" is not supported: why")
    }

    @Test func theCacheIsSharedSafelyAcrossTasks() async throws {
        let formats = (0..<40).map { "yyyy-MM-dd'T'HH:mm:ss'x\($0)'" } + ["YYYY"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        let format = formats[(task * 7 + round) % formats.count]
                        if format == "YYYY" {
                            #expect(throws: DateFormatError.self) { try DateFormatPattern.cached(format) }
                            continue
                        }
                        let index = format.dropFirst(22).dropLast()
                        let parsed = try DateFormatPattern.cached(format).date(from: "2011-07-23T22:30:40\(index)")
                        #expect(parsed == utcDate(2011, 7, 23, 22, 30, 40))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try DateFormatPattern.cached(DateFormatPattern.importDefault).format == DateFormatPattern.importDefault)
    }
}
