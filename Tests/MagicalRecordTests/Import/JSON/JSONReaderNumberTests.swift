import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Numbers keep their text; conversions are exact or nil.
struct JSONReaderNumberTests {
    private static let posix = Locale(identifier: "en_US_POSIX")

    @Test func int64ValueIsExact() {
        let cases: [(String, Int64?)] = [
            ("0", 0), ("-0", 0), ("-0.0e5", 0), ("0.000e-99999999999999999999", 0),
            ("7", 7), ("-12", -12), ("1.0", 1), ("1e2", 100), ("1E+2", 100), ("2.50e1", 25), ("100e-2", 1),
            ("12345678901234567890000e-4", 1_234_567_890_123_456_789),
            ("10158365420975381", 10_158_365_420_975_381),
            ("9223372036854775807", .max), ("-9223372036854775808", .min),
            ("9.223372036854775807e18", .max), ("1e18", 1_000_000_000_000_000_000),
            // Not whole, or out of range.
            ("1.5", nil), ("1e-2", nil), ("0.1", nil), ("123456789012345678901234567890e-20", nil),
            ("9223372036854775808", nil), ("-9223372036854775809", nil), ("18446744073709551615", nil),
            ("18446744073709551616", nil), ("1e19", nil), ("1e999999999999999999999", nil),
        ]
        for (text, expected) in cases {
            #expect(JSONNumber(text: text).int64Value == expected, "\(text)")
        }
    }

    @Test func plainIntegersOfEveryLengthReadAsSwiftReadsThem() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 1...20, using: &random)
            var digits = String(Int.random(in: 1...9, using: &random))
            for _ in 1..<length { digits += String(Int.random(in: 0...9, using: &random)) }
            for text in [digits, "-" + digits] {
                // Int64(_:) is the reference: exact, nil past the range.
                #expect(JSONNumber(text: text).int64Value == Int64(text), "\(text)")
            }
        }
        for value in [Int64.max, .min, .max - 1, .min + 1, 999_999_999_999_999_999, -999_999_999_999_999_999, 1_000_000_000_000_000_000] {
            #expect(JSONNumber(text: String(value)).int64Value == value)
        }
    }

    @Test func bigIntegersReadExactly() throws {
        let values = try JSONReader().read("[10158365420975381, 9223372036854775807, -9223372036854775808, 18446744073709551616]")
        guard case .array(let numbers) = values else {
            Issue.record("not an array")
            return
        }
        let texts = numbers.map { if case .number(let number) = $0 { number.text } else { "" } }
        #expect(texts == ["10158365420975381", "9223372036854775807", "-9223372036854775808", "18446744073709551616"])
        let int64s = numbers.map { value -> Int64? in if case .number(let number) = value { number.int64Value } else { nil } }
        #expect(int64s == [10_158_365_420_975_381, .max, .min, nil])
        guard case .number(let twoToThe64) = numbers[3] else { return }
        #expect(twoToThe64.decimalValue == Decimal(string: "18446744073709551616", locale: Self.posix))
        #expect(twoToThe64.decimalValue?.description == "18446744073709551616")
    }

    @Test func decimalValueIsExactOrNil() {
        let exact: [(String, String)] = [
            ("0.1", "0.1"), ("-2.50", "-2.5"), ("1e2", "100"), ("1.5e-3", "0.0015"),
            ("-9223372036854775808", "-9223372036854775808"),
            ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
            ("1" + String(repeating: "0", count: 60), "1" + String(repeating: "0", count: 60)),
            ("0.00000000000000000000000000000000000000000000001", "0.00000000000000000000000000000000000000000000001"),
        ]
        for (text, expected) in exact {
            #expect(JSONNumber(text: text).decimalValue?.description == expected, "\(text)")
        }
        // 39 significant digits, or beyond Decimal's exponents: nil, never rounded.
        for text in ["123456789012345678901234567890123456789", "340282366920938463463374607431768211456", "1e-200", "1e200"] {
            #expect(JSONNumber(text: text).decimalValue == nil, "\(text)")
        }
    }

    /// Short decimals (read by dividing their digits by a power of ten) come out bit for
    /// bit as the general parser reads them, signed zeros and the 15-digit limit included.
    @Test func shortDecimalsReadAsTheGeneralParserDoes() {
        var random = SplitMix64(seed: 0x4443_4D4C)
        var texts = ["0", "-0", "0.0", "-0.0", "1.", ".5", "-.5", "123456789012345", "1234567890123456", "0.000000000000001",
                     "9007199254740993", "99999999999999.9", "-99999999999999.99", "1.2.3", "-", "."]
        for _ in 0..<(2000 * testScale) {
            let digits = String((0..<Int.random(in: 1...17, using: &random)).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            let point = Int.random(in: 0...digits.count, using: &random)
            let text = (Bool.random(using: &random) ? "-" : "") + digits.prefix(point) + "." + digits.dropFirst(point)
            texts.append(text)
            texts.append(digits)
        }
        for text in texts {
            let expected = Double(text).flatMap { $0.isFinite ? $0 : nil }
            #expect(JSONNumber(text: text).doubleValue?.bitPattern == expected?.bitPattern, "\(text)")
        }
    }

    @Test func doubleValueIsNearest() {
        #expect(JSONNumber(text: "1.5").doubleValue == 1.5)
        #expect(JSONNumber(text: "-0").doubleValue == 0)
        #expect(JSONNumber(text: "1e-400").doubleValue == 0)
        #expect(JSONNumber(text: "1e400").doubleValue == nil)
        #expect(JSONNumber(text: "-1e400").doubleValue == nil)
        #expect(JSONNumber(text: "9007199254740993").doubleValue == 9_007_199_254_740_992)
        #expect(JSONNumber(text: "0.1").doubleValue == 0.1)
        #expect(JSONNumber(text: "2.2250738585072014E-308").doubleValue == .leastNormalMagnitude)
    }

    /// Random integers, spelled every way JSON allows, convert back exactly.
    @Test func randomIntegersRoundTrip() {
        var random = SeededGenerator(seed: 0x4E55_4D42)
        for _ in 0..<(2000 * testScale) {
            let value = Int64.random(in: .min ... .max, using: &random) >> Int64.random(in: 0...63, using: &random)
            let plain = String(value)
            for text in [plain, plain + ".0", plain + "e0", plain + "0e-1", plain + ".000E+0"] {
                #expect(JSONNumber(text: text).int64Value == value, "\(text)")
            }
            #expect(JSONNumber(text: plain).decimalValue?.description == plain)
            if value != 0, value % 10 != 0 {
                #expect(JSONNumber(text: plain + "e-1").int64Value == nil)
            }
        }
    }
}

