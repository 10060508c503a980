import Foundation
import Synchronization
import Testing
@testable import MagicalStore

/// Readers on snapshots while a writer commits and compacts (F21, Spec section 7): many
/// threads, some holding snapshots across many commits and compactions, and everything a
/// snapshot reads (tree names, counts, scans both ways, ranges, point reads) equals what a
/// serial reference recorded for its transaction id.
@Suite struct ConcurrencyTests {
    /// Every tree's entries: the reference state of one commit.
    typealias StoreState = [String: [[UInt8]: [UInt8]]]

    static let treeNames = ["alpha", "beta", "delta", "gamma"]
    static let keySpace = 400

    /// Small pages for deep trees and many overflow values from little data, and a small
    /// cache so that snapshots of replaced files really read them.
    static func options() -> StoreOptions {
        StoreOptions(durability: .normal, pageSize: 512, cacheBytes: 128 << 10)
    }

    /// What the writer and the readers share.
    final class Shared: Sendable {
        /// The state of each transaction id, recorded before the commit that makes it
        /// visible, so a reader always finds its snapshot's.
        private let states = Mutex<[UInt64: StoreState]>([:])
        private let failures = Mutex<[String]>([])
        let writerFinished = Atomic(false)
        /// Incremented before each compaction starts and after it ends, to tell which
        /// reads were of a snapshot held across a whole compaction.
        let compactionsBegun = Atomic(0)
        let compactionsEnded = Atomic(0)
        let snapshotsVerified = Atomic(0)
        let readsAcrossCompactions = Atomic(0)
        let deadline: ContinuousClock.Instant

        init(deadline: ContinuousClock.Instant) { self.deadline = deadline }

        func record(_ state: StoreState, for transaction: UInt64) {
            states.withLock { $0[transaction] = state }
        }

        func state(of transaction: UInt64) -> StoreState? {
            states.withLock { $0[transaction] }
        }

        func fail(_ message: String) {
            failures.withLock { if $0.count < 20 { $0.append(message) } }
        }

        var failureMessages: [String] { failures.withLock { $0 } }
    }

    // MARK: The writer

    /// One value in eight needs an overflow frame (over 112 bytes with 512-byte pages).
    static func randomValue(using random: inout SeededGenerator) -> [UInt8] {
        let large = Int.random(in: 0..<8, using: &random) == 0
        return random.bytes(count: large ? Int.random(in: 200...3_000, using: &random) : Int.random(in: 0...40, using: &random))
    }

    /// Random puts and deletes in random trees (created when missing), now and then a
    /// batch, a dropped tree or a renamed one, mirrored in `state`.
    static func makeRandomChanges(in transaction: WriteTransaction, to state: inout StoreState, using random: inout SeededGenerator) throws {
        let existing = state.keys.sorted()
        let vacant = treeNames.filter { state[$0] == nil }
        switch Int.random(in: 0..<30, using: &random) {
        case 0 where !existing.isEmpty:
            let name = existing.randomElement(using: &random)!
            try transaction.dropTree(name)
            state[name] = nil
        case 1 where !existing.isEmpty && !vacant.isEmpty:
            let name = existing.randomElement(using: &random)!
            let newName = vacant.randomElement(using: &random)!
            try transaction.renameTree(name, to: newName)
            state[newName] = state.removeValue(forKey: name)
        case 2...4:
            let name = treeNames.randomElement(using: &random)!
            let batch = (0..<30).map { _ in (key: numberKey(Int.random(in: 0..<keySpace, using: &random)), value: randomValue(using: &random)) }
            try transaction.openTree(name).putBatch(batch)
            for (key, value) in batch { state[name, default: [:]][key] = value }
        default:
            break
        }
        for _ in 0..<Int.random(in: 1...12, using: &random) {
            let name = treeNames.randomElement(using: &random)!
            let tree = try transaction.openTree(name)
            let key = numberKey(Int.random(in: 0..<keySpace, using: &random))
            if Int.random(in: 0..<4, using: &random) == 0 {
                try tree.delete(key)
                state[name, default: [:]][key] = nil
            } else {
                let value = randomValue(using: &random)
                try tree.put(key, value)
                state[name, default: [:]][key] = value
            }
        }
    }

