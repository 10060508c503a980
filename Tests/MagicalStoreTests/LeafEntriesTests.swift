import Testing
@testable import MagicalStore

/// A changed leaf's entries behave as a sorted list of (key, value) pairs, whatever mix of
/// inserts, replacements, removals, splits and merges reaches them, and encode to the page
/// a reader parses back to the same pairs.
@Suite struct LeafEntriesTests {
    private typealias Pair = (key: [UInt8], value: LeafValue)

    private func randomValue(_ random: inout SeededGenerator) -> LeafValue {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .overflow(OverflowReference(offset: random.next(), frameSize: UInt32.random(in: 1...9000, using: &random), length: 77))
        case 1: return .pendingOverflow(random.bytes(count: Int.random(in: 0...300, using: &random)))
        default: return .inline(random.bytes(count: Int.random(in: 0...40, using: &random)))
        }
    }

    /// The page size the reference pairs encode to: header, then slot and entry each.
    private func encodedSize(_ pairs: [Pair]) -> Int {
        pairs.reduce(2) { $0 + LeafEntries.pageBytes(key: $1.key, value: $1.value) }
    }

    private func expectSame(_ entries: LeafEntries, _ pairs: [Pair]) throws {
        #expect(entries.count == pairs.count)
        #expect(entries.encodedSize == encodedSize(pairs))
        for (index, pair) in pairs.enumerated() {
            #expect(entries.key(at: index) == pair.key)
            #expect(entries.value(at: index) == pair.value)
            #expect(entries.search(pair.key) == (index, true))
            let seen = try entries.withEntry(at: index, overflow: { _ in [9, 9, 9] }) { key, value in (Array(key), Array(value)) }
            #expect(seen.0 == pair.key)
            if case .inline(let bytes) = pair.value { #expect(seen.1 == bytes) } else { #expect(seen.1 == [9, 9, 9]) }
        }
    }

    /// Half the rounds start from entries copied from a page; every round ends encoded
    /// and read back as a page.
    @Test func matchesSortedPairsUnderRandomChanges() throws {
        var random = SeededGenerator(seed: 41)
        for round in 0..<(20 * testScale) {
            var entries = LeafEntries()
            var pairs: [Pair] = []
            if round % 2 == 1 {
                for number in stride(from: 0, to: 120, by: Int.random(in: 1...4, using: &random)) {
                    let value = LeafValue.inline(random.bytes(count: Int.random(in: 0...40, using: &random)))
                    entries.append(numberKey(number), value)
                    pairs.append((numberKey(number), value))
                }
                var payload: [UInt8] = []
                entries.encode(into: &payload)
                entries = LeafEntries(page: try PageNode(offset: 4096, frameSize: 100, transaction: 1, isLeaf: true, payload: payload))
                try expectSame(entries, pairs)
            }
            for _ in 0..<400 {
                let key = numberKey(Int.random(in: 0..<120, using: &random))
                let (index, found) = entries.search(key)
                #expect(index == pairs.firstIndex { compareBytes($0.key, key) >= 0 } ?? pairs.count)
                #expect(found == pairs.contains { $0.key == key })
                switch Int.random(in: 0..<8, using: &random) {
                case 0..<4:
                    let value = randomValue(&random)
                    if found {
                        entries.replaceValue(at: index, with: value)
                        pairs[index].value = value
                    } else {
                        entries.insert(key, value, at: index)
                        pairs.insert((key, value), at: index)
                    }
                case 4..<6 where found:
                    entries.remove(at: index)
                    pairs.remove(at: index)
                case 6 where pairs.count >= 2:
                    // Split and merge back: the same pairs, in a different buffer.
                    let at = Int.random(in: 1..<pairs.count, using: &random)
                    let right = entries.split(at: at)
                    try expectSame(entries, Array(pairs[..<at]))
                    try expectSame(right, Array(pairs[at...]))
                    entries.absorb(right)
                default:
                    continue
                }
            }
            try expectSame(entries, pairs)
            // Written out: large values first, then the page, which reads back as the pairs.
            for index in pairs.indices where entries.isPendingOverflow(at: index) {
                let reference = OverflowReference(offset: UInt64(index) * 4096, frameSize: 64, length: 300)
                entries.resolvePendingOverflow(at: index) { _ in reference }
                pairs[index].value = .overflow(reference)
            }
            var payload: [UInt8] = []
            entries.encode(into: &payload)
            let page = try PageNode(offset: 8192, frameSize: 100, transaction: 2, isLeaf: true, payload: payload)
            #expect(page.count == pairs.count)
            for (index, pair) in pairs.enumerated() {
                #expect(page.key(at: index) == pair.key)
                #expect(page.value(at: index) == pair.value)
            }
        }
    }

    /// Many replacements of the same entries leave most of the buffer unused; it is
    /// compacted, and the entries stay as they were.
    @Test func repeatedReplacementsKeepTheEntries() throws {
        var entries = LeafEntries()
        var pairs: [Pair] = []
        for number in 0..<50 {
            entries.append(numberKey(number), .inline([UInt8(number)]))
            pairs.append((numberKey(number), .inline([UInt8(number)])))
        }
        var random = SeededGenerator(seed: 5)
        for round in 0..<200 {
            let index = round % 50
            let value = LeafValue.inline(random.bytes(count: Int.random(in: 10...60, using: &random)))
            entries.replaceValue(at: index, with: value)
            pairs[index].value = value
        }
        try expectSame(entries, pairs)
    }

    /// Entries encode to the page format, and a page's entries, changed, encode again to
    /// what the same pairs encode to.
    @Test func encodesPagesAndCopiesThem() throws {
        var random = SeededGenerator(seed: 8)
        var entries = LeafEntries()
        var pairs: [Pair] = []
        for number in stride(from: 0, to: 200, by: 2) {
            let value = Int.random(in: 0..<6, using: &random) == 0
                ? LeafValue.overflow(OverflowReference(offset: UInt64(number) * 4096, frameSize: 100, length: 5000))
                : LeafValue.inline(random.bytes(count: Int.random(in: 0...20, using: &random)))
            entries.append(numberKey(number), value)
            pairs.append((numberKey(number), value))
        }
        var payload: [UInt8] = []
        entries.encode(into: &payload)
        #expect(payload.count == entries.encodedSize)
        let page = try PageNode(offset: 4096, frameSize: 100, transaction: 1, isLeaf: true, payload: payload)
        #expect(page.count == pairs.count)
        for (index, pair) in pairs.enumerated() {
            #expect(page.key(at: index) == pair.key)
            #expect(page.value(at: index) == pair.value)
        }

        var copy = LeafEntries(page: page)
        try expectSame(copy, pairs)
        copy.insert(numberKey(51), .inline([1, 2, 3]), at: 26)
        pairs.insert((numberKey(51), .inline([1, 2, 3])), at: 26)
        copy.remove(at: 0)
        pairs.remove(at: 0)
        try expectSame(copy, pairs)
        // The page itself is untouched by its copy's changes.
        #expect(page.key(at: 0) == numberKey(0))
        var again: [UInt8] = []
        copy.encode(into: &again)
        var expected = LeafEntries()
        for pair in pairs { expected.append(pair.key, pair.value) }
        var expectedPayload: [UInt8] = []
        expected.encode(into: &expectedPayload)
        #expect(again == expectedPayload)
    }

    /// Entries appended from borrowed bytes are the entries appended as arrays: the same
    /// page, the same size, the same keys found.
    @Test func borrowedInlineEntriesMatchArrayOnes() throws {
        var random = SeededGenerator(seed: 11)
        var borrowed = LeafEntries()
        var arrays = LeafEntries()
        for number in 0..<200 {
            let key = numberKey(number * 3) + random.bytes(count: number % 5)
            let value = random.bytes(count: number % 2 == 0 ? number % 7 : 130 + number)
            key.withUnsafeBytes { keyBytes in value.withUnsafeBytes { borrowed.appendInline(key: keyBytes, value: $0) } }
            arrays.append(key, .inline(value))
            #expect(borrowed.encodedSize == arrays.encodedSize)
        }
        var borrowedPage: [UInt8] = []
        var arrayPage: [UInt8] = []
        borrowed.encode(into: &borrowedPage)
        arrays.encode(into: &arrayPage)
        #expect(borrowedPage == arrayPage)
        #expect(borrowedPage.count == borrowed.encodedSize)
    }

    /// A pending large value is handed to the writer once and becomes its reference,
    /// sized in the page as a reference from the start.
    @Test func pendingOverflowBecomesAReference() throws {
        var entries = LeafEntries()
        let large = [UInt8](repeating: 7, count: 3000)
        entries.append(numberKey(1), .inline([1]))
        entries.append(numberKey(2), .pendingOverflow(large))
        let sizeBefore = entries.encodedSize
        #expect(entries.isPendingOverflow(at: 1))
        #expect(!entries.isPendingOverflow(at: 0))
        var written: [[UInt8]] = []
        entries.resolvePendingOverflow(at: 1) { bytes in
            written.append(Array(bytes))
            return OverflowReference(offset: 8192, frameSize: 64, length: UInt32(bytes.count))
        }
        #expect(written == [large])
        #expect(!entries.isPendingOverflow(at: 1))
        #expect(entries.overflowReference(at: 1) == OverflowReference(offset: 8192, frameSize: 64, length: 3000))
        #expect(entries.overflowReference(at: 0) == nil)
        #expect(entries.encodedSize == sizeBefore)
    }
}

