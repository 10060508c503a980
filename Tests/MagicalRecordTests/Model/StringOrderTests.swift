import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Strings compare by their UTF-8 bytes (a prefix first), against a reference that
/// compares the byte arrays: small and large strings, NULs, non-ASCII, shared prefixes.
@Suite struct StringOrderTests {
    private static func reference(_ left: String, _ right: String) -> ComparisonResult {
        let (a, b) = (Array(left.utf8), Array(right.utf8))
        if a == b { return .orderedSame }
        return a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending
    }

    private static let pieces = ["", "a", "b", "ab", "\u{0}", "z", "é", "e\u{301}", "日本", "🙂", "Smith", "Smithson", String(repeating: "x", count: 20)]

    @Test(arguments: pieces)
    func everyPairOfPiecesOrdersByBytes(_ left: String) {
        for right in Self.pieces {
            #expect(AttributeValue.compare(.string(left), .string(right)) == Self.reference(left, right), "\(left) against \(right)")
        }
    }

    @Test func randomStringsOrderByBytes() {
        var random = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<2_000 * testScale {
            let (left, right) = (Self.randomString(&random), Self.randomString(&random))
            #expect(AttributeValue.compare(.string(left), .string(right)) == Self.reference(left, right), "\(left.debugDescription) against \(right.debugDescription)")
        }
    }

    /// Pieces glued together, so strings share prefixes and cross the small-string size.
    private static func randomString(_ random: inout SplitMix64) -> String {
        (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }
}
