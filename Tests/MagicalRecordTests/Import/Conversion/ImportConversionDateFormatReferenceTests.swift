import Foundation
import Testing
@testable import MagicalRecord

/// DateFormatPattern against Foundation's DateFormatter (`en_US_POSIX`), the reference:
/// random dates written by DateFormatter with every supported letter must read back as
/// DateFormatter reads them; mangled texts must never trap and, when both accept them,
/// read alike. Seeded: a failure names its seed and text.
///
/// Dates are drawn from 1600...9999 because before 1582-10-15 DateFormatter's calendar is
/// Julian and ours is proleptic Gregorian, on purpose.
struct ImportConversionDateFormatReferenceTests {
    /// Patterns without a zone, read in UTC.
    static let utcPatterns = [
        DateFormatPattern.importDefault,
        "M/d/yyyy H-mm-ss",
        "y-M-d H:m:s",
        "yy-MM-dd HH:mm",
        "yyyyMMddHHmmss",
        "yyMMdd'T'HHmmss.SSS",
        "dd MMM yyyy hh:mm:ss a",
        "EEE, d MMMM yyyy h:mm aa",
        "EEEE, MMM d, y K:mm a",
        "E dd LLL yyyy KK:mm:ss aaa",
        "LLLL d yyyy, kk:mm:ss",
        "yyyy-MM-dd k:mm:ss.SSS",
        "yyyy-MM-dd HH:mm:ss.S",
        "yyyy-MM-dd HH:mm:ss.SS",
        "yyyy-MM-dd HH:mm:ss.SSSSSS",
        "yyyyy.MM.dd 'at' HH''mm''ss",
        "'Week day' EEEE 'of' yyyy-MM-dd 'hour' HH",
        "MM/dd/yy h a",
        "d.M.y",
        "yyyy-MM-dd'T'HH:mm:ss'Z'",
    ]

    /// Patterns with a zone, written in each of `zones`.
    static let zonePatterns = [
        DateFormatPattern.importDefault,
        "yyyy-MM-dd'T'HH:mm:ssZZ",
        "yyyy-MM-dd'T'HH:mm:ssZZZ",
        "yyyy-MM-dd'T'HH:mm:ss.SSSZZZZZ",
        "yyyy-MM-dd HH:mm:ss ZZZZ",
        "yyyy-MM-dd'T'HH:mm:ssX",
        "yyyy-MM-dd'T'HH:mm:ssXX",
        "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
        "yyyy-MM-dd'T'HH:mm:ssXXXX",
        "yyyy-MM-dd'T'HH:mm:ssXXXXX",
        "yyyy-MM-dd'T'HH:mm:ssx",
        "yyyy-MM-dd'T'HH:mm:ssxx",
        "yyyy-MM-dd'T'HH:mm:ssxxx",
        "yyyy-MM-dd'T'HH:mm:ssxxxx",
        "yyyy-MM-dd'T'HH:mm:ssxxxxx",
        "EEE, dd MMM yyyy HH:mm:ss Z",
        "yyyy-MM-dd HH:mm:ss O",
        "yyyy-MM-dd HH:mm:ss OOOO",
        "yyyy-MM-dd h:mm a z",
        "yyyy-MM-dd HH:mm:ss zz",
        "yyyy-MM-dd HH:mm:ss zzz",
        "Z yyyy-MM-dd HH:mm:ss",
    ]

    static let zones = [
        "UTC", "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Anchorage",
        "Pacific/Honolulu", "Europe/Paris", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Pacific/Kiritimati",
        "Etc/GMT+12",
    ].map { TimeZone(identifier: $0)! } + [TimeZone(secondsFromGMT: 5 * 3600 + 1800)!, TimeZone(secondsFromGMT: -(3 * 3600 + 1800))!]

    static let datesPerCase = 60 * testScale

    private static func formatter(_ format: String, _ zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = format
        return formatter
    }

    /// A random instant in 1600...9999 with a millisecond fraction; every fourth one near
    /// now (1950...2049), where two-digit years and zone rules are busiest.
    private static func randomDate(_ random: inout SeededGenerator) -> Date {
        let milliseconds = random.chance(0.25)
            ? Int64.random(in: -631_152_000_000...2_524_608_000_000, using: &random)
            : Int64.random(in: -11_676_096_000_000...253_402_128_000_000, using: &random)
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    @Test(arguments: utcPatterns)
    func readsWhatDateFormatterWritesInUTC(format: String) throws {
        try check(format, zones: [TimeZone(identifier: "UTC")!], seed: UInt64(format.utf8.count) &* 0x9E37)
    }

    @Test(arguments: zonePatterns)
    func readsWhatDateFormatterWritesInEveryZone(format: String) throws {
        try check(format, zones: Self.zones, seed: UInt64(format.utf8.count) &* 0x51ED)
    }

    private func check(_ format: String, zones: [TimeZone], seed: UInt64) throws {
        let pattern = try DateFormatPattern(format)
        var random = SeededGenerator(seed: seed)
        for zone in zones {
            let reference = Self.formatter(format, zone)
            for _ in 0..<Self.datesPerCase {
                let date = Self.randomDate(&random)
                let text = reference.string(from: date)
                // DateFormatter reads HST and HDT as Honolulu's offsets at the time (half
                // hours before 1947-06-08); abbreviations here mean their fixed current offsets.
                if text.contains("HST") || text.contains("HDT"), date.timeIntervalSince1970 < -712_195_200 { continue }
                let expected = try #require(reference.date(from: text), "DateFormatter cannot read its own \(text) (\(format), \(zone.identifier))")
                #expect(try pattern.date(from: text) == expected, "\(format) in \(zone.identifier): \(text)")
            }
        }
    }

    /// Characters deleted, doubled, replaced or inserted in valid texts: nothing traps, and
    /// where both parsers accept a text they agree: to the millisecond DateFormatter keeps,
    /// in years 1583...9999 (before, its calendar is Julian; after, it reads some years
    /// oddly: `12011-04-08` with `yyyy-MM-dd` as 2011-04-08, `19999-04-08` as 19999).
    @Test func mangledTextsNeverTrapAndReadAlikeWhenBothAccept() {
        var random = SeededGenerator(seed: 0xDA7E)
        let alphabet = Array("0123456789-+:/.,' TZzAPMamGMTUCaugFriSepESTpdt")
        var agreed = 0
        for format in Self.utcPatterns + Self.zonePatterns {
            guard let pattern = try? DateFormatPattern(format) else {
                Issue.record("\(format) does not compile")
                continue
            }
            let reference = Self.formatter(format, TimeZone(identifier: "UTC")!)
            for _ in 0..<(20 * testScale) {
                var text = Array(reference.string(from: Self.randomDate(&random)))
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    let index = Int.random(in: 0..<max(1, text.count), using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where !text.isEmpty: text.remove(at: index)
                    case 1 where !text.isEmpty: text.insert(text[index], at: index)
                    case 2 where !text.isEmpty: text[index] = random.pick(alphabet)
                    default: text.insert(random.pick(alphabet), at: min(index, text.count))
                    }
                }
                let mangled = String(text)
                guard let ours = try? pattern.date(from: mangled), let theirs = reference.date(from: mangled),
                      (-12_212_553_600..<253_402_300_800).contains(ours.timeIntervalSince1970)
                else { continue }
                agreed += 1
                #expect(abs(ours.timeIntervalSince(theirs)) < 0.001, "\(format): \(mangled.debugDescription)")
            }
        }
        #expect(agreed > 0)
    }
}
