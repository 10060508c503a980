import Foundation
import Testing
@testable import MagicalStore

/// The file lifecycle (Spec sections 7 and 8): creating a store, compaction's rename and the
/// lock file. A crash at any step leaves the old store or the new one, never neither; the
/// directory is synced wherever a rename must outlive a power cut (what the ALICE study of
/// crash vulnerabilities found missing in real stores); a crash's leftovers are never taken
/// for the store; one writer at a time.
@Suite struct FileLifecycleTests {
    static let path = "/store/test.store"

    /// Small pages for deep trees from little data, and a small page cache: the default one's
    /// table, sized for 256 MiB of 512-byte pages, would cost more to set up than a trial.
    static func options(_ fileSystem: any StorageFileSystem, readOnly: Bool = false, createIfMissing: Bool = true) -> StoreOptions {
        StoreOptions(
            durability: .full, readOnly: readOnly, createIfMissing: createIfMissing, pageSize: 512,
            cacheBytes: 1 << 20, fileSystem: fileSystem
        )
    }

    /// What a workload did: the contents of "tree" after each step it attempted (`states[0]`
    /// is before the first step), and how many steps were acknowledged (returned).
    struct History {
        var states: [[[UInt8]: [UInt8]]]
        var acknowledged = 0
        var error: (any Error)?

        /// What a store may show after a crash: the last acknowledged state or a later attempted one.
        var possibleStates: ArraySlice<[[UInt8]: [UInt8]]> { states[acknowledged...] }
    }

    /// A dozen random puts and deletes, one value in four large enough for an overflow
    /// frame, mirrored in `entries`.
    static func makeRandomChanges(
        to tree: TreeWriter, mirroring entries: inout [[UInt8]: [UInt8]], using random: inout SeededGenerator
    ) throws {
        for _ in 0..<12 {
            let key = numberKey(Int.random(in: 0..<40, using: &random))
            if Int.random(in: 0..<4, using: &random) == 0 {
                try tree.delete(key)
                entries[key] = nil
            } else {
                let value = random.bytes(count: Int.random(in: 0..<4, using: &random) == 0 ? 300 : 16)
                try tree.put(key, value)
                entries[key] = value
            }
        }
    }

    static func visibleEntries(_ store: Store) throws -> [[UInt8]: [UInt8]] {
        try store.read().treeIfPresent("tree").map(allEntries) ?? [:]
    }

    /// Step 1 creates the store; then `1 + testScale` commits; stops at the first error.
    static func creationWorkload(on fileSystem: any StorageFileSystem) -> History {
        var history = History(states: [[:]])
        var random = SeededGenerator(seed: 5)
        var entries: [[UInt8]: [UInt8]] = [:]
        do {
            let store = try Store(path: path, options: options(fileSystem))
            history.states.append([:])
            history.acknowledged += 1
            for _ in 0...testScale {
                try store.write { transaction in
                    try makeRandomChanges(to: transaction.openTree("tree"), mirroring: &entries, using: &random)
                    history.states.append(entries)
                }
                history.acknowledged += 1
            }
            try store.close()
        } catch {
            history.error = error
        }
        return history
    }

    /// Opens the store, compacts it (step 1), commits once more (step 2) and closes it.
    static func compactionWorkload(on fileSystem: any StorageFileSystem, startingFrom entries: [[UInt8]: [UInt8]]) -> History {
        var history = History(states: [entries])
        var random = SeededGenerator(seed: 6)
        var entries = entries
        do {
            let store = try Store(path: path, options: options(fileSystem))
            history.states.append(entries)  // What the compacted file holds.
            try store.compact()
            history.acknowledged += 1
            try store.write { transaction in
                try makeRandomChanges(to: transaction.openTree("tree"), mirroring: &entries, using: &random)
                history.states.append(entries)
            }
            history.acknowledged += 1
            try store.close()
        } catch {
            history.error = error
        }
        return history
    }

