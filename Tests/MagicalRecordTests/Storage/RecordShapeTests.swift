import MagicalStore
import Testing
@testable import MagicalRecord

/// A remembered shape answers for the mask it was last given, as counting its bits would:
/// random masks one after another, repeated ones among them, slots past the mask absent.
@Suite struct RecordShapeTests {
    @Test func followsEachMaskItIsGiven() {
        var random = SplitMix64(seed: 0x5348_4150)
        let slots = [0, 3, 7, 63, 64, 12, 200, 31]
        let shape = RecordShape(attributeSlots: slots)
        var masks: [UInt64] = [0, .max, 1 << 63, 0b1000_1001]
        for _ in 0..<200 { masks.append(random.next() & random.next()) }
        masks += masks.prefix(10)
        for presence in masks {
            #expect(shape.valueCount(presence) == presence.nonzeroBitCount)
            for (position, slot) in slots.enumerated() {
                let expected = slot < 64 && presence & (1 << UInt64(slot)) != 0
                    ? (presence & ((1 << UInt64(slot)) - 1)).nonzeroBitCount : nil
                #expect(shape.valueIndex(ofAttribute: position) == expected, "slot \(slot) of \(String(presence, radix: 2))")
            }
        }
    }
}
