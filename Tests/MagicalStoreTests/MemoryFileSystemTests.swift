import Foundation
import Testing
@testable import MagicalStore

/// The in-memory file system: POSIX-like reads and writes, and durability modelled per file
/// and per directory, so that power-loss tests mean what they say.
@Suite struct MemoryFileSystemTests {
    static let path = "/data/file"

    /// A file created, written, synced and named durably: a power loss keeps `bytes`.
    static func durableFile(_ bytes: [UInt8], in fileSystem: MemoryFileSystem, at path: String = path) throws -> any StorageFile {
        let file = try fileSystem.openFile(at: path, mode: .createNew)
        try file.write(bytes, at: 0)
        try file.sync()
        try fileSystem.syncDirectory(containing: path)
        return file
    }

    static func expectIOError(_ errno: Int32, _ body: () throws -> Void) {
        #expect {
            try body()
        } throws: { error in
            guard case StoreError.io(_, _, let code) = error else { return false }
            return code == errno
        }
    }

    // MARK: Reads, writes, sizes

    @Test func writesGrowTheFileAndReadsStopAtItsEnd() throws {
        let fileSystem = MemoryFileSystem()
        let file = try fileSystem.openFile(at: Self.path, mode: .createNew)
        #expect(try file.size() == 0)
        try file.write([1, 2, 3, 4], at: 0)
        try file.write([9, 9], at: 3)
        #expect(try file.read(count: 10, at: 0) == [1, 2, 3, 9, 9])
        #expect(try file.read(count: 2, at: 1) == [2, 3])
        #expect(try file.read(count: 4, at: 5) == [])
        #expect(try file.read(count: 4, at: 500) == [])
        // A write past the end fills the gap with zeros, like pwrite.
        try file.write([7], at: 8)
        #expect(try file.read(count: 100, at: 0) == [1, 2, 3, 9, 9, 0, 0, 0, 7])
        // An empty write changes nothing, even past the end.
        try file.write([], at: 100)
        #expect(try file.size() == 9)
        #expect(fileSystem.contents(of: Self.path) == [1, 2, 3, 9, 9, 0, 0, 0, 7])
    }

    @Test func truncateShrinksAndZeroFills() throws {
        let fileSystem = MemoryFileSystem()
        let file = try fileSystem.openFile(at: Self.path, mode: .createNew)
        try file.write([1, 2, 3, 4, 5], at: 0)
        try file.truncate(to: 2)
        #expect(try file.read(count: 10, at: 0) == [1, 2])
        try file.truncate(to: 4)
        #expect(try file.read(count: 10, at: 0) == [1, 2, 0, 0])
        #expect(try file.size() == 4)
    }

    @Test func openModesFollowPosix() throws {
        let fileSystem = MemoryFileSystem()
        #expect(throws: StoreError.fileNotFound(path: Self.path)) { try fileSystem.openFile(at: Self.path, mode: .readWrite) }
        #expect(throws: StoreError.fileNotFound(path: Self.path)) { try fileSystem.openFile(at: Self.path, mode: .readOnly) }
        let created = try fileSystem.openFile(at: Self.path, mode: .createNew)
        try created.write([5], at: 0)
        #expect(throws: StoreError.fileExists(path: Self.path)) { try fileSystem.openFile(at: Self.path, mode: .createNew) }
        #expect(fileSystem.fileExists(at: Self.path))
        #expect(fileSystem.paths == [Self.path])

        let reader = try fileSystem.openFile(at: Self.path, mode: .readOnly)
        #expect(try reader.read(count: 1, at: 0) == [5])
        Self.expectIOError(EBADF) { try reader.write([1], at: 0) }
        Self.expectIOError(EBADF) { try reader.truncate(to: 0) }

        reader.close()
        reader.close()
        #expect(throws: StoreError.closed) { try reader.read(count: 1, at: 0) }
        #expect(throws: StoreError.closed) { try reader.size() }
        #expect(try created.read(count: 1, at: 0) == [5], "closing one handle leaves the others")
    }

    @Test func removingAMissingFileIsNotAnErrorButRenamingOneIs() throws {
        let fileSystem = MemoryFileSystem()
        try fileSystem.removeFile(at: Self.path)
        Self.expectIOError(ENOENT) { try fileSystem.renameFile(from: Self.path, to: "/data/other") }
    }

    // MARK: File durability

    @Test func unsyncedWritesAreLostOrKeptByPolicy() throws {
        for policy in [MemoryFileSystem.PowerLossPolicy.dropAllUnsynced, .keepAllUnsynced] {
            let fileSystem = MemoryFileSystem()
            let file = try Self.durableFile([1, 2, 3], in: fileSystem)
            try file.write([4, 5], at: 3)
            try file.write([9], at: 0)
            try file.truncate(to: 4)
            fileSystem.simulatePowerLoss(policy, seed: 1)
            let expected: [UInt8] = policy == .dropAllUnsynced ? [1, 2, 3] : [9, 2, 3, 4]
            #expect(fileSystem.contents(of: Self.path) == expected, "\(policy)")
        }
    }

    @Test func aSyncMakesEverythingSoFarDurable() throws {
        let fileSystem = MemoryFileSystem()
        let file = try Self.durableFile([1, 2, 3], in: fileSystem)
        try file.write([4, 5, 6], at: 3)
        try file.truncate(to: 5)
        try file.write([7], at: 1)
        try file.sync()
        try file.write([8], at: 5)
        fileSystem.simulatePowerLoss(.dropAllUnsynced, seed: 1)
        #expect(fileSystem.contents(of: Self.path) == [1, 7, 3, 4, 5])
    }

    /// Three writes of distinct bytes: each survives or not on its own, and in order.
    @Test func aRandomSubsetKeepsEachWriteOrNot() throws {
        var outcomes: Set<[UInt8]> = []
        for seed in 0..<64 {
            let fileSystem = MemoryFileSystem()
            let file = try Self.durableFile([0, 0, 0], in: fileSystem)
            try file.write([1], at: 0)
            try file.write([2], at: 1)
            try file.write([3, 3], at: 1)
            fileSystem.simulatePowerLoss(.keepRandomSubset, seed: UInt64(seed))
            outcomes.insert(try #require(fileSystem.contents(of: Self.path)))
        }
        // The last write, when kept, always wins over the second (order is kept).
        #expect(outcomes == [
            [0, 0, 0], [1, 0, 0], [0, 2, 0], [1, 2, 0],
            [0, 3, 3], [1, 3, 3],
        ])
    }

    @Test func reorderingCanApplyAnOlderWriteLast() throws {
        var outcomes: Set<[UInt8]> = []
        for seed in 0..<64 {
            let fileSystem = MemoryFileSystem()
            let file = try Self.durableFile([0], in: fileSystem)
            try file.write([1], at: 0)
            try file.write([2, 2], at: 0)
            fileSystem.simulatePowerLoss(.reorder, seed: UInt64(seed))
            outcomes.insert(try #require(fileSystem.contents(of: Self.path)))
        }
        // [1, 2]: the second write, then the first over it.
        #expect(outcomes == [[0], [1], [2, 2], [1, 2]])
    }

    @Test func aTornWriteKeepsASectorAlignedPrefix() throws {
        for boundary in [512, 4096] {
            var cuts: Set<Int> = []
            let offset = boundary + 100
            let length = 3 * boundary
            for seed in 0..<100 {
                let fileSystem = MemoryFileSystem()
                let file = try Self.durableFile([UInt8](repeating: 1, count: 50), in: fileSystem)
                try file.write([2, 2], at: 0)
                try file.write([UInt8](repeating: 3, count: length), at: UInt64(offset))
                fileSystem.simulatePowerLoss(.tearLastWrite(boundary: boundary), seed: UInt64(seed))
                let content = try #require(fileSystem.contents(of: Self.path))
                #expect(content.prefix(2) == [2, 2], "writes before the last are kept")
                if content.count == 50 {
                    cuts.insert(offset)
                } else {
                    #expect(content.count % boundary == 0 && content.count > offset && content.count < offset + length)
                    #expect(content[50..<offset].allSatisfy { $0 == 0 } && content[offset...].allSatisfy { $0 == 3 })
                    cuts.insert(content.count)
                }
            }
            // Nothing, or up to each of the three boundaries strictly inside the write.
            #expect(cuts == [offset, 2 * boundary, 3 * boundary, 4 * boundary])
        }
    }

    @Test func aTornTruncateIsLostAndWithinOneSectorAWriteIsAllOrNothing() throws {
        let fileSystem = MemoryFileSystem()
        let file = try Self.durableFile([1, 2, 3], in: fileSystem)
        try file.write([9], at: 1)
        try file.truncate(to: 1)
        fileSystem.simulatePowerLoss(.tearLastWrite(boundary: 512), seed: 3)
        #expect(fileSystem.contents(of: Self.path) == [1, 9, 3])

        let reopened = try fileSystem.openFile(at: Self.path, mode: .readWrite)
        try reopened.write([7, 7], at: 10)
        fileSystem.simulatePowerLoss(.tearLastWrite(boundary: 512), seed: 3)
        #expect(fileSystem.contents(of: Self.path) == [1, 9, 3])
    }

    @Test func theSameSeedReplaysTheSameOutcome() throws {
        func outcome(seed: UInt64) throws -> [UInt8]? {
            let fileSystem = MemoryFileSystem()
            let file = try Self.durableFile([], in: fileSystem)
            for index in 0..<32 { try file.write([UInt8(index)], at: UInt64(index % 8)) }
            fileSystem.simulatePowerLoss(.reorder, seed: seed)
            return fileSystem.contents(of: Self.path)
        }
        let reference = try outcome(seed: 42)
        #expect(try outcome(seed: 42) == reference)
        let others = try (0..<8).map { try outcome(seed: $0) }
        #expect(others.contains { $0 != reference })
    }

    // MARK: Namespace durability

    @Test func aFileCreatedWithoutADirectorySyncVanishes() throws {
        let fileSystem = MemoryFileSystem()
        let file = try fileSystem.openFile(at: Self.path, mode: .createNew)
        try file.write([1], at: 0)
        try file.sync()
        fileSystem.simulatePowerLoss(.keepAllUnsynced, seed: 1)
        #expect(fileSystem.paths == [])

        let again = try fileSystem.openFile(at: Self.path, mode: .createNew)
        try again.write([1], at: 0)
        fileSystem.simulatePowerLoss(.keepAllUnsynced, seed: 1, keepUnsyncedNames: true)
        #expect(fileSystem.contents(of: Self.path) == [1])
    }

    @Test func aRenameWithoutADirectorySyncIsRevertedUnlessNamesAreKept() throws {
        for keepUnsyncedNames in [false, true] {
            let fileSystem = MemoryFileSystem()
            _ = try Self.durableFile([1], in: fileSystem, at: "/data/old")
            _ = try Self.durableFile([2], in: fileSystem, at: "/data/new")
            try fileSystem.renameFile(from: "/data/new", to: "/data/old")
            #expect(fileSystem.paths == ["/data/old"])
            #expect(fileSystem.contents(of: "/data/old") == [2])
            fileSystem.simulatePowerLoss(.dropAllUnsynced, seed: 1, keepUnsyncedNames: keepUnsyncedNames)
            if keepUnsyncedNames {
                #expect(fileSystem.paths == ["/data/old"])
                #expect(fileSystem.contents(of: "/data/old") == [2])
            } else {
                #expect(fileSystem.paths == ["/data/new", "/data/old"])
                #expect(fileSystem.contents(of: "/data/old") == [1])
                #expect(fileSystem.contents(of: "/data/new") == [2])
            }
        }
    }

    @Test func aDirectorySyncMakesRenamesAndRemovalsInThatDirectoryDurable() throws {
        let fileSystem = MemoryFileSystem()
        _ = try Self.durableFile([1], in: fileSystem, at: "/data/a")
        _ = try Self.durableFile([2], in: fileSystem, at: "/data/b")
        _ = try Self.durableFile([3], in: fileSystem, at: "/other/c")
        try fileSystem.renameFile(from: "/data/a", to: "/data/renamed")
        try fileSystem.removeFile(at: "/data/b")
        try fileSystem.removeFile(at: "/other/c")
        try fileSystem.syncDirectory(containing: "/data/anything")
        fileSystem.simulatePowerLoss(.dropAllUnsynced, seed: 1)
        // Only /data was synced: the removal in /other is undone.
        #expect(fileSystem.paths == ["/data/renamed", "/other/c"])
        #expect(fileSystem.contents(of: "/data/renamed") == [1])
        #expect(fileSystem.contents(of: "/other/c") == [3])
    }

    @Test func openHandlesKeepTheirFileAfterRenameAndRemove() throws {
        let fileSystem = MemoryFileSystem()
        let old = try Self.durableFile([1, 1], in: fileSystem, at: "/data/store")
        let replacement = try Self.durableFile([2, 2], in: fileSystem, at: "/data/store.compact")
        try fileSystem.renameFile(from: "/data/store.compact", to: "/data/store")
        #expect(try old.read(count: 2, at: 0) == [1, 1], "a reader of the replaced file keeps reading it")
        try replacement.write([3], at: 0)
        #expect(fileSystem.contents(of: "/data/store") == [3, 2], "the renamed handle writes under the new name")

        try fileSystem.removeFile(at: "/data/store")
        #expect(!fileSystem.fileExists(at: "/data/store"))
        try replacement.write([4], at: 1)
        #expect(try replacement.read(count: 2, at: 0) == [3, 4], "an unlinked file lives on while open")
        let recreated = try fileSystem.openFile(at: "/data/store", mode: .createNew)
        #expect(try recreated.size() == 0)
    }

    // MARK: After a power loss

    @Test func handlesDieAndLocksAreReleasedByAPowerLoss() throws {
        let fileSystem = MemoryFileSystem()
        let file = try Self.durableFile([1], in: fileSystem)
        let lock = try fileSystem.lockExclusively(at: "/data/file.lock")
        fileSystem.simulatePowerLoss(.keepAllUnsynced, seed: 1)
        Self.expectIOError(EIO) { _ = try file.read(count: 1, at: 0) }
        Self.expectIOError(EIO) { try file.write([2], at: 0) }
        Self.expectIOError(EIO) { try file.sync() }
        Self.expectIOError(EIO) { _ = try file.size() }
        file.close()

        let newLock = try fileSystem.lockExclusively(at: "/data/file.lock")
        lock.release()
        #expect(throws: StoreError.locked(path: "/data/file.lock")) { try fileSystem.lockExclusively(at: "/data/file.lock") }
        newLock.release()
        #expect(try fileSystem.openFile(at: Self.path, mode: .readOnly).read(count: 1, at: 0) == [1])
    }

    // MARK: Locks

    @Test func aSecondLockOnAPathConflictsUntilTheFirstIsReleased() throws {
        let fileSystem = MemoryFileSystem()
        let lock = try fileSystem.lockExclusively(at: "/data/store.lock")
        #expect(throws: StoreError.locked(path: "/data/store.lock")) { try fileSystem.lockExclusively(at: "/data/store.lock") }
        let other = try fileSystem.lockExclusively(at: "/data/other.lock")
        #expect(fileSystem.paths == [], "locks create no files")
        lock.release()
        lock.release()
        let again = try fileSystem.lockExclusively(at: "/data/store.lock")
        withExtendedLifetime((again, other)) {}
        // Dropping a lock releases it.
        do { _ = try fileSystem.lockExclusively(at: "/data/dropped.lock") }
        _ = try fileSystem.lockExclusively(at: "/data/dropped.lock")
    }

    // MARK: Test accessors and untracked durability

    @Test func setContentsIsDurableAtOnceAndSeenByOpenHandles() throws {
        let fileSystem = MemoryFileSystem()
        let file = try fileSystem.openFile(at: Self.path, mode: .createNew)
        try file.write([1, 2, 3], at: 0)
        fileSystem.setContents([1, 0xFF, 3], of: Self.path)
        #expect(try file.read(count: 3, at: 0) == [1, 0xFF, 3])
        fileSystem.setContents([4], of: "/data/new")
        fileSystem.simulatePowerLoss(.dropAllUnsynced, seed: 1)
        #expect(fileSystem.contents(of: Self.path) == [1, 0xFF, 3])
        #expect(fileSystem.contents(of: "/data/new") == [4])
        #expect(fileSystem.contents(of: "/data/missing") == nil)
    }

    @Test func withoutDurabilityTrackingEveryChangeSurvives() throws {
        let fileSystem = MemoryFileSystem(tracksDurability: false)
        let file = try fileSystem.openFile(at: Self.path, mode: .createNew)
        try file.write([1, 2, 3], at: 0)
        try file.truncate(to: 2)
        try fileSystem.renameFile(from: Self.path, to: "/data/renamed")
        fileSystem.simulatePowerLoss(.dropAllUnsynced, seed: 1)
        #expect(fileSystem.paths == ["/data/renamed"])
        #expect(fileSystem.contents(of: "/data/renamed") == [1, 2])
    }

    /// Appends and syncs cost what they write, not the file's size: 32 MiB in 4 KiB writes,
    /// synced every 16, stays fast even in a debug build.
    @Test func largeFilesGrowInLinearTime() throws {
        let fileSystem = MemoryFileSystem()
        let file = try fileSystem.openFile(at: Self.path, mode: .createNew)
        let page = [UInt8](repeating: 0xAB, count: 4096)
        let start = ContinuousClock.now
        for index in 0..<8192 {
            try file.write(page, at: UInt64(index * page.count))
            if index % 16 == 15 { try file.sync() }
        }
        #expect(try file.size() == 32 << 20)
        #expect(try file.read(count: 4, at: (32 << 20) - 2) == [0xAB, 0xAB])
        #expect(ContinuousClock.now - start < .seconds(10))
    }
}
