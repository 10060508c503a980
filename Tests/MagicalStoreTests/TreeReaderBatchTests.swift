import Foundation
import Testing
@testable import MagicalStore

/// Batched reads give what one read per key gives: `getEach` the value of every key (or
/// nil), `scanEach` every entry under every prefix, whether the keys ascend (sharing leaves)
/// or not, with inline and overflow values and matches that run across leaves.
@Suite struct TreeReaderBatchTests {
    /// Keys of two parts, (group, item): a group's entries are one prefix, and groups of
    /// many items span several 1 KiB pages.
    private func key(_ group: Int, _ item: Int) -> [UInt8] {
        KeyEncoding.encode([.int(Int64(group)), .int(Int64(item))])
    }

    private func makeTree(_ random: inout SeededGenerator) throws -> (Store, TemporaryDirectory, [[UInt8]: [UInt8]]) {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024))
        var entries: [[UInt8]: [UInt8]] = [:]
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            for group in stride(from: 0, to: 400, by: 2) {
                let items = group % 40 == 0 ? 150 : Int.random(in: 0...3, using: &random)
                for item in 0..<items {
                    let size = Int.random(in: 0..<25, using: &random) == 0 ? 1_500 : Int.random(in: 0...30, using: &random)
                    let value = random.bytes(count: size)
                    entries[key(group, item)] = value
                    try tree.put(key(group, item), value)
                }
            }
        }
        return (store, directory, entries)
    }

    @Test func getEachMatchesSingleGets() throws {
        var random = SeededGenerator(seed: 21)
        let (store, directory, entries) = try makeTree(&random)
        _ = directory
        let tree = try store.read().tree("tree")
        for round in 0..<(20 * testScale) {
            var keys = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                key(Int.random(in: -2...402, using: &random), Int.random(in: 0...160, using: &random))
            }
            if round % 3 != 0 { keys.sort { compareBytes($0, $1) < 0 } }
            var seen: [[UInt8]?] = []
            try tree.getEach(EntryBatch(keys: keys)) { index, value in
                #expect(index == seen.count)
                seen.append(value.map { Array($0) })
            }
            #expect(seen == keys.map { entries[$0] })
        }
    }

    /// A borrowed point read sees what `get` returns: present and absent keys, inline and
    /// overflow values, and an empty tree.
    @Test func withValueMatchesGet() throws {
        var random = SeededGenerator(seed: 23)
        let (store, directory, entries) = try makeTree(&random)
        _ = directory
        let tree = try store.read().tree("tree")
        for _ in 0..<(2_000 * testScale) {
            let probe = key(Int.random(in: -2...402, using: &random), Int.random(in: 0...160, using: &random))
            let borrowed = try tree.withValue(probe) { $0.map { Array($0) } }
            #expect(borrowed == entries[probe])
        }
        try store.write { _ = try $0.createTree("empty") }
        #expect(try store.read().tree("empty").withValue(key(0, 0)) { $0 == nil })
    }

    @Test func scanEachMatchesPrefixScans() throws {
        var random = SeededGenerator(seed: 22)
        let (store, directory, entries) = try makeTree(&random)
        _ = directory
        let tree = try store.read().tree("tree")
        let ordered = entries.keys.sorted { compareBytes($0, $1) < 0 }
        for round in 0..<(20 * testScale) {
            var groups = (0..<Int.random(in: 0...120, using: &random)).map { _ in Int.random(in: -2...402, using: &random) }
            if round % 3 != 0 { groups.sort() }
            let prefixes = groups.map { KeyEncoding.encode([.int(Int64($0))]) }
            var seen: [[[UInt8]]] = Array(repeating: [], count: prefixes.count)
            try tree.scanEach(prefixes: EntryBatch(keys: prefixes)) { index, key, value in
                #expect(entries[Array(key)] == Array(value))
                seen[index].append(Array(key))
            }
            for (index, prefix) in prefixes.enumerated() {
                #expect(seen[index] == ordered.filter { $0.starts(with: prefix) }, "prefix of group \(groups[index])")
            }
        }
    }

    /// Keys looked up leaf by leaf in a tree three levels deep, most of them absent: in the
    /// gaps between stored keys and between two leaves, before the first key and past the
    /// last. A key the current leaf does not hold is found from the branch above it; each
    /// answer must be what a look-up from the root gives.
    @Test func keysBetweenLeavesAndPastTheEndAreFoundInTheirLeaf() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024))
        // Every third number, as (number, 0): about 500 leaves of 1 KiB under a root and
        // its branches.
        let stored = stride(from: 0, through: 90_000, by: 3)
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            for number in stored { try tree.put(key(number, 0), [UInt8(truncatingIfNeeded: number)]) }
        }
        let tree = try store.read().tree("tree")
        var random = SeededGenerator(seed: 24)
        for round in 0..<(20 * testScale) {
            // Runs of neighbours (sharing leaves) and jumps (across branches).
            var numbers: [Int] = []
            while numbers.count < 400 {
                let start = Int.random(in: -300...90_300, using: &random)
                numbers += start..<(start + Int.random(in: 1...40, using: &random))
            }
            if round % 4 == 0 { numbers.shuffle(using: &random) } else { numbers.sort() }
            let isStored = { (number: Int) in number >= 0 && number <= 90_000 && number % 3 == 0 }
            var values: [[UInt8]?] = []
            try tree.getEach(EntryBatch(keys: numbers.map { key($0, 0) })) { _, value in values.append(value.map { Array($0) }) }
            #expect(values == numbers.map { isStored($0) ? [UInt8(truncatingIfNeeded: $0)] : nil })
            var matches = Array(repeating: 0, count: numbers.count)
            try tree.scanEach(prefixes: EntryBatch(keys: numbers.map { KeyEncoding.encode([.int(Int64($0))]) })) { index, key, _ in
                #expect(key.elementsEqual(self.key(numbers[index], 0)))
                matches[index] += 1
            }
            #expect(matches == numbers.map { isStored($0) ? 1 : 0 })
        }
    }

    @Test func anEmptyTreeHasNothing() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024))
        try store.write { transaction in _ = try transaction.createTree("tree") }
        let tree = try store.read().tree("tree")
        var values: [[UInt8]?] = []
        try tree.getEach(EntryBatch(keys: [key(0, 0), key(1, 1)])) { _, value in values.append(value.map { Array($0) }) }
        #expect(values == [nil, nil])
        var found = 0
        try tree.scanEach(prefixes: EntryBatch(keys: [KeyEncoding.encode([.int(0)])])) { _, _, _ in found += 1 }
        #expect(found == 0)
    }
}
