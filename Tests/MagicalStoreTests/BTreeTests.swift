import Testing
@testable import MagicalStore

/// The B+tree against a plain dictionary: random inserts, updates, deletes and range
/// scans both ways, across commits, rollbacks and reopenings, for several page sizes and
/// key and value sizes that include overflow values (Spec section 4).
@Suite struct BTreeTests {
    /// A model of the tree: what every operation must agree with.
    struct Reference {
        var entries: [[UInt8]: [UInt8]] = [:]

        func scan(_ range: KeyRange, reverse: Bool) -> [[UInt8]] {
            let keys = entries.keys.filter { range.isAboveLower($0) && range.isBelowUpper($0) }
                .sorted { compareBytes($0, $1) < 0 }
            return reverse ? keys.reversed() : keys
        }
    }

    static func randomKey(_ random: inout SeededGenerator, keySpace: Int, pageSize: Int) -> [UInt8] {
        // Mostly short keys from a bounded space (so updates and deletes hit), some long.
        let number = Int.random(in: 0..<keySpace, using: &random)
        var key = Array("k\(number)".utf8)
        if number % 7 == 0 {
            let limit = FileFormat.maximumKeyLength(pageSize: pageSize)
            key += [UInt8](repeating: UInt8(number % 251), count: min(limit - key.count, number % 300))
        }
        return key
    }

    static func randomValue(_ random: inout SeededGenerator, pageSize: Int) -> [UInt8] {
        switch Int.random(in: 0..<20, using: &random) {
        case 0: return []
        case 1: return random.bytes(count: Int.random(in: pageSize / 4...pageSize * 3, using: &random))
        default: return random.bytes(count: Int.random(in: 1...120, using: &random))
        }
    }

