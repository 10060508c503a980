import Foundation
import Testing
@testable import MagicalStore

/// F21: a reader keeps its view while the writer commits, and never sees part of a
/// transaction.
@Suite struct SnapshotTests {
    @Test func aReaderKeepsItsViewWhileTheWriterCommits() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024))
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            for number in 0..<1000 { try tree.put(numberKey(number), [0]) }
        }
        let before = try store.read()
        let transaction = try store.beginWrite()
        let tree = try transaction.tree("tree")
        for number in 0..<1000 { try tree.put(numberKey(number), [1]) }
        try tree.put(numberKey(5000), [1])
        // Uncommitted changes are invisible to a snapshot taken meanwhile.
        #expect(try store.read().tree("tree").get(numberKey(5)) == [0])
        try transaction.commit()
        let after = try store.read()
        #expect(try allEntries(before.tree("tree")).values.allSatisfy { $0 == [0] })
        #expect(try before.tree("tree").count == 1000)
        #expect(try allEntries(after.tree("tree")).values.allSatisfy { $0 == [1] })
        #expect(try after.tree("tree").count == 1001)
        #expect(after.transactionID == before.transactionID + 1)
    }

    @Test func snapshotsOfOneCommitShareTreeLookupsAndTheNextCommitSeesItsOwn() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        try store.write { transaction in try transaction.createTree("kept").put(numberKey(1), [1]) }
        let first = try store.read()
        #expect(try first.treeIfPresent("later") == nil)
        #expect(try store.read().tree("kept").count == 1)
        try store.write { transaction in
            try transaction.createTree("later").put(numberKey(1), [2])
            try transaction.tree("kept").put(numberKey(2), [2])
        }
        // The new commit's snapshots look their trees up afresh; the old one keeps its view.
        let second = try store.read()
        #expect(try second.tree("later").get(numberKey(1)) == [2])
        #expect(try second.tree("kept").count == 2)
        #expect(try first.treeIfPresent("later") == nil)
        #expect(try first.tree("kept").count == 1)
        try store.write { transaction in try transaction.dropTree("later") }
        #expect(try store.read().treeIfPresent("later") == nil)
    }

    /// `isLatest` tells a snapshot of the latest commit from one a commit, a compaction
    /// or closing has left behind, as a cache of snapshots relies on.
    @Test func aSnapshotIsLatestUntilACommitOrCompactionFollowsIt() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none))
        try store.write { transaction in try transaction.createTree("tree").put(numberKey(1), [1]) }
        let first = try store.read()
        let identity = try #require(first.commitIdentity)
        #expect(store.isLatest(identity))
        // Snapshots of one commit share their identity.
        #expect(try store.read().commitIdentity == identity)
        try store.write { transaction in try transaction.tree("tree").put(numberKey(2), [2]) }
        #expect(!store.isLatest(identity))
        let second = try store.read()
        let secondIdentity = try #require(second.commitIdentity)
        #expect(secondIdentity != identity && store.isLatest(secondIdentity))
        // A compaction keeps the commit but moves it to a new file.
        try store.compact()
        #expect(!store.isLatest(secondIdentity))
        let compacted = try #require(try store.read().commitIdentity)
        #expect(store.isLatest(compacted))
        try store.close()
        #expect(!store.isLatest(compacted))
        _ = (first, second)
    }

    @Test func concurrentReadersSeeWholeCommitsOnly() async throws {
        // The writer keeps every value of a commit equal, and the count in a marker key;
        // readers on other threads must always see a consistent state.
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: StoreOptions(durability: .none, pageSize: 1024))
        let keys = 300
        try store.write { transaction in
            let tree = try transaction.createTree("tree")
            for number in 0..<keys { try tree.put(numberKey(number), numberKey(0)) }
        }
        let commits = 60 * testScale
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 1...commits {
                    try store.write { transaction in
                        let tree = try transaction.tree("tree")
                        for number in 0..<keys { try tree.put(numberKey(number), numberKey(round)) }
                    }
                    if round % 20 == 0 { try store.compact() }
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    var lastSeen = 0
                    while lastSeen < commits {
                        let snapshot = try store.read()
                        let values = try allEntries(snapshot.tree("tree")).values
                        let distinct = Set(values)
                        #expect(distinct.count == 1 && values.count == keys)
                        let round = Int(distinct.first!.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
                        #expect(round >= lastSeen, "snapshots move forward")
                        lastSeen = round
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