/// Plain integers and short decimals are read as values, not their text: they must spell,
/// convert, compare and hash as the same number read as text does.
struct JSONNumberStorageTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func integersReadAsValuesMatchTheirText(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let reader = JSONReader()
        var (integers, decimals) = (0, 0)
        for _ in 0..<(2_000 * testScale) {
            let text = Self.randomNumberText(using: &random)
            guard case .number(let read) = try reader.read(text) else {
                Issue.record("\(text) did not read as a number")
                continue
            }
            let asText = JSONNumber(text: text)
            #expect(read.text == text)
            #expect(read == asText && asText == read)
            #expect(read.hashValue == asText.hashValue)
            #expect(read.int64Value == asText.int64Value, "\(text)")
            #expect(read.doubleValue?.bitPattern == asText.doubleValue?.bitPattern, "\(text)")
            #expect(read.decimalValue == asText.decimalValue, "\(text)")
            if read.storedInteger != nil { integers += 1 }
            if read.storedDecimal != nil { decimals += 1 }
        }
        #expect(integers > 200 * testScale && decimals > 100 * testScale, "\(integers) integers, \(decimals) decimals kept as values")
    }

    @Test func theLimitsOfStoredIntegers() throws {
        let reader = JSONReader()
        for text in ["0", "-0", "-1", "999999999999999999", "-999999999999999999", "1000000000000000000",
                     "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12.0", "1e3",
                     "0.0", "-0.0", "-0.05", "100.10", "54321.17", "99999999999999.9", "999999999999999.9", "1.5e3", "0.000000000000001"] {
            guard case .number(let read) = try reader.read(text) else {
                Issue.record("\(text) did not read as a number")
                continue
            }
            #expect(read.text == text)
            #expect(read.int64Value == JSONNumber(text: text).int64Value, "\(text)")
            #expect(read.doubleValue?.bitPattern == JSONNumber(text: text).doubleValue?.bitPattern, "\(text)")
        }
        #expect(JSONValue(integerLiteral: .min) == .number(JSONNumber(text: "-9223372036854775808")))
        #expect(JSONNumber(text: "7") != JSONNumber(text: "7.0"))
    }

    /// Integers of every length (some past Int64), with fractions and exponents now and then.
    /// Short ones too, so the digits of a fraction often fit the 15 kept as a value.
    private static func randomNumberText(using random: inout SplitMix64) -> String {
        let length = Bool.random(using: &random) ? Int.random(in: 1...21, using: &random) : Int.random(in: 1...6, using: &random)
        var text = Int.random(in: 0..<8, using: &random) == 0 ? "0" : String(Int.random(in: 1...9, using: &random))
        if text != "0" { for _ in 1..<length { text += String(Int.random(in: 0...9, using: &random)) } }
        if Bool.random(using: &random) { text = "-" + text }
        if Int.random(in: 0..<3, using: &random) == 0 {
            // Fractions with leading and trailing zeros, past 15 digits in all now and then.
            text += "." + (0..<Int.random(in: 1...9, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
        }
        if Int.random(in: 0..<8, using: &random) == 0 { text += "e" + String(Int.random(in: -30...30, using: &random)) }
        return text
    }
}