    /// Makes `commits` random commits, one in ten a compaction instead, on a store that
    /// starts empty.
    static func write(commits: Int, to store: Store, shared: Shared, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var state: StoreState = [:]
        do {
            for round in 0..<commits {
                guard ContinuousClock.now < shared.deadline else {
                    shared.fail("writer: out of time after \(round) of \(commits) commits")
                    break
                }
                if Int.random(in: 0..<10, using: &random) == 0 {
                    // A compacted file's commit continues the ids (F19).
                    shared.record(state, for: try store.read().transactionID + 1)
                    shared.compactionsBegun.add(1, ordering: .sequentiallyConsistent)
                    try store.compact()
                    shared.compactionsEnded.add(1, ordering: .sequentiallyConsistent)
                } else {
                    try store.write { transaction in
                        try makeRandomChanges(in: transaction, to: &state, using: &random)
                        shared.record(state, for: transaction.transactionID)
                    }
                }
            }
        } catch {
            shared.fail("writer: \(error)")
        }
        shared.writerFinished.store(true, ordering: .sequentiallyConsistent)
    }

    // MARK: The readers

    /// Compares everything `snapshot` can read with `expected`; returns the first
    /// difference, or nil.
    static func difference(between snapshot: ReadTransaction, and expected: StoreState, using random: inout SeededGenerator) throws -> String? {
        let names = expected.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let visibleNames = try snapshot.treeNames()
        guard visibleNames == names else { return "trees \(visibleNames), expected \(names)" }
        for name in treeNames where expected[name] == nil {
            if try snapshot.treeIfPresent(name) != nil { return "tree \(name) should not exist" }
        }
        for name in names {
            let entries = expected[name] ?? [:]
            let tree = try snapshot.tree(name)
            guard tree.count == entries.count else { return "\(name) counts \(tree.count) entries, expected \(entries.count)" }
            let keys = entries.keys.sorted { $0.lexicographicallyPrecedes($1) }
            let lower = numberKey(Int.random(in: 0..<keySpace, using: &random))
            let upper = numberKey(Int.random(in: 0..<keySpace, using: &random))
            let range = KeyRange(lower: .inclusive(lower), upper: .exclusive(upper))
            let keysInRange = keys.filter { !$0.lexicographicallyPrecedes(lower) && $0.lexicographicallyPrecedes(upper) }
            let scans: [(description: String, range: KeyRange, reverse: Bool, keys: [[UInt8]])] = [
                ("forward scan", .all, false, keys),
                ("reverse scan", .all, true, keys.reversed()),
                ("range scan", range, false, keysInRange),
                ("reverse range scan", range, true, keysInRange.reversed()),
            ]
            for scan in scans {
                var visited: [[UInt8]] = []
                var valuesMatch = true
                try tree.scan(scan.range, reverse: scan.reverse) { key, value in
                    visited.append(key)
                    valuesMatch = valuesMatch && entries[key] == value
                    return true
                }
                guard visited == scan.keys, valuesMatch else { return "\(scan.description) of \(name) differs" }
            }
            for _ in 0..<8 {
                let key = numberKey(Int.random(in: 0..<keySpace, using: &random))
                guard try tree.get(key) == entries[key], try tree.contains(key) == (entries[key] != nil) else {
                    return "reading \(key) in \(name) differs"
                }
            }
        }
        return nil
    }

    /// A snapshot a reader keeps, with the state it must go on showing.
    struct HeldSnapshot {
        let snapshot: ReadTransaction
        let expected: StoreState
        /// Compactions begun, counted just after the snapshot was taken: once more than
        /// this many have ended, the snapshot has been held across a whole compaction.
        let compactionsBegun: Int
    }

    /// Takes snapshots and checks them against the reference until the writer is done;
    /// when `holdsSnapshots`, keeps a few for 40 commits and checks them again and again.
    static func read(from store: Store, shared: Shared, holdsSnapshots: Bool, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var held: [HeldSnapshot] = []
        var latestSeen: UInt64 = 0
        func check(_ snapshot: ReadTransaction, _ expected: StoreState) throws -> Bool {
            if let difference = try difference(between: snapshot, and: expected, using: &random) {
                shared.fail("reader \(seed), snapshot of transaction \(snapshot.transactionID): \(difference)")
                return false
            }
            shared.snapshotsVerified.add(1, ordering: .relaxed)
            return true
        }
        do {
            while ContinuousClock.now < shared.deadline {
                let writerFinished = shared.writerFinished.load(ordering: .sequentiallyConsistent)
                let snapshot = try store.read()
                let compactionsBegun = shared.compactionsBegun.load(ordering: .sequentiallyConsistent)
                guard let expected = shared.state(of: snapshot.transactionID) else {
                    shared.fail("reader \(seed): no reference state for transaction \(snapshot.transactionID)")
                    return
                }
                guard snapshot.transactionID >= latestSeen else {
                    shared.fail("reader \(seed): snapshot went back from \(latestSeen) to \(snapshot.transactionID)")
                    return
                }
                latestSeen = snapshot.transactionID
                guard try check(snapshot, expected) else { return }
                if holdsSnapshots && held.count < 3 && Int.random(in: 0..<4, using: &random) == 0 {
                    held.append(HeldSnapshot(snapshot: snapshot, expected: expected, compactionsBegun: compactionsBegun))
                }
                let compactionsEnded = shared.compactionsEnded.load(ordering: .sequentiallyConsistent)
                for old in held {
                    guard try check(old.snapshot, old.expected) else { return }
                    if compactionsEnded > old.compactionsBegun { shared.readsAcrossCompactions.add(1, ordering: .relaxed) }
                }
                held.removeAll { latestSeen - $0.snapshot.transactionID > 40 }
                if writerFinished { break }
            }
        } catch {
            shared.fail("reader \(seed): \(error)")
        }
    }