    /// Opens the store a crash left and checks it against `history`: it shows a state at or
    /// after the last acknowledged step, a half-made compaction file is gone, the store takes
    /// writes again and checks clean. Returns how many commits the file then holds, which
    /// tells a compacted file from the one it replaced.
    @discardableResult
    static func expectRecovered(_ history: History, on fileSystem: MemoryFileSystem, context: String) -> Int? {
        do {
            let store = try Store(path: path, options: options(fileSystem))
            #expect(!fileSystem.fileExists(at: path + ".compact"), "\(context)")
            let visible = try visibleEntries(store)
            #expect(history.possibleStates.contains(visible), "not a state at or after the last acknowledged step: \(context)")
            try store.write { try $0.openTree("tree").put([1], [2]) }
            try store.close()
            let report = try StoreChecker(path: path, fileSystem: fileSystem).run()
            #expect(report.problems == [], "\(context)")
            return report.commits
        } catch {
            Issue.record("recovery failed: \(error) (\(context))")
            return nil
        }
    }

    // MARK: Power cuts

    /// One way a power cut can go.
    struct PowerCut: CustomStringConvertible {
        var policy: MemoryFileSystem.PowerLossPolicy
        var seed: UInt64
        var keepUnsyncedNames: Bool

        /// Every policy, with and without the unsynced names; the random policies with
        /// `testScale` seeds each, different for each `cut`.
        static func all(afterOperation cut: Int) -> [PowerCut] {
            MemoryFileSystem.PowerLossPolicy.allCases.flatMap { policy in
                let seeds = [.dropAllUnsynced, .keepAllUnsynced].contains(policy) ? 1 : testScale
                return (0..<seeds).flatMap { index in
                    [false, true].map { PowerCut(policy: policy, seed: UInt64(cut * 1_000 + index), keepUnsyncedNames: $0) }
                }
            }
        }

        func apply(to fileSystem: MemoryFileSystem) {
            fileSystem.simulatePowerLoss(policy, seed: seed, keepUnsyncedNames: keepUnsyncedNames)
        }

        var description: String { "\(policy), seed \(seed), keepUnsyncedNames \(keepUnsyncedNames)" }
    }

