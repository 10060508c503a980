import Foundation
import Testing
@testable import MagicalStore

/// The fault-injecting file system itself: which operation fails, how, and for how long.
/// (`FaultInjectionTests` drives the store through it.)
@Suite struct FaultInjectingFileSystemTests {
    static let path = "/data/file"

    /// A file system whose file at `path` holds 8 durable bytes, opened through it.
    static func setUp() throws -> (FaultInjectingFileSystem, any StorageFile) {
        let memory = MemoryFileSystem()
        memory.setContents([UInt8](repeating: 0, count: 8), of: path)
        let fileSystem = FaultInjectingFileSystem(base: memory)
        return (fileSystem, try fileSystem.openFile(at: path, mode: .readWrite))
    }

    /// Performs one operation of `kind`, and nothing else that is counted.
    static func perform(_ kind: IOOperationKind, on fileSystem: FaultInjectingFileSystem, file: any StorageFile) throws {
        switch kind {
        case .read: _ = try file.read(count: 4, at: 0)
        case .write: try file.write([1], at: 0)
        case .grow: try file.write([1], at: UInt64(fileSystem.base.contents(of: path)?.count ?? 0))
        case .sync: try file.sync()
        case .truncate: try file.truncate(to: 8)
        case .size: _ = try file.size()
        case .open: _ = try fileSystem.openFile(at: path, mode: .readOnly)
        case .rename: try fileSystem.renameFile(from: path, to: path)
        case .remove: try fileSystem.removeFile(at: "/data/missing")
        case .syncDirectory: try fileSystem.syncDirectory(containing: path)
        }
    }

    @Test(arguments: IOOperationKind.allCases, [false, true])
    func aFaultHitsTheNthOperationOfItsKindOnceOrForever(kind: IOOperationKind, persistent: Bool) throws {
        let (fileSystem, file) = try Self.setUp()
        fileSystem.inject(InjectedFault(kinds: [kind], atOperation: 3, errno: EIO, persistent: persistent))
        var failed: [Int] = []
        for attempt in 1...6 {
            do {
                try Self.perform(kind, on: fileSystem, file: file)
            } catch let error as StoreError {
                guard case .io(_, _, EIO) = error else { throw error }
                failed.append(attempt)
            }
        }
        #expect(failed == (persistent ? [3, 4, 5, 6] : [3]))
        fileSystem.clearFaults()
        try Self.perform(kind, on: fileSystem, file: file)
    }

    @Test func faultsCountFromWhenTheyAreInjectedAmongAllTheirKinds() throws {
        let (fileSystem, file) = try Self.setUp()
        for _ in 0..<5 { _ = try file.read(count: 1, at: 0) }
        fileSystem.inject(InjectedFault(kinds: [.read, .sync], atOperation: 3))
        _ = try file.read(count: 1, at: 0)
        try file.write([1], at: 0)
        try file.sync()
        #expect(throws: StoreError.io(operation: "read", path: Self.path, errno: EIO)) { try file.read(count: 1, at: 0) }
        _ = try file.read(count: 1, at: 0)
    }

    @Test func aGrowingWriteIsAlsoAWrite() throws {
        let (fileSystem, file) = try Self.setUp()
        fileSystem.inject(InjectedFault(kinds: [.write], atOperation: 2))
        try file.write([1], at: 8)
        #expect(throws: StoreError.io(operation: "write", path: Self.path, errno: EIO)) { try file.write([1], at: 9) }
    }

    @Test func noSpaceFailsOnlyWritesThatGrowTheFile() throws {
        let (fileSystem, file) = try Self.setUp()
        fileSystem.inject(InjectedFault(kinds: [.grow], atOperation: 1, errno: ENOSPC, persistent: true))
        try file.write([1, 2, 3, 4, 5, 6, 7, 8], at: 0)
        #expect(throws: StoreError.io(operation: "write", path: Self.path, errno: ENOSPC)) { try file.write([9, 9], at: 7) }
        #expect(throws: StoreError.io(operation: "write", path: Self.path, errno: ENOSPC)) { try file.write([9], at: 8) }
        try file.truncate(to: 4)
        try file.write([5, 6, 7], at: 1)
        #expect(fileSystem.base.contents(of: Self.path) == [1, 5, 6, 7])
        #expect(throws: StoreError.io(operation: "write", path: Self.path, errno: ENOSPC)) { try file.write([9], at: 4) }
    }