    static func randomRange(_ random: inout SeededGenerator, keySpace: Int, pageSize: Int) -> KeyRange {
        func bound() -> KeyRange.Bound {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .unbounded
            case 1: return .inclusive(randomKey(&random, keySpace: keySpace, pageSize: pageSize))
            default: return .exclusive(randomKey(&random, keySpace: keySpace, pageSize: pageSize))
            }
        }
        return KeyRange(lower: bound(), upper: bound())
    }

    @Test(arguments: [512, 4096, 16384])
    func matchesReferenceUnderRandomOperations(pageSize: Int) throws {
        var random = SeededGenerator(seed: UInt64(pageSize))
        let directory = TemporaryDirectory()
        let options = StoreOptions(durability: .none, pageSize: pageSize, cacheBytes: 4 << 20)
        var store = try Store(path: directory.file(), options: options)
        var committed = Reference()
        let keySpace = 3000 * testScale
        let transactions = 40 * testScale

        for round in 0..<transactions {
            var working = committed
            let transaction = try store.beginWrite()
            let tree = try transaction.openTree("tree")
            for _ in 0..<Int.random(in: 1...2000, using: &random) {
                let key = Self.randomKey(&random, keySpace: keySpace, pageSize: pageSize)
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5 where round % 3 != 0:
                    let value = Self.randomValue(&random, pageSize: pageSize)
                    try tree.put(key, value)
                    working.entries[key] = value
                case 5:
                    // A batch, unsorted, with repeated keys: the later value wins.
                    var batch: [(key: [UInt8], value: [UInt8])] = []
                    for _ in 0..<Int.random(in: 0...60, using: &random) {
                        let batchKey = Self.randomKey(&random, keySpace: keySpace, pageSize: pageSize)
                        let value = Self.randomValue(&random, pageSize: pageSize)
                        batch.append((batchKey, value))
                        working.entries[batchKey] = value
                    }
                    try tree.putBatch(batch)
                case 6..<8:
                    let existed = try tree.delete(key)
                    #expect(existed == (working.entries.removeValue(forKey: key) != nil))
                case 8 where round % 2 == 0:
                    // A batch of deletes, unsorted, with repeats and absent keys.
                    let keys = (0..<Int.random(in: 0...80, using: &random)).map { _ in
                        Self.randomKey(&random, keySpace: keySpace, pageSize: pageSize)
                    }
                    let present = Set(keys).filter { working.entries.removeValue(forKey: $0) != nil }
                    #expect(try tree.deleteBatch(keys) == present.count)
                default:
                    #expect(try tree.get(key) == working.entries[key])
                }
            }
            #expect(tree.count == working.entries.count)
            try expectScans(tree.scan, matching: working, random: &random, keySpace: keySpace, pageSize: pageSize)

            if round % 5 == 4 {
                transaction.rollback()
            } else {
                try transaction.commit()
                committed = working
            }
            if round % 10 == 9 {
                try store.close()
                let report = try StoreChecker(path: directory.file()).run()
                #expect(report.problems == [])
                store = try Store(path: directory.file(), options: options)
            }
            let snapshot = try store.read().tree("tree")
            #expect(snapshot.count == committed.entries.count)
            try expectScans(snapshot.scan, matching: committed, random: &random, keySpace: keySpace, pageSize: pageSize)
        }
        try expectAllEntries(of: store.read().tree("tree"), equal: committed)
        try store.close()
    }

    @Test(arguments: [512, 8192])
    func batchesBulkLoadEmptyTreesAndMergeIntoFullOnes(pageSize: Int) throws {
        var random = SeededGenerator(seed: 99)
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: pageSize))
        var reference = Reference()
        let count = 20_000 * testScale
        for round in 0..<3 {
            var batch: [(key: [UInt8], value: [UInt8])] = []
            for _ in 0..<count {
                let key = numberKey(Int.random(in: 0..<count * 2, using: &random))
                let value = Self.randomValue(&random, pageSize: pageSize)
                batch.append((key, value))
                reference.entries[key] = value
            }
            if round == 0 { batch.sort { compareBytes($0.key, $1.key) < 0 } }
            try store.write { try $0.openTree("tree").putBatch(batch) }
            try expectAllEntries(of: store.read().tree("tree"), equal: reference)
            #expect(try store.read().tree("tree").count == reference.entries.count)
        }
        try store.close()
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
    }

    /// Deleting most of a large tree in a few batches, and then all of it: the tree stays
    /// valid (merges included) and the commit's space accounting exact.
    @Test(arguments: [512, 8192])
    func deleteBatchesThinAndEmptyLargeTrees(pageSize: Int) throws {
        var random = SeededGenerator(seed: 17)
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: pageSize))
        var reference = Reference()
        let count = 20_000 * testScale
        for number in 0..<count { reference.entries[numberKey(number)] = Self.randomValue(&random, pageSize: pageSize) }
        try store.write { try $0.createTree("tree").putBatch(reference.entries.map { ($0.key, $0.value) }) }
        for _ in 0..<3 {
            let keys = (0..<count / 2).map { _ in numberKey(Int.random(in: 0..<count + 100, using: &random)) }
            let present = Set(keys).filter { reference.entries.removeValue(forKey: $0) != nil }
            let removed = try store.write { try $0.tree("tree").deleteBatch(keys) }
            #expect(removed == present.count)
            try expectAllEntries(of: store.read().tree("tree"), equal: reference)
            #expect(try store.read().tree("tree").count == reference.entries.count)
        }
        let rest = Array(reference.entries.keys)
        #expect(try store.write { try $0.tree("tree").deleteBatch(rest + rest) } == rest.count)
        #expect(try store.read().tree("tree").count == 0)
        try store.close()
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
    }

    @Test func anEntryLocationTakesSixteenBytesAndKeepsItsOverflowFlag() {
        #expect(MemoryLayout<PageNode.EntryLocation>.stride == 16)
        for (length, overflow) in [(UInt16(0), false), (1_024, true), (0x7FFF, true), (9, false)] {
            let location = PageNode.EntryLocation(keyPrefix: 1, keyStart: 2, keyLength: length, valueStart: 3, valueLength: 16, isOverflow: overflow)
            #expect(location.keyLength == length && location.isOverflow == overflow)
        }
    }

    @Test func compactionKeepsEveryLiveKeyAndShrinksTheFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store(path: path, options: StoreOptions(durability: .normal, pageSize: 4096))
        var reference = Reference()
        var random = SeededGenerator(seed: 5)
        for round in 0..<30 {
            try store.write { transaction in
                let tree = try transaction.openTree("tree-\(round % 3)")
                for _ in 0..<300 {
                    let key = numberKey(Int.random(in: 0..<2000, using: &random))
                    let value = Self.randomValue(&random, pageSize: 4096)
                    try tree.put(key, value)
                    reference.entries[Array("tree-\(round % 3)".utf8) + key] = value
                }
            }
        }
        try store.write { try $0.createTree("empty") }
        let before = try store.info()
        #expect(before.deadBytes > before.liveBytes)
        let oldSnapshot = try store.read()
        let result = try store.compact()
        let after = try store.info()
        #expect(result.bytesAfter < result.bytesBefore / 2)
        #expect(after.deadBytes == 0)
        #expect(after.liveBytes == after.fileBytes - 4096)
        #expect(after.trees == before.trees)
        #expect(after.lastTransaction == before.lastTransaction + 1)

        // Old snapshot, new snapshot and a reopened store all see the same entries.
        for snapshot in [oldSnapshot, try store.read()] {
            var seen = Reference()
            for name in ["tree-0", "tree-1", "tree-2"] {
                try snapshot.tree(name).scan { key, value in
                    seen.entries[Array(name.utf8) + key] = value
                    return true
                }
            }
            #expect(seen.entries == reference.entries)
        }
        // The store takes writes after compaction, and survives reopening.
        try store.write { try $0.tree("tree-0").put([1], [2]) }
        try store.close()
        #expect(try StoreChecker(path: path).run().problems == [])
        let reopened = try Store(path: path)
        #expect(try reopened.read().tree("tree-0").get([1]) == [2])
        #expect(try reopened.read().tree("empty").count == 0)
    }

    @Test func deletingEverythingEmptiesTheTreeAndFreesItsPages() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 512))
        let count = 5000 * testScale
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            for number in 0..<count { try tree.put(numberKey(number), [UInt8](repeating: 1, count: 20)) }
        }
        var random = SeededGenerator(seed: 7)
        let order = (0..<count).shuffled(using: &random)
        for chunk in stride(from: 0, to: count, by: 700) {
            try store.write { transaction in
                let tree = try transaction.tree("tree")
                for number in order[chunk..<min(chunk + 700, count)] { #expect(try tree.delete(numberKey(number))) }
            }
            let tree = try store.read().tree("tree")
            #expect(tree.count == count - min(chunk + 700, count))
        }
        let tree = try store.read().tree("tree")
        #expect(tree.count == 0)
        #expect(try tree.get(numberKey(1)) == nil)
        try store.close()
        #expect(try StoreChecker(path: directory.file()).run().problems == [])
        let info = try Store(path: directory.file(), options: StoreOptions(durability: .none)).info()
        // Only the catalog page and the commit frame remain live.
        #expect(info.liveBytes < 512)
    }

    func expectScans(
        _ scan: (KeyRange, Bool, ([UInt8], [UInt8]) throws -> Bool) throws -> Void,
        matching reference: Reference, random: inout SeededGenerator, keySpace: Int, pageSize: Int
    ) throws {
        for _ in 0..<4 {
            let range = Self.randomRange(&random, keySpace: keySpace, pageSize: pageSize)
            let reverse = Bool.random(using: &random)
            let limit = Int.random(in: 1...200, using: &random)
            var keys: [[UInt8]] = []
            try scan(range, reverse) { key, value in
                #expect(reference.entries[key] == value)
                keys.append(key)
                return keys.count < limit
            }
            #expect(keys == Array(reference.scan(range, reverse: reverse).prefix(limit)))
        }
    }

    func expectAllEntries(of tree: TreeReader, equal reference: Reference) throws {
        var keys: [[UInt8]] = []
        try tree.scan { key, value in
            #expect(reference.entries[key] == value)
            keys.append(key)
            return true
        }
        #expect(keys == reference.scan(.all, reverse: false))
    }
}
