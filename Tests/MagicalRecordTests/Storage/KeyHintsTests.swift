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

/// The table as an answer for absent keys: once complete, a key it was told is never
/// called absent, whatever it lost at its maximum, and it answers for nothing before.
struct KeyTableTests {
    /// The keys of a snapshot, in presence answers, against every key noted: a noted key
    /// is a candidate (its last number, or as rarely as hashes collide another key's) or
    /// unknown (its bucket lost a hint at the maximum), never absent.
    @Test(arguments: [64, 1 << 10, 1 << 13, 1 << 16]) func aNotedKeyIsNeverAbsent(maximumSlots: Int) {
        let hints = KeyHints(maximumSlots: maximumSlots)
        hints.markComplete(asOf: 1)
        var random = SplitMix64(seed: UInt64(maximumSlots) &+ 11)
        var noted: [Int64: Int64] = [:]
        var keyOfNumber: [Int64: Int64] = [:]
        var counts = (absent: 0, candidate: 0, unknown: 0, other: 0)
        // 10,000 notes, asked after in more rounds at a larger test scale.
        let rounds = 20 * testScale
        let notesPerRound = 10_000 / rounds
        for round in 0..<rounds {
            for step in 0..<notesPerRound {
                let key = random.next() % 2 == 0 ? Int64(bitPattern: random.next()) : Int64(random.next() % 20_000)
                let number = Int64(round * notesPerRound + step + 1)
                hints.note(key: key, number: number)
                noted[key] = number
                keyOfNumber[number] = key
            }
            let asked = Array(noted.keys.prefix(300)) + (0..<300).map { _ in Int64(bitPattern: random.next()) }
            hints.presence(of: asked, asOf: 1 + UInt64(round)) { place, presence in
                let key = asked[place]
                switch presence {
                case .absent:
                    #expect(noted[key] == nil, "noted key \(key) called absent")
                    counts.absent += 1
                case .candidate(let number):
                    if number == noted[key] {
                        counts.candidate += 1
                    } else {
                        #expect(keyOfNumber[number].map { $0 != key && noted[$0] == number } == true, "key \(key) got \(number)")
                        counts.other += 1
                    }
                case .unknown: counts.unknown += 1
                }
            }
        }
        #expect(counts.candidate > 0)
        #expect(counts.other * 100 <= counts.candidate)
        // 10,000 keys fill every bucket of the two smallest tables.
        if maximumSlots >= 1 << 13 { #expect(counts.absent > 0) }
        if maximumSlots == 1 << 16 {
            #expect(counts.unknown == 0, "under its maximum the table grows rather than lose a hint")
        } else {
            #expect(counts.unknown > 0, "at its maximum a full bucket loses hints")
        }
    }

    @Test func theTableAnswersOnlyFromTheCommitItIsCompleteAsOf() {
        let hints = KeyHints()
        hints.note(key: 5, number: 50)
        func answers(asOf transaction: UInt64) -> [KeyHints.Presence] {
            var answers: [KeyHints.Presence] = []
            hints.presence(of: [5, 6], asOf: transaction) { _, presence in answers.append(presence) }
            return answers
        }
        #expect(answers(asOf: 9) == [.unknown, .unknown])
        #expect(!hints.isComplete(asOf: 9))
        hints.markComplete(asOf: 7)
        #expect(answers(asOf: 6) == [.unknown, .unknown])
        #expect(answers(asOf: 7) == [.candidate(50), .absent])
        // Complete as of 7 already: a later mark does not narrow it.
        hints.markComplete(asOf: 12)
        #expect(hints.isComplete(asOf: 8))
    }

    /// A number past 32 bits is not noted: its bucket no longer answers for absent keys.
    @Test func aKeyNotNotedMakesItsBucketUnknown() {
        let hints = KeyHints()
        hints.markComplete(asOf: 1)
        hints.note(key: 7, number: Int64(UInt32.max) + 1)
        var answer: KeyHints.Presence?
        hints.presence(of: [7], asOf: 1) { _, presence in answer = presence }
        #expect(answer == .unknown)
        // Its bucket stays unknown as the table grows.
        hints.note((1_000...Int64(20_000)).map { (key: $0, number: $0) })
        hints.presence(of: [7], asOf: 1) { _, presence in answer = presence }
        #expect(answer == .unknown)
    }

    @Test func aLookUpFillsTheTableOnceItHasWantedHalfTheKeys() {
        let hints = KeyHints(maximumSlots: 1 << 12)
        #expect(!hints.wantsFilling(keysWanted: 100, keysHeld: 1_000))
        #expect(!hints.wantsFilling(keysWanted: 300, keysHeld: 1_000))
        #expect(hints.wantsFilling(keysWanted: 100, keysHeld: 1_000))
        #expect(!hints.wantsFilling(keysWanted: 10_000, keysHeld: 4_000), "more keys than half its maximum")
    }
}