extension LeafEntriesTests {
    /// The entry table an encoder works out for the leaf it writes is the one a reader
    /// parses from the payload: inline values short and long (a two-byte length), overflow
    /// references, keys short and long, after replacements and inserts in any order.
    @Test func encodedLocationsMatchTheParsedPage() throws {
        var random = SeededGenerator(seed: 43)
        for _ in 0..<(50 * testScale) {
            var entries = LeafEntries()
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                let key = random.bytes(count: Int.random(in: 0...20, using: &random))
                let value: LeafValue = Int.random(in: 0..<5, using: &random) == 0
                    ? .overflow(OverflowReference(offset: random.next(), frameSize: 4096, length: 9000))
                    : .inline(random.bytes(count: Int.random(in: 0...200, using: &random)))
                let (index, found) = entries.search(key)
                if found { entries.replaceValue(at: index, with: value) } else { entries.insert(key, value, at: index) }
            }
            var payload: [UInt8] = []
            var locations: [PageNode.EntryLocation] = []
            entries.encode(into: &payload, locations: &locations)
            let parsed = try PageNode(offset: 4096, frameSize: 0, transaction: 1, isLeaf: true, payload: payload)
            let built = PageNode(encodedLeafAt: 4096, frameSize: 0, transaction: 1, payload: payload, entries: locations, delta: nil)
            #expect(built.entries.count == parsed.entries.count)
            for (mine, theirs) in zip(built.entries, parsed.entries) {
                #expect(mine.keyPrefix == theirs.keyPrefix)
                #expect(mine.keyStart == theirs.keyStart)
                #expect(mine.keyLength == theirs.keyLength)
                #expect(mine.valueStart == theirs.valueStart)
                #expect(mine.valueLength == theirs.valueLength)
                #expect(mine.isOverflow == theirs.isOverflow)
            }
            #expect(built.memoryCost == parsed.memoryCost)
        }
    }
}
