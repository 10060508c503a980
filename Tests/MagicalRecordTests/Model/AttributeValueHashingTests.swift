import Foundation
import Testing
@testable import MagicalRecord

/// Values hash as dictionaries and sets need: an integer by its number mixed
/// (``IntegerHash``), the others through `hash(into:)`; equal values hash alike under any
/// seed, and a set keeps apart values of different kinds that read alike.
@Suite struct AttributeValueHashingTests {
    private static let values: [AttributeValue] = [
        .null, .integer(0), .integer(1), .integer(-1), .integer(.max), .double(1), .double(0), .float(1),
        .bool(true), .bool(false), .string("1"), .string(""), .decimal(Decimal(1)), .date(Date(timeIntervalSince1970: 1)),
        .data(Data([1])), .uuid(UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), .uri(URL(string: "https://example.com/1")!),
    ]

    @Test func equalValuesHashAlikeUnderEverySeed() {
        for seed in [0, 1, -1, Int.max] {
            for value in Self.values {
                let copy = value
                #expect(value._rawHashValue(seed: seed) == copy._rawHashValue(seed: seed), "\(value)")
            }
        }
    }

    @Test func aSetKeepsEveryKindApart() {
        let many = Self.values + (2..<50_000).map { AttributeValue.integer(Int64($0) << 20) }
        let set = Set(many)
        #expect(set.count == many.count)
        for value in Self.values { #expect(set.contains(value), "\(value)") }
        #expect(!set.contains(.integer(2)))
        var counts: [AttributeValue: Int] = [:]
        for value in many { counts[value, default: 0] += 1 }
        #expect(counts.count == many.count)
    }
}
