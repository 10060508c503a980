import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Exact ISO 8601 dates (Spec/MODEL.md, M12).
@Suite struct ISO8601TextTests {
    @Test func datesAreWrittenInUTCWithTheFewestDigitsThatReadBack() {
        let cases: [(TimeInterval, String)] = [
            (0, "2001-01-01T00:00:00Z"),
            (333_000_000.5, "2011-07-22T04:00:00.5Z"),
            (-978_307_200, "1970-01-01T00:00:00Z"),
            (-0.3, "2000-12-31T23:59:59.7Z"),
            (1e-5, "2001-01-01T00:00:00.00001Z"),
            (-63_113_904_000, "0001-01-01T00:00:00Z"),
            (-63_145_526_400, "0000-01-01T00:00:00Z"),
            (-63_145_526_401, "-0001-12-31T23:59:59Z"),
            (252_423_993_600, "+10000-01-01T00:00:00Z"),
            (-28_800 + 86_400 * 59, "2001-02-28T16:00:00Z"),
        ]
        for (interval, text) in cases {
            #expect(ISO8601Text.format(Date(timeIntervalSinceReferenceDate: interval)) == text, "\(interval)")
            #expect(ISO8601Text.parse(text) == Date(timeIntervalSinceReferenceDate: interval), "\(text)")
        }
    }

    /// From 1583 on: before, Foundation switches to the Julian calendar, where ISO 8601
    /// (and we) keep counting in the Gregorian one.
    @Test func theWholeSecondsAgreeWithFoundationsFormatter() {
        let formatter = ISO8601DateFormatter()
        var random = SplitMix64(seed: 8601)
        for _ in 0..<2000 {
            let date = Date(timeIntervalSinceReferenceDate: Double(Int64.random(in: -13_190_860_800...200_000_000_000, using: &random)))
            #expect(ISO8601Text.format(date) == formatter.string(from: date))
        }
    }

    @Test func everyDateReadsBackExactly() {
        var random = SplitMix64(seed: 2001)
        for index in 0..<5000 {
            let interval = index % 4 == 0
                ? Double(bitPattern: random.next())
                : Double.random(in: -1e11...1e11, using: &random) * (index % 2 == 0 ? 1 : 1e-9)
            let date = Date(timeIntervalSinceReferenceDate: interval)
            guard let text = ISO8601Text.format(date) else {
                #expect(!interval.isFinite || abs(interval) >= 1e18, "\(interval)")
                continue
            }
            #expect(ISO8601Text.parse(text)?.timeIntervalSinceReferenceDate == interval, "\(interval) \(text)")
        }
    }

    @Test func malformedDatesAreRefused() {
        for text in [
            "", "Z", "2001-01-01", "2001-01-01T00:00:00", "2001-01-01 00:00:00Z", "2001-1-01T00:00:00Z",
            "2001-02-29T00:00:00Z", "2001-13-01T00:00:00Z", "2001-00-01T00:00:00Z", "2001-01-32T00:00:00Z",
            "2001-01-01T24:00:00Z", "2001-01-01T00:60:00Z", "2001-01-01T00:00:60Z", "2001-01-01T00:00:00.Z",
            "2001-01-01T00:00:00.1e5Z", "2001-01-01T00:00:00+01:00", "+123456789012-01-01T00:00:00Z", "２００１-01-01T00:00:00Z",
        ] {
            #expect(ISO8601Text.parse(text) == nil, "\(text)")
        }
        #expect(ISO8601Text.parse("2000-02-29T00:00:00Z") != nil, "a leap day")
    }
}
