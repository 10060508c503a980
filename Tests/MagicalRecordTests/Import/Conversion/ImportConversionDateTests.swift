import Foundation
import Testing
@testable import MagicalRecord

/// Date attributes: strings through `dateFormat` (default, custom, unsupported), numbers
/// as seconds, `UnixTime` milliseconds, and the range that catches one unit for the other.
struct ImportConversionDateTests {
    private static let customFormat = [UserInfoKey.dateFormat: "M/d/yyyy H-mm-ss"]
    private static let unixTime = [UserInfoKey.dateFormat: "UnixTime"]

    @Test func theDefaultFormatReadsUTCAndOffsets() throws {
        #expect(try importConverted("2011-07-23T22:30:40Z", .date) == .date(utcDate(2011, 7, 23, 22, 30, 40)))
        #expect(try importConverted("2011-07-23T22:30:40+0200", .date) == .date(utcDate(2011, 7, 23, 20, 30, 40)))
        #expect(try importConverted("2011-07-23T22:30:40-05:00", .date) == .date(utcDate(2011, 7, 24, 3, 30, 40)))
        #expect(try importConverted("2011-07-23T22:30:40", .date) == .date(utcDate(2011, 7, 23, 22, 30, 40)))
        #expect(importFailure("2011-07-23 22:30:40Z", .date)
            == "\"2011-07-23 22:30:40Z\" does not match date format yyyy-MM-dd'T'HH:mm:ssZ: expected \"T\" at offset 10")
        #expect(importFailure("2011-07-23T22:30:40.123Z", .date)
            == "\"2011-07-23T22:30:40.123Z\" does not match date format yyyy-MM-dd'T'HH:mm:ssZ: expected a time zone (Z, +02:00, +0200, GMT+2, UTC, PST...) at offset 19")
    }

    @Test func aCustomFormatReadsTheFixturesSingleDigitFields() throws {
        #expect(try importConverted("8/5/2011 1-56-04", .date, userInfo: Self.customFormat) == .date(utcDate(2011, 8, 5, 1, 56, 4)))
        #expect(try importConverted("12/25/2011 13-05-09", .date, userInfo: Self.customFormat) == .date(utcDate(2011, 12, 25, 13, 5, 9)))
        #expect(importFailure("31/02/2020", .date, userInfo: [UserInfoKey.dateFormat: "dd/MM/yyyy"])
            == "\"31/02/2020\" does not match date format dd/MM/yyyy: February 2020 has no day 31")
    }

    @Test func numbersAreSecondsSince1970() throws {
        #expect(try importConverted(jsonNumber("1388349428"), .date) == .date(Date(timeIntervalSince1970: 1_388_349_428)))
        #expect(try importConverted(jsonNumber("1388349428.25"), .date) == .date(Date(timeIntervalSince1970: 1_388_349_428.25)))
        #expect(try importConverted(jsonNumber("1.388349428e9"), .date) == .date(Date(timeIntervalSince1970: 1_388_349_428)))
        #expect(try importConverted(jsonNumber("-86400"), .date) == .date(utcDate(1969, 12, 31)))
        #expect(try importConverted(jsonNumber("0"), .date, userInfo: Self.customFormat) == .date(Date(timeIntervalSince1970: 0)))
        #expect(try importConverted(jsonNumber("-62135596800"), .date) == .date(Date(timeIntervalSince1970: -62_135_596_800)))
        #expect(try importConverted(jsonNumber("253402300799"), .date) == .date(utcDate(9999, 12, 31, 23, 59, 59)))
    }

    @Test func secondsOutsideYears1To9999AreErrorsThatSpotMilliseconds() {
        #expect(importFailure(jsonNumber("1388349427543"), .date)
            == "1388349427543 is out of range for a date in seconds since 1970 (years 1-9999); if it is milliseconds, set the attribute's dateFormat to UnixTime")
        #expect(importFailure(jsonNumber("253402300800"), .date)
            == "253402300800 is out of range for a date in seconds since 1970 (years 1-9999); if it is milliseconds, set the attribute's dateFormat to UnixTime")
        #expect(importFailure(jsonNumber("1e300"), .date) == "1e300 is out of range for a date in seconds since 1970 (years 1-9999)")
        #expect(importFailure(jsonNumber("-62135596801"), .date) == "-62135596801 is out of range for a date in seconds since 1970 (years 1-9999)")
    }

    @Test func unixTimeReadsMillisecondsFromNumbersAndNumericStrings() throws {
        let expected = AttributeValue.date(Date(timeIntervalSince1970: 1_388_349_427.543))
        #expect(try importConverted(jsonNumber("1388349427543"), .date, userInfo: Self.unixTime) == expected)
        #expect(try importConverted("1388349427543", .date, userInfo: Self.unixTime) == expected)
        #expect(try importConverted(jsonNumber("1388349427543.5"), .date, userInfo: Self.unixTime)
            == .date(Date(timeIntervalSince1970: 1_388_349_427.5435)))
        #expect(importFailure("2011-07-23T22:30:40Z", .date, userInfo: Self.unixTime)
            == "\"2011-07-23T22:30:40Z\" is not a number of milliseconds since 1970 (dateFormat UnixTime)")
        #expect(importFailure(jsonNumber("1e20"), .date, userInfo: Self.unixTime)
            == "1e20 is out of range for a date in milliseconds since 1970 (years 1-9999)")
    }

    @Test func anUnsupportedFormatFailsStringsWithWhyAndStillReadsSeconds() throws {
        let weekYear = [UserInfoKey.dateFormat: "YYYY-MM-dd"]
        #expect(importFailure("2011-07-23", .date, userInfo: weekYear)
            == "date format \"YYYY-MM-dd\" is not supported: Y is the week-based year, which differs from the calendar year around New Year: use y")
        #expect(try importConverted(jsonNumber("10"), .date, userInfo: weekYear) == .date(Date(timeIntervalSince1970: 10)))
    }

    @Test func otherKindsAreNotDates() {
        #expect(importFailure(true, .date) == "true cannot be converted to Date")
        #expect(importFailure(["2011-07-23T22:30:40Z"], .date) == "an array cannot be converted to Date")
        #expect(importFailure(["at": 1], .date, userInfo: Self.unixTime) == "an object cannot be converted to Date")
    }
}