    /// Runs each body on its own thread (the cooperative pool, one thread per core here,
    /// would run blocking loops one after another) and waits for them, up to `deadline`.
    static func runOnThreads(_ bodies: [@Sendable () -> Void], until deadline: ContinuousClock.Instant) -> Bool {
        let group = DispatchGroup()
        for body in bodies {
            group.enter()
            Thread {
                body()
                group.leave()
            }.start()
        }
        let remaining = ContinuousClock.now.duration(to: deadline).components.seconds
        return group.wait(timeout: .now() + .seconds(Int(max(remaining, 0)))) == .success
    }

    // MARK: Tests

    @Test func readersOnSnapshotsMatchTheReferenceWhileAWriterCommitsAndCompacts() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store(path: path, options: Self.options())
        // Loops stop at the deadline, so a deadlock fails the test instead of hanging it.
        let deadline = ContinuousClock.now + .seconds(120 * testScale)
        let shared = Shared(deadline: deadline)
        shared.record([:], for: try store.read().transactionID)
        let commits = 200 * testScale
        var bodies: [@Sendable () -> Void] = [{ Self.write(commits: commits, to: store, shared: shared, seed: 1) }]
        for reader in 0..<5 {
            bodies.append { Self.read(from: store, shared: shared, holdsSnapshots: reader % 2 == 0, seed: UInt64(100 + reader)) }
        }
        let finished = Self.runOnThreads(bodies, until: deadline + .seconds(30))
        try #require(finished, "threads still running after the deadline: a deadlock?")
        #expect(shared.failureMessages == [])
        #expect(shared.snapshotsVerified.load(ordering: .sequentiallyConsistent) >= 5)
        #expect(shared.compactionsEnded.load(ordering: .sequentiallyConsistent) > 0)
        #expect(shared.readsAcrossCompactions.load(ordering: .sequentiallyConsistent) > 0)

        // The final state, read serially after a reopen, and the file checks clean.
        let latest = try store.read().transactionID
        try store.close()
        let reopened = try Store(path: path, options: Self.options())
        let snapshot = try reopened.read()
        #expect(snapshot.transactionID == latest)
        var random = SeededGenerator(seed: 2)
        let expected = try #require(shared.state(of: latest))
        #expect(try Self.difference(between: snapshot, and: expected, using: &random) == nil)
        try reopened.close()
        #expect(try StoreChecker(path: path).run().problems == [])
    }

    @Test func aSnapshotKeepsItsCommitAcrossCompactionsAndClose() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file(), options: Self.options())
        var random = SeededGenerator(seed: 7)
        var state: StoreState = [:]
        var held: [(snapshot: ReadTransaction, expected: StoreState)] = []
        for _ in 0..<3 * testScale {
            for _ in 0..<5 {
                try store.write { try Self.makeRandomChanges(in: $0, to: &state, using: &random) }
            }
            let beforeCompaction = try store.read()
            try store.compact()
            // The compacted file shows the same state under the next transaction id.
            let compacted = try store.read()
            #expect(compacted.transactionID == beforeCompaction.transactionID + 1)
            held += [(beforeCompaction, state), (compacted, state)]
            for (snapshot, expected) in held {
                #expect(try Self.difference(between: snapshot, and: expected, using: &random) == nil, "transaction \(snapshot.transactionID)")
            }
        }
        try store.close()
        #expect(throws: StoreError.closed) { try store.read() }
        // Snapshots keep their files open past the store's close.
        for (snapshot, expected) in held {
            #expect(try Self.difference(between: snapshot, and: expected, using: &random) == nil, "after close: transaction \(snapshot.transactionID)")
        }
    }
}