    @Test func aPowerCutAtEveryStepOfCreatingAStoreLeavesNoStoreOrAWholeOne() throws {
        let counter = FaultInjectingFileSystem()
        let complete = Self.creationWorkload(on: counter)
        #expect(complete.error == nil)
        let total = counter.operationCount
        for cut in 0...total {
            for powerCut in PowerCut.all(afterOperation: cut) {
                let memory = MemoryFileSystem()
                let faulty = FaultInjectingFileSystem(base: memory)
                faulty.cutPower(afterOperation: cut)
                let history = Self.creationWorkload(on: faulty)
                powerCut.apply(to: memory)
                let context = "power cut after \(cut) of \(total) operations, \(powerCut)"
                if memory.fileExists(at: Self.path) {
                    Self.expectRecovered(history, on: memory, context: context)
                    continue
                }
                #expect(history.acknowledged == 0, "an acknowledged store vanished: \(context)")
                // Whatever `NAME.creating` holds, it is not the store...
                #expect(throws: StoreError.fileNotFound(path: Self.path), "\(context)") {
                    try Store(path: Self.path, options: Self.options(memory, readOnly: true))
                }
                #expect(throws: StoreError.fileNotFound(path: Self.path), "\(context)") {
                    try Store(path: Self.path, options: Self.options(memory, createIfMissing: false))
                }
                // ...and does not stop the next creation.
                let store = try Store(path: Self.path, options: Self.options(memory))
                #expect(try store.read().treeNames() == [], "\(context)")
                try store.close()
                #expect(!memory.fileExists(at: Self.path + ".creating"), "\(context)")
                #expect(try StoreChecker(path: Self.path, fileSystem: memory).run().problems == [], "\(context)")
            }
        }
    }

    /// Fails if compaction does not sync the directory after its rename: the commit after
    /// the compaction is synced into the new file, but a power cut that undoes the rename
    /// brings back the old file without it.
    @Test func aPowerCutAtEveryStepOfACompactionLeavesTheOldOrTheNewFile() throws {
        let setup = MemoryFileSystem()
        var random = SeededGenerator(seed: 9)
        var entries: [[UInt8]: [UInt8]] = [:]
        let store = try Store(path: Self.path, options: Self.options(setup))
        for _ in 0..<3 * testScale {
            try store.write { try Self.makeRandomChanges(to: $0.openTree("tree"), mirroring: &entries, using: &random) }
        }
        try store.close()
        let original = try #require(setup.contents(of: Self.path))
        let commitsBefore = try StoreChecker(path: Self.path, fileSystem: setup).run().commits
        // A compacted file holds its own commit, the one after it and the recovery check's:
        // three at most.
        try #require(commitsBefore >= 3)

        let counter = FaultInjectingFileSystem(base: setup)
        let complete = Self.compactionWorkload(on: counter, startingFrom: entries)
        #expect(complete.error == nil)
        let total = counter.operationCount
        for cut in 0...total {
            for powerCut in PowerCut.all(afterOperation: cut) {
                let memory = MemoryFileSystem()
                memory.setContents(original, of: Self.path)
                let faulty = FaultInjectingFileSystem(base: memory)
                faulty.cutPower(afterOperation: cut)
                let history = Self.compactionWorkload(on: faulty, startingFrom: entries)
                powerCut.apply(to: memory)
                let context = "power cut after \(cut) of \(total) operations, \(powerCut)"
                guard memory.fileExists(at: Self.path) else {
                    Issue.record("no store at all: \(context)")
                    continue
                }
                let commits = Self.expectRecovered(history, on: memory, context: context)
                if history.acknowledged >= 1, let commits {
                    #expect(commits <= 3, "the compaction was acknowledged but the old file came back: \(context)")
                }
            }
        }
    }

    /// Regression test: the replaced file stayed open after a compaction, held by the
    /// cached tree directory until the next read, which then paid for closing it (and the
    /// kernel for dropping the file's cached pages).
    @Test func compactionLetsTheReplacedFileGo() throws {
        let memory = MemoryFileSystem()
        let store = try Store(path: Self.path, options: Self.options(memory))
        try store.write { try $0.createTree("tree").put([1], [1]) }
        #expect(try store.read().tree("tree").get([1]) == [1])
        try store.compact()
        #expect(memory.openUnnamedFileCount == 0)
        #expect(try store.read().tree("tree").get([1]) == [1])
        try store.close()
    }

    /// Regression test: a process that died between renaming a new file into place (creation
    /// or compaction) and syncing the directory left a rename that a power cut could still
    /// undo, and the next process, opening the renamed file, acknowledged commits that the
    /// power cut then lost along with the name. Opening for writing now syncs the directory.
    @Test func aRenameLeftUnsyncedByACrashedProcessIsMadeDurableByTheNextOpen() throws {
        func lifecycle(on fileSystem: any StorageFileSystem) throws {
            let store = try Store(path: Self.path, options: Self.options(fileSystem))
            try store.write { try $0.createTree("tree").put([1], [1]) }
            try store.compact()
            try store.write { try $0.tree("tree").put([2], [2]) }
            try store.close()
        }
        let counter = FaultInjectingFileSystem()
        try lifecycle(on: counter)
        let total = counter.operationCount
        for cut in 0...total {
            // Only a power cut that forgets unsynced names can undo a rename.
            for powerCut in PowerCut.all(afterOperation: cut) where !powerCut.keepUnsyncedNames {
                let memory = MemoryFileSystem()
                let faulty = FaultInjectingFileSystem(base: memory)
                faulty.cutPower(afterOperation: cut)
                // The process dies at the cut; the machine keeps running.
                _ = try? lifecycle(on: faulty)
                let context = "process killed after \(cut) of \(total) operations, then \(powerCut)"
                let nextProcess = try Store(path: Self.path, options: Self.options(memory))
                try nextProcess.write { try $0.openTree("after the crash").put([3], [3]) }
                powerCut.apply(to: memory)
                do {
                    let store = try Store(path: Self.path, options: Self.options(memory, createIfMissing: false))
                    #expect(try store.read().treeIfPresent("after the crash")?.get([3]) == [3], "an acknowledged commit was lost: \(context)")
                    try store.close()
                    #expect(try StoreChecker(path: Self.path, fileSystem: memory).run().problems == [], "\(context)")
                } catch {
                    Issue.record("the store did not open: \(error) (\(context))")
                }
            }
        }
    }

    // MARK: Failed renames and directory syncs

    static func expectedError(for kind: IOOperationKind, renaming source: String) -> StoreError {
        kind == .rename
            ? .io(operation: "rename", path: source, errno: EIO)
            : .io(operation: "fsync directory", path: path, errno: EIO)
    }

    @Test(arguments: [IOOperationKind.rename, .syncDirectory])
    func aFailedRenameOrDirectorySyncWhileCreatingLeavesAStoreThatOpens(kind: IOOperationKind) throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(base: memory)
        faulty.inject(InjectedFault(kinds: [kind], atOperation: 1, persistent: true))
        #expect(throws: Self.expectedError(for: kind, renaming: Self.path + ".creating")) {
            try Store(path: Self.path, options: Self.options(faulty))
        }
        faulty.clearFaults()
        // The failed open released the lock, and what it left opens as an empty store.
        let store = try Store(path: Self.path, options: Self.options(faulty))
        #expect(try store.read().treeNames() == [])
        try store.write { try $0.createTree("tree").put([1], [1]) }
        // The acknowledged commit outlives a power cut that keeps only synced names.
        memory.simulatePowerLoss(.dropAllUnsynced, seed: 1)
        let reopened = try Store(path: Self.path, options: Self.options(faulty, createIfMissing: false))
        #expect(try Self.visibleEntries(reopened) == [[1]: [1]])
        try reopened.compact()
        try reopened.write { try $0.tree("tree").put([2], [2]) }
        try reopened.close()
        #expect(!memory.fileExists(at: Self.path + ".creating"))
        #expect(try StoreChecker(path: Self.path, fileSystem: memory).run().problems == [])
    }

    @Test(arguments: [IOOperationKind.rename, .syncDirectory])
    func aFailedRenameOrDirectorySyncWhileCompactingKeepsTheStore(kind: IOOperationKind) throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(base: memory)
        var random = SeededGenerator(seed: 11)
        var entries: [[UInt8]: [UInt8]] = [:]
        var store = try Store(path: Self.path, options: Self.options(faulty))
        for _ in 0..<3 {
            try store.write { try Self.makeRandomChanges(to: $0.openTree("tree"), mirroring: &entries, using: &random) }
        }
        faulty.inject(InjectedFault(kinds: [kind], atOperation: 1, persistent: true))
        #expect(throws: Self.expectedError(for: kind, renaming: Self.path + ".compact")) { try store.compact() }
        #expect(try Self.visibleEntries(store) == entries)
        if kind == .rename {
            // Nothing changed on disk: the store goes on, without the half-made file.
            #expect(!memory.fileExists(at: Self.path + ".compact"))
            try store.write { try Self.makeRandomChanges(to: $0.tree("tree"), mirroring: &entries, using: &random) }
        } else {
            // The new file is in place but its name may not survive a power cut: the store
            // refuses writes until reopened.
            #expect {
                try store.write { try $0.tree("tree").put([1], [1]) }
            } throws: { error in
                if case StoreError.poisoned = error { return true }
                return false
            }
            try store.close()
            faulty.clearFaults()
            store = try Store(path: Self.path, options: Self.options(faulty))
            #expect(try Self.visibleEntries(store) == entries)
            try store.write { try Self.makeRandomChanges(to: $0.tree("tree"), mirroring: &entries, using: &random) }
            // That commit outlives a power cut that keeps only synced names.
            memory.simulatePowerLoss(.dropAllUnsynced, seed: 2)
            store = try Store(path: Self.path, options: Self.options(faulty, createIfMissing: false))
            #expect(try Self.visibleEntries(store) == entries)
        }
        faulty.clearFaults()
        try store.compact()
        try store.write { try Self.makeRandomChanges(to: $0.tree("tree"), mirroring: &entries, using: &random) }
        try store.close()
        let reopened = try Store(path: Self.path, options: Self.options(faulty))
        #expect(try Self.visibleEntries(reopened) == entries)
        try reopened.close()
        #expect(try StoreChecker(path: Self.path, fileSystem: memory).run().problems == [])
    }

    // MARK: Leftovers

    /// A store path on an in-memory or a real file system, and a way to plant files beside it.
    struct Sandbox {
        enum Kind: CaseIterable { case memory, posix }

        let fileSystem: any StorageFileSystem
        let path: String
        /// Keeps the real directory alive as long as the sandbox.
        private let directory: TemporaryDirectory?

        init(_ kind: Kind) {
            switch kind {
            case .memory:
                fileSystem = MemoryFileSystem()
                path = FileLifecycleTests.path
                directory = nil
            case .posix:
                let directory = TemporaryDirectory()
                fileSystem = PosixFileSystem()
                path = directory.file()
                self.directory = directory
            }
        }

        func options(readOnly: Bool = false, createIfMissing: Bool = true) -> StoreOptions {
            FileLifecycleTests.options(fileSystem, readOnly: readOnly, createIfMissing: createIfMissing)
        }

        func contents(of path: String) -> [UInt8] {
            if let memory = fileSystem as? MemoryFileSystem { return memory.contents(of: path) ?? [] }
            return readFile(path)
        }

        func plant(_ bytes: [UInt8], at path: String) {
            if let memory = fileSystem as? MemoryFileSystem {
                memory.setContents(bytes, of: path)
            } else {
                writeFile(path, bytes)
            }
        }

        /// The bytes of a whole, valid store holding `tree` = {[9]: [9]}: the most
        /// convincing leftover a crash could leave.
        func otherStoreBytes() throws -> [UInt8] {
            let otherPath = path + ".other"
            let other = try Store(path: otherPath, options: options())
            try other.write { try $0.createTree("tree").put([9], [9]) }
            try other.close()
            defer { try? fileSystem.removeFile(at: otherPath) }
            return contents(of: otherPath)
        }
    }

    @Test(arguments: Sandbox.Kind.allCases)
    func aStaleCompactionFileIsNeitherTheStoreNorAnObstacle(kind: Sandbox.Kind) throws {
        let sandbox = Sandbox(kind)
        let compactPath = sandbox.path + ".compact"
        let store = try Store(path: sandbox.path, options: sandbox.options())
        try store.write { try $0.createTree("tree").put([1], [1]) }
        try store.close()
        for leftover in [try sandbox.otherStoreBytes(), Array("half a compaction".utf8)] {
            sandbox.plant(leftover, at: compactPath)
            // A reader reads the store and leaves the leftover alone.
            let reader = try Store(path: sandbox.path, options: sandbox.options(readOnly: true))
            #expect(try Self.visibleEntries(reader) == [[1]: [1]])
            #expect(sandbox.contents(of: compactPath) == leftover)
            // A writer deletes it.
            let writer = try Store(path: sandbox.path, options: sandbox.options())
            #expect(try Self.visibleEntries(writer) == [[1]: [1]])
            #expect(!sandbox.fileSystem.fileExists(at: compactPath))
            // One planted while the store is open does not stop a compaction either.
            sandbox.plant(leftover, at: compactPath)
            try writer.compact()
            #expect(try Self.visibleEntries(writer) == [[1]: [1]])
            #expect(!sandbox.fileSystem.fileExists(at: compactPath))
            try writer.close()
        }
        #expect(try StoreChecker(path: sandbox.path, fileSystem: sandbox.fileSystem).run().problems == [])
    }

    @Test(arguments: Sandbox.Kind.allCases)
    func aStaleCreationFileIsNeitherTheStoreNorAnObstacle(kind: Sandbox.Kind) throws {
        let sandbox = Sandbox(kind)
        let creatingPath = sandbox.path + ".creating"
        for leftover in [try sandbox.otherStoreBytes(), Array("half a creation".utf8)] {
            sandbox.plant(leftover, at: creatingPath)
            #expect(throws: StoreError.fileNotFound(path: sandbox.path)) {
                try Store(path: sandbox.path, options: sandbox.options(readOnly: true))
            }
            #expect(throws: StoreError.fileNotFound(path: sandbox.path)) {
                try Store(path: sandbox.path, options: sandbox.options(createIfMissing: false))
            }
            #expect(sandbox.contents(of: creatingPath) == leftover)
            // Creation replaces it with a new, empty store.
            let store = try Store(path: sandbox.path, options: sandbox.options())
            #expect(try store.read().treeNames() == [])
            #expect(!sandbox.fileSystem.fileExists(at: creatingPath))
            try store.write { try $0.createTree("tree").put([1], [1]) }
            try store.close()
            // Beside an existing store, a leftover is ignored.
            sandbox.plant(leftover, at: creatingPath)
            let reopened = try Store(path: sandbox.path, options: sandbox.options())
            #expect(try Self.visibleEntries(reopened) == [[1]: [1]])
            try reopened.close()
            #expect(try StoreChecker(path: sandbox.path, fileSystem: sandbox.fileSystem).run().problems == [])
            try sandbox.fileSystem.removeFile(at: sandbox.path)
            try sandbox.fileSystem.removeFile(at: creatingPath)
        }
    }

    // MARK: The lock (F26)

    @Test(arguments: Sandbox.Kind.allCases)
    func aSecondWriterIsRefusedUntilTheFirstCloses(kind: Sandbox.Kind) throws {
        let sandbox = Sandbox(kind)
        let lockPath = sandbox.path + ".lock"
        let first = try Store(path: sandbox.path, options: sandbox.options())
        try first.write { try $0.createTree("tree").put([1], [1]) }
        #expect(throws: StoreError.locked(path: lockPath)) { try Store(path: sandbox.path, options: sandbox.options()) }
        #expect(throws: StoreError.locked(path: lockPath)) { try Store(path: sandbox.path, options: sandbox.options(createIfMissing: false)) }
        // Readers take no lock.
        let reader = try Store(path: sandbox.path, options: sandbox.options(readOnly: true))
        #expect(try Self.visibleEntries(reader) == [[1]: [1]])
        try first.close()
        // Closing released it; so does dropping a store without closing it.
        do {
            let second = try Store(path: sandbox.path, options: sandbox.options())
            try second.write { try $0.tree("tree").put([2], [2]) }
        }
        let third = try Store(path: sandbox.path, options: sandbox.options())
        #expect(try Self.visibleEntries(third) == [[1]: [1], [2]: [2]])
        try third.close()
        // The reader keeps its snapshot of the file it opened.
        #expect(try Self.visibleEntries(reader) == [[1]: [1]])
        try reader.close()
        if kind == .posix {
            // F1: the lock file holds nothing and may be deleted while no one has the store open.
            #expect(sandbox.contents(of: lockPath) == [])
            try sandbox.fileSystem.removeFile(at: lockPath)
            try Store(path: sandbox.path, options: sandbox.options()).close()
        }
    }

    @Test(arguments: Sandbox.Kind.allCases)
    func aFailedOpenReleasesTheLock(kind: Sandbox.Kind) throws {
        let sandbox = Sandbox(kind)
        sandbox.plant(Array("not a store".utf8), at: sandbox.path)
        #expect(throws: StoreError.notAStore(path: sandbox.path)) { try Store(path: sandbox.path, options: sandbox.options()) }
        try sandbox.fileSystem.removeFile(at: sandbox.path)
        try Store(path: sandbox.path, options: sandbox.options()).close()
    }

    @Test func aPowerCutReleasesTheLockAndTheDeadHolderCannotTakeItBack() throws {
        let memory = MemoryFileSystem()
        let dead = try Store(path: Self.path, options: Self.options(memory))
        try dead.write { try $0.createTree("tree").put([1], [1]) }
        memory.simulatePowerLoss(.keepAllUnsynced, seed: 3)
        let survivor = try Store(path: Self.path, options: Self.options(memory))
        #expect(try Self.visibleEntries(survivor) == [[1]: [1]])
        // The store from before the power cut is dead; ending it must not free the new lock.
        #expect(throws: StoreError.self) { try dead.write { try $0.tree("tree").put([2], [2]) } }
        try? dead.close()
        #expect(throws: StoreError.locked(path: Self.path + ".lock")) { try Store(path: Self.path, options: Self.options(memory)) }
        try survivor.close()
        try Store(path: Self.path, options: Self.options(memory)).close()
    }
}
