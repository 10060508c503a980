import Foundation
import Testing
@testable import MagicalStore

/// A tree cut for a scan on several threads: the split keys ascend and cut it into parts
/// of whole subtrees, about equal in size, whose entries, part after part, are the whole
/// tree's in order; and a bounded walk gives exactly the entries between its bounds.
@Suite struct SplitScanTests {
    private func makeTree(entries: Int, pageSize: Int = 512, seed: UInt64 = 11) throws -> (Store, [[UInt8]], TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: pageSize))
        var random = SeededGenerator(seed: seed)
        var keys: [[UInt8]] = []
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            // Keys in random order, of uneven sizes: leaves of uneven fill.
            for number in (0..<entries).shuffled(using: &random) {
                let key = numberKey(number * 2) + random.bytes(count: Int.random(in: 0...12, using: &random))
                keys.append(key)
                try tree.put(key, random.bytes(count: Int.random(in: 0...40, using: &random)))
            }
        }
        return (store, keys.sorted { compareBytes($0, $1) < 0 }, directory)
    }

    private func entries(of tree: TreeReader, from lower: [UInt8]?, below upper: [UInt8]?, limit: Int = .max) throws -> [[UInt8]] {
        var found: [[UInt8]] = []
        try tree.forEachEntry(from: lower, below: upper) { key, _ in
            found.append(Array(key))
            return found.count < limit
        }
        return found
    }

    @Test func partsCoverTheTreeInOrder() throws {
        for size in [0, 1, 5, 600, 6_000] {
            let (store, keys, directory) = try makeTree(entries: size)
            defer { withExtendedLifetime(directory) {} }
            let tree = try store.read().tree("tree")
            for parts in 1...9 {
                let split = try tree.splitKeys(parts: parts)
                #expect(split.count <= max(parts - 1, 0))
                #expect(zip(split, split.dropFirst()).allSatisfy { compareBytes($0, $1) < 0 })
                let bounds: [[UInt8]?] = [nil] + split + [nil]
                var joined: [[UInt8]] = []
                for index in 0..<split.count + 1 {
                    joined += try entries(of: tree, from: bounds[index], below: bounds[index + 1])
                }
                #expect(joined == keys, "size \(size), parts \(parts)")
            }
        }
    }

    @Test func aTreeOfOneLeafIsNotCut() throws {
        let (store, _, directory) = try makeTree(entries: 5, pageSize: 8192)
        defer { withExtendedLifetime(directory) {} }
        #expect(try store.read().tree("tree").splitKeys(parts: 4).isEmpty)
    }

    @Test func partsAreAboutEqual() throws {
        let (store, keys, directory) = try makeTree(entries: 20_000)
        defer { withExtendedLifetime(directory) {} }
        let tree = try store.read().tree("tree")
        for parts in [2, 3, 4, 8] {
            let split = try tree.splitKeys(parts: parts)
            #expect(split.count == parts - 1)
            let bounds: [[UInt8]?] = [nil] + split + [nil]
            let average = keys.count / parts
            for index in 0..<parts {
                let size = try entries(of: tree, from: bounds[index], below: bounds[index + 1]).count
                #expect(size > average / 2 && size < average * 3 / 2, "part \(index) of \(parts): \(size) entries, average \(average)")
            }
        }
    }

    @Test func aBoundedWalkGivesWhatLiesBetweenItsBounds() throws {
        let (store, keys, directory) = try makeTree(entries: 800)
        defer { withExtendedLifetime(directory) {} }
        let tree = try store.read().tree("tree")
        var random = SeededGenerator(seed: 3)
        // Bounds at keys, between keys, before the first and past the last.
        let candidates: [[UInt8]?] = [nil, [], [0xFF, 0xFF]] + (0..<40).map { _ in
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            return Bool.random(using: &random) ? key : key + [0]
        }
        for lower in candidates {
            for upper in candidates.shuffled(using: &random).prefix(8) {
                let expected = keys.filter { key in
                    (lower.map { compareBytes(key, $0) >= 0 } ?? true) && (upper.map { compareBytes(key, $0) < 0 } ?? true)
                }
                #expect(try entries(of: tree, from: lower, below: upper) == expected)
                #expect(try entries(of: tree, from: lower, below: upper, limit: 3) == Array(expected.prefix(3)))
            }
        }
    }

    @Test func aBoundedWalkOverATransactionsOwnChanges() throws {
        let (store, keys, directory) = try makeTree(entries: 600)
        defer { withExtendedLifetime(directory) {} }
        let transaction = try store.beginWrite()
        defer { transaction.rollback() }
        let writer = try transaction.tree("tree")
        var expected = Set(keys.map { Data($0) })
        for number in 0..<80 {
            try writer.put(numberKey(number * 7 + 1), [1, 2, 3])
            expected.insert(Data(numberKey(number * 7 + 1)))
        }
        for key in keys.prefix(100) {
            _ = try writer.delete(key)
            expected.remove(Data(key))
        }
        let sorted = expected.map { Array($0) }.sorted { compareBytes($0, $1) < 0 }
        let lower = sorted[50], upper = sorted[400]
        var cursor = writer.makeCursor()
        try cursor.seek(atOrAfter: lower)
        var found: [[UInt8]] = []
        try cursor.forEachEntry(below: upper) { key, _ in
            found.append(Array(key))
            return true
        }
        #expect(found == Array(sorted[50..<400]))
    }

    @Test func threadsForATreeFollowItsSize() {
        let options = StoreOptions(scanThreads: 4, entriesPerScanThread: 1_000)
        #expect(options.scanThreads(forEntries: 0) == 1)
        #expect(options.scanThreads(forEntries: 1_999) == 1)
        #expect(options.scanThreads(forEntries: 2_000) == 2)
        #expect(options.scanThreads(forEntries: 1_000_000) == 4)
        #expect(StoreOptions(scanThreads: 0, entriesPerScanThread: 0).scanThreads(forEntries: 100) == 1)
    }
}
