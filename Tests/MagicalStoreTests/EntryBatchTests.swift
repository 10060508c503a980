import Testing
@testable import MagicalStore

@Suite struct EntryBatchTests {
    /// Every way of building a batch lays out the same entries.
    @Test func buildsEntriesAppendedWrittenAndConcatenated() {
        var batch = EntryBatch()
        batch.append(key: [1, 2], value: [9])
        batch.append(writingKey: { $0 += [3] }, value: { _ in })
        var other = EntryBatch(minimumCapacity: 2, bytes: 8)
        other.append(key: [], value: [7, 7])
        other.append(key: [4, 5, 6], value: [8])
        batch.append(contentsOf: other)
        batch.append(key: [0xFF], value: [0xFF])
        batch.removeLast()

        let entries = batch.withEntries { entries in
            (0..<entries.count).map { (Array(entries.key($0)), Array(entries.value($0))) }
        }
        #expect(entries.map(\.0) == [[1, 2], [3], [], [4, 5, 6]])
        #expect(entries.map(\.1) == [[9], [], [7, 7], [8]])
        #expect(batch.count == 4)
        #expect((0..<4).map(batch.keyLength(at:)) == [2, 1, 0, 3])
        #expect(EntryBatch([([1, 2], [9]), ([3], [])]).withEntries { ($0.count, Array($0.value(0))) } == (2, [9]))
    }

    /// A batch of integer keys written in one pass holds what appending each integer's
    /// encoding gives: every sign and length, repeats, and none at all.
    @Test func integerKeysAreTheirEncodings() {
        var random = SplitMix64(seed: 12)
        var numbers: [Int64] = [0, 1, -1, 255, 256, -256, -257, .max, .min, 7, 7]
        numbers += (0..<1_000).map { _ in Int64(bitPattern: random.next()) >> Int64(random.next() % 64) }
        for count in [0, 1, 2, numbers.count] {
            let prefix = Array(numbers.prefix(count))
            var appended = EntryBatch()
            for number in prefix { appended.append(key: KeyEncoding.encode(.int(number)), value: []) }
            let written = EntryBatch(integerKeys: prefix)
            #expect(written.count == count)
            let entries = { (batch: EntryBatch) in
                batch.withEntries { entries in (0..<entries.count).map { [Array(entries.key($0)), Array(entries.value($0))] } }
            }
            #expect(entries(written) == entries(appended))
            #expect((0..<count).map(written.keyLength(at:)) == (0..<count).map(appended.keyLength(at:)))
        }
    }

    /// Batches put into empty and full trees, unsorted, with repeated keys (the later value
    /// wins), values inline and in overflow frames, keys written in place and parts
    /// concatenated: the tree holds what a dictionary does, and checks clean.
    @Test(arguments: [512, 8192])
    func putsMatchAReference(pageSize: Int) throws {
        var random = SeededGenerator(seed: UInt64(pageSize) + 5)
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: pageSize))
        var reference = BTreeTests.Reference()
        let count = 5_000 * testScale
        for _ in 0..<4 {
            var parts = [EntryBatch(), EntryBatch()]
            for index in 0..<count {
                let number = Int.random(in: 0..<count * 2, using: &random)
                let value = BTreeTests.randomValue(&random, pageSize: pageSize)
                if index % 3 == 0 {
                    parts[index % 2].append(writingKey: { $0 += numberKey(number) }, value: { $0 += value })
                } else {
                    parts[index % 2].append(key: numberKey(number), value: value)
                }
                // An entry written and taken back changes nothing.
                if index % 97 == 0 {
                    parts[index % 2].append(key: numberKey(count * 3), value: [1])
                    parts[index % 2].removeLast()
                }
            }
            // Part 1 after part 0: where both hold a key, part 1's value is the later one.
            var batch = parts[0]
            batch.append(contentsOf: parts[1])
            for index in 0..<batch.count {
                let (key, value) = batch[index]
                reference.entries[key] = value
            }
            try store.write { try $0.openTree("tree").putBatch(batch) }
            try BTreeTests().expectAllEntries(of: store.read().tree("tree"), equal: reference)
            #expect(try store.read().tree("tree").count == reference.entries.count)
        }
        try store.close()
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
    }

    /// Batches of keys deleted from a full tree, unsorted, repeated, some absent, their
    /// values ignored: the count is of keys that were there, the tree holds what a
    /// dictionary does, and checks clean.
    @Test(arguments: [512, 8192])
    func deletesMatchAReference(pageSize: Int) throws {
        var random = SeededGenerator(seed: UInt64(pageSize) + 9)
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: pageSize))
        var reference = BTreeTests.Reference()
        let count = 5_000 * testScale
        var batch = EntryBatch()
        for number in 0..<count {
            let value = BTreeTests.randomValue(&random, pageSize: pageSize)
            batch.append(key: numberKey(number), value: value)
            reference.entries[numberKey(number)] = value
        }
        try store.write { try $0.openTree("tree").putBatch(batch) }
        for _ in 0..<4 {
            var keys = EntryBatch()
            var expected = Set<[UInt8]>()
            for _ in 0..<(count / 3) {
                let key = numberKey(Int.random(in: 0..<count * 2, using: &random))
                keys.append(writingKey: { $0 += key }, value: { $0 += [7] })
                if reference.entries.removeValue(forKey: key) != nil { expected.insert(key) }
            }
            let removed = try store.write { try $0.openTree("tree").deleteBatch(keys) }
            #expect(removed == expected.count)
            try BTreeTests().expectAllEntries(of: store.read().tree("tree"), equal: reference)
            #expect(try store.read().tree("tree").count == reference.entries.count)
        }
        try store.close()
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
    }

    /// A key past the page's limit in a batch is refused, and nothing of the batch is stored.
    @Test func refusesAnOversizedKeyWholly() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 512))
        var batch = EntryBatch()
        batch.append(key: [1], value: [1])
        batch.append(key: [UInt8](repeating: 2, count: 4_096), value: [2])
        #expect(throws: StoreError.self) { try store.write { try $0.openTree("tree").putBatch(batch) } }
        #expect(try store.read().treeIfPresent("tree")?.count ?? 0 == 0)
        try store.close()
    }
}

extension EntryBatchTests {
    /// Entries sorted by key keep equal keys in their order, and a reordered batch holds
    /// the entries at the order's indices.
    @Test func ordersAndReordersByKey() {
        var random = SeededGenerator(seed: 31)
        var batch = EntryBatch()
        var pairs: [(key: [UInt8], value: [UInt8])] = []
        for index in 0..<(500 * testScale) {
            let key = random.bytes(count: Int.random(in: 0...12, using: &random)).map { $0 % 4 }
            pairs.append((key, numberKey(index)))
            batch.append(key: key, value: numberKey(index))
        }
        let order = batch.keyOrder()
        let expected = pairs.indices.sorted { left, right in
            let order = compareBytes(pairs[left].key, pairs[right].key)
            return order != 0 ? order < 0 : left < right
        }
        #expect(order == expected)
        let reordered = batch.reordered(order)
        #expect((0..<reordered.count).map { reordered[$0].key } == expected.map { pairs[$0].key })
        #expect((0..<reordered.count).map { reordered[$0].value } == expected.map { pairs[$0].value })
    }
}
