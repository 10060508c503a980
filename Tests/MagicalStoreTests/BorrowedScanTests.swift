import Foundation
import Testing
@testable import MagicalStore

/// The borrowing whole-tree scan gives the same entries, in the same order, as the
/// copying scan: inline and overflow values, committed pages and a transaction's own
/// changes, forwards and backwards, stopping when asked; and the cursorless probe for the
/// first key at or after a key.
@Suite struct BorrowedScanTests {
    private func copied(_ cursor: inout Cursor, reverse: Bool, limit: Int = .max) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try cursor.forEachEntry(reverse: reverse) { key, value in
            entries.append(Array(key) + [0xFF] + Array(value))
            return entries.count < limit
        }
        return entries
    }

    private func reference(_ scan: ((_ key: [UInt8], _ value: [UInt8]) throws -> Bool) throws -> Void) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try scan { key, value in
            entries.append(key + [0xFF] + value)
            return true
        }
        return entries
    }

    @Test func givesWhatTheCopyingScanGives() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024))
        var random = SeededGenerator(seed: 5)
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            for number in 0..<600 {
                // One value in ten is larger than a page: an overflow value.
                let size = number % 10 == 0 ? Int.random(in: 1_100...3_000, using: &random) : Int.random(in: 0...60, using: &random)
                try tree.put(numberKey(number * 3), random.bytes(count: size))
            }
        }
        let tree = try store.read().tree("tree")
        for reverse in [false, true] {
            var cursor = tree.makeCursor()
            let expected = try reference { body in try tree.scan(reverse: reverse, body) }
            #expect(expected.count == 600)
            #expect(try copied(&cursor, reverse: reverse) == expected)
            #expect(try copied(&cursor, reverse: reverse, limit: 7) == Array(expected.prefix(7)))
        }

        // The cursorless probe: the first key at or after every key, between keys, past
        // each leaf's last key (the next leaf's first) and past the end.
        let keys = (0..<600).map { numberKey($0 * 3) }
        for target in (0..<1_802).map(numberKey) + [[], [0], [0xFF, 0xFF], numberKey(1_800) + [0]] {
            #expect(try tree.firstKey(atOrAfter: target) == keys.first { compareBytes($0, target) >= 0 })
            // The point read by a borrowed key: the value `get` copies, inline or overflow.
            let borrowed = try target.withUnsafeBytes { key in try tree.withValue(forKey: key) { $0.map(Array.init) } }
            #expect(try borrowed == tree.get(target))
        }

        // A write transaction's dirty nodes, with changes, additions and deletions.
        let transaction = try store.beginWrite()
        defer { transaction.rollback() }
        let writer = try transaction.tree("tree")
        for number in 0..<100 { try writer.put(numberKey(number * 5 + 1), random.bytes(count: number % 9 == 0 ? 2_000 : 9)) }
        for number in 0..<50 { _ = try writer.delete(numberKey(number * 12)) }
        for reverse in [false, true] {
            var cursor = writer.makeCursor()
            let expected = try reference { body in try writer.scan(reverse: reverse, body) }
            #expect(try copied(&cursor, reverse: reverse) == expected)
        }
    }

    @Test func anEmptyTreeCallsNothing() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        try store.write { transaction in _ = try transaction.createTree("empty") }
        var calls = 0
        try store.read().tree("empty").forEachEntry { _, _ in
            calls += 1
            return true
        }
        #expect(calls == 0)
    }
}
