import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// The short way through a conversion (`commonValue(from:)`, which planning a record tries
/// first) gives what the general rule gives, or nothing: random JSON values, read by the
/// reader as records hold them, into attributes of every type it knows.
@Suite struct ImportConversionCommonValueTests {
    private static let attributes: [AttributeDescription] = [
        AttributeDescription("value", .integer16),
        AttributeDescription("value", .integer32),
        AttributeDescription("value", .integer64),
        AttributeDescription("value", .double),
        AttributeDescription("value", .float),
        AttributeDescription("value", .decimal),
        AttributeDescription("value", .string),
        AttributeDescription("value", .boolean),
        AttributeDescription("value", .date),
        AttributeDescription("value", .date, userInfo: [UserInfoKey.dateFormat: "dd/MM/yyyy"]),
        AttributeDescription("value", .date, userInfo: [UserInfoKey.dateFormat: "UnixTime"]),
    ]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithTheGeneralRule(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let conversions = Self.attributes.map(ImportConversion.init)
        var taken = Array(repeating: 0, count: conversions.count)
        var left = Array(repeating: 0, count: conversions.count)
        let texts = (0..<(300 * testScale)).map { _ in Self.randomJSON(using: &random) }
        guard case .array(let values) = try JSONReader().read("[" + texts.joined(separator: ",") + "]") else {
            Issue.record("not an array")
            return
        }
        for (value, text) in zip(values, texts) {
            for (index, conversion) in conversions.enumerated() {
                let general = Result { () throws(ImportValueError) in try conversion.value(from: value) }
                guard let common = conversion.commonValue(from: value) else {
                    left[index] += 1
                    continue
                }
                taken[index] += 1
                #expect((try? general.get()) == common, "\(text) into \(conversion.attribute.type.rawValue) \(conversion.attribute.userInfo)")
            }
        }
        // Both ways are exercised for the types the short way serves.
        for index in [0, 1, 2, 3, 6, 8, 9] {
            #expect(taken[index] > 0 && left[index] > 0, "\(Self.attributes[index].type.rawValue) \(Self.attributes[index].userInfo)")
        }
        // The others always take the general rule.
        for index in [4, 5, 7, 10] { #expect(taken[index] == 0) }
    }

    /// A JSON text of the shapes records hold, well formed and not.
    private static func randomJSON(using random: inout SplitMix64) -> String {
        let digits = { (count: Int, random: inout SplitMix64) in String((0..<count).map { _ in "0123456789".randomElement(using: &random)! }) }
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return "null"
        case 1: return Bool.random(using: &random) ? "true" : "false"
        case 2:
            // Integers of every width, past Int64 and past 18 digits too.
            let text = String(Int.random(in: 1...9, using: &random)) + digits(Int.random(in: 0...20, using: &random), &random)
            return Bool.random(using: &random) ? "-" + text : text
        case 3: return String(Int64.random(in: -40_000...40_000, using: &random))
        case 4:
            // Decimals, short and long, and with exponents.
            let text = String(Int.random(in: 0...999, using: &random)) + "." + digits(Int.random(in: 1...17, using: &random), &random)
            return Bool.random(using: &random) ? text : text + "e" + String(Int.random(in: -5...5, using: &random))
        case 5: return ["0", "-0", "0.0", "-0.0", "1e3", "1E400", "2.50e1", "-0.5"].randomElement(using: &random)!
        case 6:
            let year = Int.random(in: 1...9999, using: &random), month = Int.random(in: 0...13, using: &random)
            let day = Int.random(in: 0...32, using: &random)
            let time = String(format: "%02d:%02d:%02d", Int.random(in: 0...24, using: &random), Int.random(in: 0...60, using: &random), Int.random(in: 0...59, using: &random))
            return "\"" + String(format: "%04d-%02d-%02d", year, month, day) + "T" + time + (Bool.random(using: &random) ? "Z" : "+0200") + "\""
        case 7: return "\"" + String(format: "%02d/%02d/%04d", Int.random(in: 0...32, using: &random), Int.random(in: 0...13, using: &random), Int.random(in: 1...9999, using: &random)) + "\""
        case 8: return "\"" + digits(Int.random(in: 0...12, using: &random), &random) + "\""
        case 9: return ["\"true\"", "\"no\"", "\"+42\"", "\" 42\"", "\"1.5\"", "\"\"", "\"caf\\u00e9\"", "\"2020-01-02T03:04:05Z \""].randomElement(using: &random)!
        case 10: return "\"" + String((0..<Int.random(in: 0...20, using: &random)).map { _ in "abcXYZ -:é".randomElement(using: &random)! }) + "\""
        default: return ["[1, 2]", "{\"a\": 1}", "{}", "[]"].randomElement(using: &random)!
        }
    }
}
