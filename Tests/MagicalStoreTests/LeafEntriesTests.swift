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
            try expectWrittenPage(&entries, &pairs)
        }
    }

    /// Written out, large values first and then the page, `entries` read back as `pairs`
    /// (their pending values become the references written).
    private func expectWrittenPage(_ entries: inout LeafEntries, _ pairs: inout [Pair]) throws {
        for index in pairs.indices where entries.isPendingOverflow(at: index) {
            let reference = OverflowReference(offset: UInt64(index) * 4096, frameSize: 64, length: 300)
            entries.resolvePendingOverflow(at: index) { _ in reference }
            pairs[index].value = .overflow(reference)
        }
        var payload: [UInt8] = []
        entries.encode(into: &payload)
        try expectPage(payload, holds: pairs)
    }

    private func expectPage(_ payload: [UInt8], holds pairs: [Pair]) throws {
        let page = try PageNode(offset: 8192, frameSize: 100, transaction: 2, isLeaf: true, payload: payload)
        #expect((0..<page.count).map { page.key(at: $0) } == pairs.map(\.key))
        #expect((0..<page.count).map { page.value(at: $0) } == pairs.map(\.value))
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

    /// A leaf's copy, and the right half of a leaf split in the middle, are read again
    /// soon (their pages are worth caching as written); new entries, and the one entry a
    /// split at the end moves (keys added in order), are not.
    @Test func copiesAndMiddleSplitsAreReadAgainSoon() throws {
        var made = LeafEntries()
        for number in 0..<40 { made.append(numberKey(number), .inline([1])) }
        #expect(!made.isReadAgainSoon)
        var payload: [UInt8] = []
        made.encode(into: &payload)
        let copy = LeafEntries(page: try PageNode(offset: 8192, frameSize: 100, transaction: 2, isLeaf: true, payload: payload))
        #expect(copy.isReadAgainSoon)

        var splitting = made
        let atTheEnd = splitting.split(at: 39)
        #expect(atTheEnd.count == 1 && !atTheEnd.isReadAgainSoon)
        let inTheMiddle = splitting.split(at: 20)
        #expect(inTheMiddle.count == 19 && inTheMiddle.isReadAgainSoon)
        #expect(!splitting.isReadAgainSoon, "the left half is what it was")
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
    /// The format reads any LEB128 length, minimal or not (Spec section 1): a page whose
    /// key length takes two bytes is copied and written again with its entries intact.
    @Test func copiesAPageWithLongerLengthEncodings() throws {
        // Entry 0: key length 3 in two bytes, value length 1 in two; entry 1 minimal.
        let first: [UInt8] = [0x83, 0x00] + Array("abc".utf8) + [0, 0x81, 0x00, 7]
        let second: [UInt8] = [0x03] + Array("xyz".utf8) + [0, 0x01, 8]
        var payload: [UInt8] = [2, 0, 6, 0, UInt8(6 + first.count), 0]
        payload += first + second
        let page = try PageNode(offset: 4096, frameSize: 100, transaction: 1, isLeaf: true, payload: payload)
        var pairs: [Pair] = [(Array("abc".utf8), .inline([7])), (Array("xyz".utf8), .inline([8]))]
        try expectPage(payload, holds: pairs)

        var copy = LeafEntries(page: page)
        #expect(copy.encodedSize == payload.count)
        copy.insert(Array("mmm".utf8), .inline([9]), at: 1)
        pairs.insert((Array("mmm".utf8), .inline([9])), at: 1)
        try expectWrittenPage(&copy, &pairs)
    }

    /// A page's inline entries appended in runs are the entries appended one at a time: the
    /// same pairs and size, and the page written from them reads back the same.
    @Test func runsOfAPageMatchItsEntriesOneAtATime() throws {
        var random = SeededGenerator(seed: 23)
        var source = LeafEntries()
        for number in 0..<120 { source.append(numberKey(number), .inline(random.bytes(count: Int.random(in: 0...30, using: &random)))) }
        var payload: [UInt8] = []
        source.encode(into: &payload)
        let page = try PageNode(offset: 4096, frameSize: 100, transaction: 1, isLeaf: true, payload: payload)
        var runs = LeafEntries()
        var pairs: [Pair] = []
        var index = 0
        while index < page.count {
            let length = Int.random(in: 1...20, using: &random)
            let run = page.inlineRun(from: index, to: min(index + length, page.count), room: .max, inlineLimit: 1_000, takesFirst: false)
            #expect(run.count == min(length, page.count - index))
            runs.appendEntries(ofPage: page, in: index..<index + run.count, bytes: run.bytes)
            for entry in index..<index + run.count { pairs.append((page.key(at: entry), page.value(at: entry))) }
            index += run.count
        }
        try expectSame(runs, pairs)
        try expectWrittenPage(&runs, &pairs)
        // A run stops before the entry that would overflow the room, and at a value over the limit.
        let firstTwo = page.inlineRun(from: 0, to: page.count, room: LeafEntries.pageBytes(key: pairs[0].key, value: pairs[0].value)
            + LeafEntries.pageBytes(key: pairs[1].key, value: pairs[1].value), inlineLimit: 1_000, takesFirst: false)
        #expect(firstTwo.count == 2)
        #expect(page.inlineRun(from: 0, to: page.count, room: 0, inlineLimit: 1_000, takesFirst: true).count == 1)
        #expect(page.inlineRun(from: 0, to: page.count, room: .max, inlineLimit: 0, takesFirst: true).count == 0)
    }

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
            let locations = entries.encodeLocating(into: &payload)
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

extension LeafEntriesTests {
    /// A run of ascending keys put in one pass is the same as putting them one at a time
    /// until the first that would not fit: the same pairs, size, count of new keys and
    /// overflow bytes freed, and a delta that still reads back as the pairs.
    @Test func putRunMatchesPuttingOneAtATime() throws {
        var random = SeededGenerator(seed: 47)
        for round in 0..<(30 * testScale) {
            var entries = LeafEntries()
            var pairs: [Pair] = []
            for number in stride(from: 0, to: 200, by: Int.random(in: 1...5, using: &random)) {
                let value = randomValue(&random)
                entries.append(numberKey(number), value)
                pairs.append((numberKey(number), value))
            }
            if round % 2 == 0 {
                // From a page: its values may be overflow references, which a replacement frees.
                for index in pairs.indices where entries.isPendingOverflow(at: index) {
                    let reference = OverflowReference(offset: UInt64(index) * 4096, frameSize: UInt32(index + 1), length: 300)
                    entries.resolvePendingOverflow(at: index) { _ in reference }
                    pairs[index].value = .overflow(reference)
                }
                var payload: [UInt8] = []
                entries.encode(into: &payload)
                entries = LeafEntries(page: try PageNode(offset: 4096, frameSize: 100, transaction: 1, isLeaf: true, payload: payload))
            }
            for _ in 0..<8 {
                // Even numbers are keys a page may hold; odd ones fall between them.
                let numbers = Set((0..<Int.random(in: 0...120, using: &random)).map { _ in Int.random(in: 0..<420, using: &random) })
                let run: [(key: [UInt8], value: [UInt8])] = numbers.sorted().map {
                    (numberKey($0 / 2) + ($0 % 2 == 0 ? [] : [7]), random.bytes(count: Int.random(in: 0...60, using: &random)))
                }
                let capacity = entries.encodedSize + Int.random(in: -10...3000, using: &random)
                var expected = PutRunExpectation(pairs: pairs, size: entries.encodedSize)
                for (key, value) in run where !expected.isFull {
                    expected.put(key, value, capacity: capacity)
                }
                // Borrowed for the call, as a batch's entries are.
                let keys = EntryBatch(run)
                let done = keys.withEntries { batch in
                    entries.putInline(capacity: capacity) { place in place < batch.count ? (batch.key(place), batch.value(place)) : nil }
                }
                #expect(done.taken == expected.taken)
                #expect(done.inserted == expected.inserted)
                #expect(done.freedOverflowBytes == expected.freedOverflowBytes)
                pairs = expected.pairs
                try expectSame(entries, pairs)
            }
            try expectWrittenPage(&entries, &pairs)
        }
    }
}

extension LeafEntriesTests {
    /// A run of ascending keys removed in one pass is the same as removing them one at a
    /// time until the first that would leave the leaf under its floor: the same pairs and
    /// size, absent and repeated keys passed over, overflow bytes freed, and a delta that
    /// reads back as the pairs.
    @Test func removedRunMatchesRemovingOneAtATime() throws {
        var random = SeededGenerator(seed: 53)
        for round in 0..<(30 * testScale) {
            var entries = LeafEntries()
            var pairs: [Pair] = []
            for number in stride(from: 0, to: 300, by: Int.random(in: 1...3, using: &random)) {
                let value: LeafValue = Int.random(in: 0..<6, using: &random) == 0
                    ? .overflow(OverflowReference(offset: UInt64(number) * 4096, frameSize: UInt32(number + 1), length: 5000))
                    : .inline(random.bytes(count: Int.random(in: 0...40, using: &random)))
                entries.append(numberKey(number), value)
                pairs.append((numberKey(number), value))
            }
            var basePage: PageNode?
            if round % 2 == 0 {
                var payload: [UInt8] = []
                entries.encode(into: &payload)
                basePage = try PageNode(offset: 4096, frameSize: 100, transaction: 1, isLeaf: true, payload: payload)
                entries = LeafEntries(page: basePage!)
            }
            var removedInRound = 0
            for _ in 0..<6 {
                // Sorted with repeats; odd numbers fall between the stored keys.
                let keys = (0..<Int.random(in: 0...80, using: &random)).map { _ in Int.random(in: 0..<620, using: &random) }.sorted()
                    .map { numberKey($0 / 2) + ($0 % 2 == 0 ? [] : [7]) }
                let floor = entries.encodedSize - Int.random(in: -10...2000, using: &random)
                var expectedSize = entries.encodedSize
                var expectedTaken = 0
                var expectedRemoved = 0
                var expectedFreed: UInt64 = 0
                for key in keys {
                    if let index = pairs.firstIndex(where: { $0.key == key }) {
                        let entryBytes = LeafEntries.pageBytes(key: key, value: pairs[index].value)
                        guard expectedSize - entryBytes >= floor else { break }
                        expectedSize -= entryBytes
                        if case .overflow(let reference) = pairs[index].value { expectedFreed += UInt64(reference.frameSize) }
                        pairs.remove(at: index)
                        expectedRemoved += 1
                    }
                    expectedTaken += 1
                }
                let done = EntryBatch(keys: keys).withEntries { batch in
                    entries.removeRun(floor: floor) { place in place < batch.count ? batch.key(place) : nil }
                }
                #expect(done.taken == expectedTaken)
                #expect(done.removed == expectedRemoved)
                #expect(done.freedOverflowBytes == expectedFreed)
                try expectSame(entries, pairs)
                removedInRound += done.removed
            }
            var payload: [UInt8] = []
            if let basePage, removedInRound > 0 {
                guard case .delta = entries.encodeDelta(limit: 100_000, into: &payload) else {
                    Issue.record("entries copied from a page and changed are written as a delta")
                    continue
                }
                // The base page with this delta merged in reads back as the pairs.
                let merged = try #require(payload.withUnsafeBytes { raw in
                    LeafDelta.parse(raw).flatMap { LeafDelta.merge($0, delta: raw, base: basePage, pageSize: 1 << 16) }
                })
                try expectPage(merged.payload, holds: pairs)
            }
            try expectWrittenPage(&entries, &pairs)
        }
    }
}

/// Puts one entry at a time into sorted pairs, as a leaf does, until one does not fit.
private struct PutRunExpectation {
    var pairs: [(key: [UInt8], value: LeafValue)]
    var size: Int
    var taken = 0
    var inserted = 0
    var freedOverflowBytes: UInt64 = 0
    private(set) var isFull = false

    mutating func put(_ key: [UInt8], _ bytes: [UInt8], capacity: Int) {
        let value = LeafValue.inline(bytes)
        let index = pairs.firstIndex { compareBytes($0.key, key) >= 0 } ?? pairs.count
        let found = index < pairs.count && pairs[index].key == key
        let replaced = found ? LeafEntries.pageBytes(key: key, value: pairs[index].value) : 0
        let added = LeafEntries.pageBytes(key: key, value: value)
        guard size - replaced + added <= capacity else {
            isFull = true
            return
        }
        size += added - replaced
        taken += 1
        if found {
            if case .overflow(let reference) = pairs[index].value { freedOverflowBytes += UInt64(reference.frameSize) }
            pairs[index].value = value
        } else {
            inserted += 1
            pairs.insert((key, value), at: index)
        }
    }
}
