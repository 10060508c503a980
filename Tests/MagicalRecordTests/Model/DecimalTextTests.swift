import Foundation
import Testing
@testable import MagicalRecord

/// Decimals as exact text (Spec/MODEL.md, M4 and M12).
@Suite struct DecimalTextTests {
    @Test func wholeNumbersAreRead() {
        let cases: [(String, String)] = [
            ("0", "0"), ("1.2", "1.2"), ("-0.5", "-0.5"), ("+7", "7"), (".25", "0.25"), ("5.", "5"),
            ("1e3", "1000"), ("-2.5E-2", "-0.025"), ("12345678901234567890.123456789", "12345678901234567890.123456789"),
        ]
        for (text, expected) in cases {
            #expect(DecimalText.parse(text).map(DecimalText.format) == expected, "\(text)")
        }
    }

    @Test func anythingElseIsRefused() {
        for text in ["", ".", "-", "1.2.3", "12abc", "1,5", "1e", "1e+", "e5", " 1", "1 ", "0x10", "nan", "1e500"] {
            #expect(DecimalText.parse(text) == nil, "\(text)")
        }
    }
}
