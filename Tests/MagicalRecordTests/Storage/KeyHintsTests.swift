import MagicalStore
import Testing
@testable import MagicalRecord

/// The table of key hints: lossy, bounded, and never wrong about what it still holds.
struct KeyHintsTests {
    /// Against a dictionary of every hint noted: a look-up gives nothing or the number
    /// noted last for the key, never another key's; the table grows to its maximum only.
    @Test(arguments: [1, 64, 1 << 12]) func aHintIsTheLastNotedOrNothing(maximumSlots: Int) {
        let hints = KeyHints(maximumSlots: maximumSlots)
        var noted: [Int64: Int64] = [:]
        var random = SplitMix64(seed: UInt64(maximumSlots))
        var found = 0
        for step in 0..<(20_000 * testScale) {
            // Keys from a small range (repeats, overwrites) and from all of Int64.
            let key = random.next() % 3 == 0 ? Int64(bitPattern: random.next()) : Int64(random.next() % 5_000) - 100
            if random.next() % 2 == 0 {
                let number = Int64(step + 1)
                hints.note(key: key, number: number)
                noted[key] = number
            } else if let number = hints.number(for: key) {
                #expect(number == noted[key], "key \(key)")
                found += 1
            }
            #expect(hints.slotCount <= maximumSlots)
        }
        #expect(found > 0)
        #expect(hints.answeredCount == found)
    }

    @Test func theTableGrowsWithWhatItIsToldAndKeepsItsHints() {
        let hints = KeyHints(maximumSlots: 1 << 14)
        hints.note((1...Int64(10_000)).map { (key: $0, number: $0 + 7) })
        // Doubling from 1,024 slots each time the hints since the last growth outnumber them.
        #expect(hints.slotCount == 8_192)
        let kept = (1...Int64(10_000)).filter { hints.number(for: $0) == $0 + 7 }.count
        #expect(kept > 5_000, "\(kept) of 10,000 hints kept in 8,192 slots")
        hints.note((10_001...Int64(40_000)).map { (key: $0, number: $0 + 7) })
        #expect(hints.slotCount == 1 << 14, "no further than its maximum")
    }

    @Test func numbersBelowOneAreNotHints() {
        let hints = KeyHints()
        hints.note(key: 5, number: 0)
        hints.note([(key: 6, number: -2)])
        #expect(hints.number(for: 5) == nil)
        #expect(hints.number(for: 6) == nil)
    }
}
