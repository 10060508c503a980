import Foundation
import Testing
@testable import MagicalStore

/// Spec section 6: what a crash leaves behind is recovered to the latest whole commit;
/// damage that cannot be a crash's is reported, never truncated away.
@Suite struct RecoveryTests {
    /// A store with a few commits, and the tree's contents after each.
    struct History {
        var states: [[[UInt8]: [UInt8]]] = []
        var commitEnds: [UInt64] = []
    }

    /// Returns the store still open: closing would checkpoint past the last transaction,
    /// which a crash does not do.
    static func makeHistory(at path: String, durability: Durability = .full) throws -> (History, Store) {
        var history = History()
        let store = try Store(path: path, options: StoreOptions(durability: durability, pageSize: 512))
        var entries: [[UInt8]: [UInt8]] = [:]
        var random = SeededGenerator(seed: 11)
        for round in 0..<4 {
            try store.write { transaction in
                let tree = try transaction.openTree("tree")
                for _ in 0..<(round == 3 ? 12 : 40) {
                    let key = numberKey(Int.random(in: 0..<100, using: &random))
                    let value = random.bytes(count: Int.random(in: 1...(round == 3 ? 300 : 60), using: &random))
                    try tree.put(key, value)
                    entries[key] = value
                }
            }
            history.states.append(entries)
            history.commitEnds.append(try store.info().fileBytes)
        }
        return (history, store)
    }

    @Test func cutAnywhereInTheLastTransactionOpensAtThePreviousCommit() throws {
        let directory = TemporaryDirectory()
        let original = directory.file("original.store")
        let (history, store) = try Self.makeHistory(at: original)
        let full = readFile(original)
        withExtendedLifetime(store) {}
        let previousEnd = Int(history.commitEnds[2])
        #expect(full.count == Int(history.commitEnds[3]))

        let cutPath = directory.file("cut.store")
        for cut in previousEnd..<full.count {
            writeFile(cutPath, Array(full[..<cut]))
            // Read-only: sees the previous commit and changes nothing.
            let reader = try Store(path: cutPath, options: StoreOptions(readOnly: true))
            #expect(try allEntries(reader.read().tree("tree")) == history.states[2])
            #expect(readFile(cutPath).count == cut)
            try reader.close()

            let writer = try Store(path: cutPath, options: StoreOptions(durability: .none))
            #expect(try allEntries(writer.read().tree("tree")) == history.states[2])
            #expect(readFile(cutPath).count == previousEnd, "the torn tail is truncated")
            try writer.write { try $0.tree("tree").put([9], [9]) }
            try writer.close()
            #expect(try StoreChecker(path: cutPath).run().problems == [])
        }
    }

    @Test func theWholeFileOpensAtTheLastCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (history, writer) = try Self.makeHistory(at: path)
        try writer.close()
        let store = try Store(path: path)
        #expect(try allEntries(store.read().tree("tree")) == history.states[3])
    }

    @Test func damageBeforeALaterDurableCommitIsCorruptionAndNothingIsTruncated() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (history, writer) = try Self.makeHistory(at: path, durability: .full)
        var bytes = readFile(path)
        withExtendedLifetime(writer) {}
        // A byte inside the second-to-last transaction, which the last one's commit vouches for.
        let victim = Int(history.commitEnds[1]) + 40
        bytes[victim] ^= 0x10
        // A copy, as a crashed process would leave it (the writer here still holds the lock).
        let copy = directory.file("copy.store")
        writeFile(copy, bytes)
        #expect {
            _ = try Store(path: copy)
        } throws: { error in
            guard case StoreError.corrupt(let offset, _) = error else { return false }
            return offset <= UInt64(victim) && offset >= history.commitEnds[1]
        }
        #expect(readFile(copy) == bytes, "a corrupt store is never modified")
        withExtendedLifetime(writer) {}
    }

    @Test func inNormalModeUnsyncedDamageIsATornTail() throws {
        // In `normal` mode nothing after the last sync was promised, so damage there is
        // what a power loss leaves: the store opens at the last commit before it.
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (history, writer) = try Self.makeHistory(at: path, durability: .normal)
        var bytes = readFile(path)
        withExtendedLifetime(writer) {}
        bytes[Int(history.commitEnds[1]) + 40] ^= 0x10
        writeFile(path, bytes)
        let store = try Store(path: path, options: StoreOptions(readOnly: true))
        #expect(try allEntries(store.read().tree("tree")) == history.states[1])
        withExtendedLifetime(writer) {}
    }
}
