import Foundation
import MagicalStore
import Testing
@testable import MagicalRecord

/// Texts read at fixed offsets give what the general parser gives, for patterns with and
/// without a layout and for texts of the layout's shape, near it and far from it.
struct DateFormatFixedLayoutTests {
    @Test func whichPatternsHaveALayout() throws {
        #expect(try DateFormatPattern(DateFormatPattern.importDefault).fixedLayout != nil)
        #expect(try DateFormatPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").fixedLayout != nil)
        #expect(try DateFormatPattern("dd/MM/yyyy HH:mm").fixedLayout != nil)
        #expect(try DateFormatPattern("M/d/yyyy").fixedLayout != nil)
        // Touching numbers, fractions, names, 12-hour clocks, two-digit years, digits in literals.
        for format in ["yyyyMMdd", "yyyy-MM-dd HH:mm:ss.SSS", "dd MMM yyyy", "hh:mm a yyyy", "yy-MM-dd", "yyyy'1'MM", "EEE yyyy-MM-dd", "Z yyyy"] {
            #expect(try DateFormatPattern(format).fixedLayout == nil, "\(format)")
        }
    }

    @Test func theDefaultFormatReadsAtFixedOffsets() throws {
        let pattern = try DateFormatPattern(DateFormatPattern.importDefault)
        for text in ["2011-07-23T22:30:40Z", "2011-07-23T22:30:40"] {
            let fast = Array(text.utf8).withUnsafeBufferPointer { pattern.fixedLayout?.date($0) }
            #expect(fast == utcDate(2011, 7, 23, 22, 30, 40))
        }
    }

    @Test(arguments: [
        DateFormatPattern.importDefault, "yyyy-MM-dd'T'HH:mm:ss'Z'", "dd/MM/yyyy HH:mm", "M/d/yyyy", "yyyy-MM-dd", "yyy.MM.dd",
        "HH:mm", "yyyy",
    ])
    func fixedOffsetsReadAsTheGeneralParser(format: String) throws {
        let pattern = try DateFormatPattern(format)
        let layout = try #require(pattern.fixedLayout)
        var random = SplitMix64(seed: UInt64(format.utf8.count))
        var readFast = 0
        for _ in 0..<(3_000 * testScale) {
            var text = Self.sample(format, using: &random)
            Self.mutate(&text, using: &random)
            let (fast, general) = text.withUnsafeBufferPointer { bytes in
                (layout.date(bytes), pattern.parseInGeneral(bytes))
            }
            guard let fast else { continue }
            readFast += 1
            let description = String(decoding: text, as: UTF8.self)
            guard case .success(let date) = general else {
                Issue.record("\(description) read as \(fast) at fixed offsets, but the general parser refuses it")
                continue
            }
            #expect(date == fast, "\(description)")
        }
        #expect(readFast > 300 * testScale, "too few texts of the layout's shape to compare")
    }

    /// A text written by `format` with random values, every number with its letters' digits.
    private static func sample(_ format: String, using random: inout SplitMix64) -> [UInt8] {
        var text: [UInt8] = []
        var index = format.startIndex
        var quoted = false
        while index < format.endIndex {
            let character = format[index]
            if character == "'" {
                quoted.toggle()
                index = format.index(after: index)
                continue
            }
            guard !quoted, character.isLetter else {
                text += Array(String(character).utf8)
                index = format.index(after: index)
                continue
            }
            var count = 0
            while index < format.endIndex, format[index] == character {
                count += 1
                index = format.index(after: index)
            }
            let value: Int = switch character {
            case "y": Int.random(in: 1...(count >= 4 ? 9999 : 999), using: &random)
            case "M": Int.random(in: 0...13, using: &random)
            case "d": Int.random(in: 0...32, using: &random)
            case "H": Int.random(in: 0...24, using: &random)
            case "Z": -1
            default: Int.random(in: 0...60, using: &random)
            }
            if value < 0 {
                text += Array(["Z", "", "+02:00", "z"][Int.random(in: 0..<4, using: &random)].utf8)
            } else {
                let digits = String(value)
                text += Array((String(repeating: "0", count: max(0, count - digits.count)) + digits).utf8)
            }
        }
        return text
    }

    /// Now and then: a byte changed, dropped or added, or a zone appended.
    private static func mutate(_ text: inout [UInt8], using random: inout SplitMix64) {
        let pool = Array("0123456789-:/TZ .+".utf8)
        switch Int.random(in: 0..<8, using: &random) {
        case 0 where !text.isEmpty: text[Int.random(in: 0..<text.count, using: &random)] = pool.randomElement(using: &random)!
        case 1 where !text.isEmpty: text.remove(at: Int.random(in: 0..<text.count, using: &random))
        case 2: text.insert(pool.randomElement(using: &random)!, at: Int.random(in: 0...text.count, using: &random))
        case 3: text += Array("Z".utf8)
        default: break
        }
    }
}