    @Test func aTornWriteAppliesItsLeadingBytesBeforeFailing() throws {
        let memory = MemoryFileSystem()
        let fileSystem = FaultInjectingFileSystem(base: memory)
        let file = try fileSystem.openFile(at: Self.path, mode: .createNew)
        fileSystem.inject(InjectedFault(kinds: [.grow], atOperation: 1, errno: ENOSPC, tornWriteBytes: 100))
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        #expect(throws: StoreError.io(operation: "write", path: Self.path, errno: ENOSPC)) { try file.write(bytes, at: 0) }
        #expect(memory.contents(of: Self.path) == Array(bytes.prefix(100)))
        try file.write(bytes, at: 0)
        #expect(memory.contents(of: Self.path) == bytes)
    }

    @Test func aFailedSyncMakesNothingDurable() throws {
        let (fileSystem, file) = try Self.setUp()
        fileSystem.inject(InjectedFault(kinds: [.sync], atOperation: 1))
        try file.write([7], at: 0)
        #expect(throws: StoreError.io(operation: "fdatasync", path: Self.path, errno: EIO)) { try file.sync() }
        fileSystem.base.simulatePowerLoss(.dropAllUnsynced, seed: 1)
        #expect(fileSystem.base.contents(of: Self.path) == [UInt8](repeating: 0, count: 8))
    }

    @Test func afterAPowerCutEveryOperationFailsUntilThePowerLossIsSimulated() throws {
        let (fileSystem, file) = try Self.setUp()
        let lock = try fileSystem.lockExclusively(at: "/data/file.lock")
        fileSystem.cutPower(afterOperation: 3)
        try file.write([1, 2], at: 0)
        try file.sync()
        try file.write([3], at: 0)
        #expect(fileSystem.operationCount == 4)
        for kind in IOOperationKind.allCases {
            #expect(throws: StoreError.self, "\(kind)") { try Self.perform(kind, on: fileSystem, file: file) }
        }
        #expect(throws: StoreError.io(operation: "open lock file", path: "/data/other.lock", errno: EIO)) {
            try fileSystem.lockExclusively(at: "/data/other.lock")
        }
        #expect(fileSystem.operationCount == 4, "a dead machine does no more operations")
        #expect(fileSystem.fileExists(at: Self.path))

        fileSystem.base.simulatePowerLoss(.dropAllUnsynced, seed: 1)
        withExtendedLifetime(lock) {}
        let rebooted = FaultInjectingFileSystem(base: fileSystem.base)
        let reopened = try rebooted.openFile(at: Self.path, mode: .readWrite)
        #expect(try reopened.read(count: 3, at: 0) == [1, 2, 0], "the synced write survived, the unsynced one did not")
        _ = try rebooted.lockExclusively(at: "/data/file.lock")

        fileSystem.clearFaults()
        #expect(try fileSystem.openFile(at: Self.path, mode: .readOnly).read(count: 1, at: 0) == [1])
    }

    @Test func recentOperationsNameEachOperationAndItsFailure() throws {
        let (fileSystem, file) = try Self.setUp()
        fileSystem.inject(InjectedFault(kinds: [.sync], atOperation: 1, errno: ENOSPC))
        try file.write([1], at: 8)
        try file.write([1], at: 0)
        #expect(throws: StoreError.self) { try file.sync() }
        #expect(fileSystem.recentOperations == [
            IOOperationRecord(number: 1, kind: .open, path: Self.path, failure: nil),
            IOOperationRecord(number: 2, kind: .grow, path: Self.path, failure: nil),
            IOOperationRecord(number: 3, kind: .write, path: Self.path, failure: nil),
            IOOperationRecord(number: 4, kind: .sync, path: Self.path, failure: ENOSPC),
        ])
        #expect(fileSystem.recentOperations.last?.description == "#4 sync /data/file failed with errno \(ENOSPC)")

        for _ in 0..<1000 { _ = try file.size() }
        let recent = fileSystem.recentOperations
        #expect(recent.count == 256)
        #expect(recent.last?.number == fileSystem.operationCount)
        #expect(recent.first?.number == fileSystem.operationCount - 255)
    }
}
