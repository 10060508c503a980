import MagicalStore
import Testing
@testable import MagicalRecord

/// The table of key hints: lossy, bounded, and never wrong about what it still holds.
struct KeyHintsTests {
    /// Against a dictionary of every hint noted: a look-up gives nothing or the number
    /// noted last for the key, or, as rarely as 32 bits of hash collide, the number last
    /// noted for another key (which finders check); the table grows to its maximum only.
    @Test(arguments: [1, 64, 1 << 12]) func aHintIsTheLastNotedOrNothing(maximumSlots: Int) throws {
        let hints = KeyHints(maximumSlots: maximumSlots)
        var noted: [Int64: Int64] = [:]
        var random = SplitMix64(seed: UInt64(maximumSlots))
        var keyOfNumber: [Int64: Int64] = [:]
        var found = 0
        var others = 0
        for step in 0..<(20_000 * testScale) {
            // Keys from a small range (repeats, overwrites) and from all of Int64.
            let key = random.next() % 3 == 0 ? Int64(bitPattern: random.next()) : Int64(random.next() % 5_000) - 100
            if random.next() % 2 == 0 {
                let number = Int64(step + 1)
                hints.note(key: key, number: number)
                noted[key] = number
                keyOfNumber[number] = key
            } else if let number = hints.number(for: key) {
                found += 1
                if number == noted[key] { continue }
                // Another key's: the last noted for it, never a number nobody noted.
                let other = try #require(keyOfNumber[number], "key \(key) got \(number), which was never noted")
                #expect(other != key && noted[other] == number, "key \(key)")
                others += 1
            }
            #expect(hints.slotCount <= maximumSlots)
        }
        #expect(found > 0)
        #expect(others * 100 <= found, "\(others) of \(found) answers were another key's")
        #expect(hints.answeredCount == found)
    }

    @Test func theTableGrowsWithWhatItIsToldAndKeepsItsHints() {
        let hints = KeyHints(maximumSlots: 1 << 14)
        hints.note((1...Int64(10_000)).map { (key: $0, number: $0 + 7) })
        // Doubling from 1,024 slots each time the hints since the last growth outnumber
        // half of them: after 513, 1,025, 2,049 and 4,097.
        #expect(hints.slotCount == 16_384)
        let kept = (1...Int64(10_000)).filter { hints.number(for: $0) == $0 + 7 }.count
        #expect(kept > 7_000, "\(kept) of 10,000 hints kept in 16,384 slots")
        hints.note((10_001...Int64(40_000)).map { (key: $0, number: $0 + 7) })
        #expect(hints.slotCount == 1 << 14, "no further than its maximum")
    }

    /// Buckets of eight keep most of what they are told as the table grows to its maximum
    /// and fills to three quarters (10,747 of 12,000 here); with one place per key it kept
    /// 7,327.
    @Test func aFullTableKeepsMostHintsAtThreeQuartersLoad() {
        let hints = KeyHints(maximumSlots: 1 << 14)
        var random = SplitMix64(seed: 7)
        let keys = (0..<12_000).map { _ in Int64(bitPattern: random.next()) }
        hints.note(keys.enumerated().map { (key: $1, number: Int64($0 + 1)) })
        #expect(hints.slotCount == 1 << 14)
        let kept = keys.enumerated().filter { hints.number(for: $1) == Int64($0 + 1) }.count
        #expect(kept > 10_000, "\(kept) of 12,000 hints kept in 16,384 slots")
    }

    @Test func numbersBelowOneOrPast32BitsAreNotHints() {
        let hints = KeyHints()
        hints.note(key: 5, number: 0)
        hints.note([(key: 6, number: -2)])
        hints.note(key: 7, number: Int64(UInt32.max) + 1)
        hints.note(key: 8, number: Int64(UInt32.max))
        #expect(hints.number(for: 5) == nil)
        #expect(hints.number(for: 6) == nil)
        #expect(hints.number(for: 7) == nil)
        #expect(hints.number(for: 8) == Int64(UInt32.max))
    }
}
