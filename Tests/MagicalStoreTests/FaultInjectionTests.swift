import Foundation
import Testing
@testable import MagicalStore

/// Section 6 under faults: a power cut after any I/O, and EIO or ENOSPC at any operation,
/// lose no acknowledged commit, show no unacknowledged one in part, leave a store that
/// opens and checks clean, and takes writes again (the invariants I1-I6 of the
/// reliability issue).
@Suite struct FaultInjectionTests {
    static let path = "/store/test.store"

    /// What the workload did: the tree's contents after each commit it attempted, and how
    /// many of those commits were acknowledged.
    struct Outcome {
        var states: [[[UInt8]: [UInt8]]] = [[:]]
        var acknowledged = 0
        var error: (any Error)?
    }

    /// Creates a store and makes a few commits (puts, deletes, overflow values, a bulk load
    /// whose pages reach the file before its commit, one rolled back after its pages did, a
    /// compaction, a batch that writes pages it has passed before its commit), stopping at
    /// the first error. The seed picks the keys and values.
    static func workload(on fileSystem: any StorageFileSystem, seed: UInt64 = 17) -> Outcome {
        var outcome = Outcome()
        var random = SeededGenerator(seed: seed)
        do {
            let store = try Store(path: path, options: StoreOptions(durability: .full, pageSize: 512, fileSystem: fileSystem))
            var entries: [[UInt8]: [UInt8]] = [:]
            for round in 0..<5 {
                if round == 3 {
                    outcome.states.append(entries)
                    try store.compact()
                    outcome.acknowledged += 1
                    continue
                }
                if round == 2 {
                    // Pages written and then rolled back: the next commit reuses their
                    // offsets and transaction id.
                    let discarded = try store.beginWrite()
                    let loader = try discarded.makeLoader(forNewTree: "discarded")
                    for number in 0..<60 { try loader.append(numberKey(number), random.bytes(count: 20)) }
                    try loader.finish()
                    discarded.rollback()
                }
                try store.write { transaction in
                    if round == 1 {
                        let loader = try transaction.makeLoader(forNewTree: "loaded")
                        for number in 0..<60 { try loader.append(numberKey(number), random.bytes(count: number % 20 == 0 ? 300 : 20)) }
                        try loader.finish()
                    }
                    let tree = try transaction.openTree("tree")
                    if round == 4 {
                        // Scattered keys over hundreds of leaves: the batch writes the
                        // subtrees it has passed before the commit (early pages).
                        let batch = (0..<6_000).map { _ in (numberKey(Int.random(in: 100..<100_000, using: &random)), random.bytes(count: 20)) }
                        try tree.putBatch(batch)
                        for (key, value) in batch { entries[key] = value }
                    }
                    for _ in 0..<25 {
                        let key = numberKey(Int.random(in: 0..<60, using: &random))
                        if Int.random(in: 0..<4, using: &random) == 0 {
                            try tree.delete(key)
                            entries[key] = nil
                        } else {
                            let value = random.bytes(count: Int.random(in: 0...1, using: &random) == 0 ? 20 : 300)
                            try tree.put(key, value)
                            entries[key] = value
                        }
                    }
                    outcome.states.append(entries)
                }
                outcome.acknowledged += 1
            }
            try store.close()
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// Opens what the faults left and checks I1-I6 against the workload's outcome.
    static func expectRecovered(_ outcome: Outcome, on fileSystem: any StorageFileSystem, context: String) {
        guard fileSystem.fileExists(at: path) else {
            #expect(outcome.acknowledged == 0 && outcome.error != nil, "the store vanished: \(context)")
            return
        }
        do {
            let store = try Store(path: path, options: StoreOptions(durability: .full, pageSize: 512, fileSystem: fileSystem))
            let visible = try store.read().treeIfPresent("tree").map(allEntries) ?? [:]
            // I1, I2, I3: a whole commit at or after the last acknowledged one.
            let candidates = outcome.states[outcome.acknowledged...]
            #expect(candidates.contains(visible), "visible state is not a commit at or after the last acknowledged one: \(context)")
            // I6: writes work again.
            try store.write { try $0.openTree("tree").put([1], [2]) }
            try store.close()
            // I5: the store checks clean.
            let report = try StoreChecker(path: path, fileSystem: fileSystem).run()
            #expect(report.problems == [], "\(context)")
        } catch {
            Issue.record("recovery failed: \(error) (\(context))")
        }
    }

    /// `MAGICALRECORD_TEST_SCALE` workloads (each with its own keys and values), cut after
    /// every one of their operations, under every power-loss policy.
    @Test func powerLossAfterEveryIOOperation() throws {
        var trials = 0
        for seed in 17..<UInt64(17 + testScale) {
            let counter = FaultInjectingFileSystem()
            let complete = Self.workload(on: counter, seed: seed)
            #expect(complete.error == nil)
            let total = counter.operationCount
            #expect(total > 30)
            let policies = MemoryFileSystem.PowerLossPolicy.allCases
            for cut in 0...total {
                for policy in policies {
                    for keepUnsyncedNames in [false, true] {
                        let memory = MemoryFileSystem()
                        let faulty = FaultInjectingFileSystem(base: memory)
                        faulty.cutPower(afterOperation: cut)
                        let outcome = Self.workload(on: faulty, seed: seed)
                        memory.simulatePowerLoss(policy, seed: UInt64(cut), keepUnsyncedNames: keepUnsyncedNames)
                        Self.expectRecovered(
                            outcome, on: memory,
                            context: "seed \(seed): power cut after \(cut) of \(total) operations, \(policy), unsynced names \(keepUnsyncedNames ? "kept" : "lost")"
                        )
                        trials += 1
                    }
                }
            }
        }
        print("power loss: \(trials) trials (every operation of \(testScale) workloads x \(MemoryFileSystem.PowerLossPolicy.allCases.count) policies x unsynced names kept or lost)")
    }

    @Test(arguments: [EIO, ENOSPC], [false, true])
    func anIOErrorAtAnyOperation(errno: Int32, persistent: Bool) throws {
        let kinds: [IOOperationKind] = [.write, .grow, .sync, .read, .truncate, .size, .open, .rename, .syncDirectory]
        var trials = 0
        for (seed, kind) in (17..<UInt64(17 + testScale)).flatMap({ seed in kinds.map { (seed, $0) } }) {
            // How often the workload performs this kind of operation.
            var count = 0
            while true {
                count += 1
                let memory = MemoryFileSystem()
                let faulty = FaultInjectingFileSystem(base: memory)
                faulty.inject(InjectedFault(kinds: [kind], atOperation: count, errno: errno, persistent: persistent, tornWriteBytes: count % 3 == 0 ? 100 : nil))
                let outcome = Self.workload(on: faulty, seed: seed)
                if outcome.error == nil { break }
                if let error = outcome.error {
                    #expect(error is StoreError, "untyped error \(error)")
                }
                faulty.clearFaults()
                Self.expectRecovered(outcome, on: faulty, context: "\(kind) #\(count) errno \(errno) persistent \(persistent)")
                trials += 1
                if count > 400 { break }
            }
        }
        print("I/O errors (errno \(errno), \(persistent ? "failing forever" : "failing once")): \(trials) trials")
    }

    @Test func aFailedSyncPoisonsTheStoreUntilReopened() throws {
        let faulty = FaultInjectingFileSystem()
        let store = try Store(path: Self.path, options: StoreOptions(durability: .full, fileSystem: faulty))
        try store.write { try $0.createTree("tree").put([1], [1]) }
        faulty.inject(InjectedFault(kinds: [.sync], atOperation: 1, errno: EIO))
        #expect(throws: StoreError.self) { try store.write { try $0.tree("tree").put([2], [2]) } }
        faulty.clearFaults()
        #expect {
            try store.write { try $0.tree("tree").put([3], [3]) }
        } throws: { error in
            if case StoreError.poisoned = error { return true }
            return false
        }
        try store.close()
        let reopened = try Store(path: Self.path, options: StoreOptions(fileSystem: faulty))
        #expect(try reopened.read().tree("tree").get([1]) == [1])
        try reopened.write { try $0.tree("tree").put([3], [3]) }
    }

    @Test func aFailedWriteRollsBackAndTheStoreGoesOn() throws {
        let faulty = FaultInjectingFileSystem()
        let store = try Store(path: Self.path, options: StoreOptions(durability: .full, fileSystem: faulty))
        try store.write { try $0.createTree("tree").put([1], [1]) }
        faulty.inject(InjectedFault(kinds: [.grow], atOperation: 1, errno: ENOSPC, tornWriteBytes: 50))
        #expect(throws: StoreError.io(operation: "write", path: Self.path, errno: ENOSPC)) {
            try store.write { try $0.tree("tree").put([2], [UInt8](repeating: 7, count: 5000)) }
        }
        // Space is back: the same store commits again, and the failed commit left nothing.
        try store.write { try $0.tree("tree").put([3], [3]) }
        #expect(try allEntries(store.read().tree("tree")) == [[1]: [1], [3]: [3]])
        try store.close()
        #expect(try StoreChecker(path: Self.path, fileSystem: faulty).run().problems == [])
    }
}
