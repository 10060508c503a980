import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operations a ``FaultInjectingFileSystem`` counts and can fail.
public enum IOOperationKind: Sendable, CaseIterable {
    case read, write
    /// A write that extends the file (where ENOSPC happens). It is also a ``write``.
    case grow
    case sync, truncate, size
    case open, rename, remove, syncDirectory
}

/// A failure to inject: the `atOperation`-th operation (1-based, counted from when the
/// fault is injected) among those with a kind in `kinds` fails with `errno`, once or, when
/// `persistent`, from then on.
public struct InjectedFault: Sendable {
    public var kinds: Set<IOOperationKind>
    public var atOperation: Int
    /// EIO or ENOSPC.
    public var errno: Int32
    public var persistent: Bool
    /// For a failing write: how many of its leading bytes reach the file before it fails.
    public var tornWriteBytes: Int?

    public init(kinds: Set<IOOperationKind>, atOperation: Int, errno: Int32 = EIO, persistent: Bool = false, tornWriteBytes: Int? = nil) {
        self.kinds = kinds
        self.atOperation = atOperation
        self.errno = errno
        self.persistent = persistent
        self.tornWriteBytes = tornWriteBytes
    }
}

/// One operation a ``FaultInjectingFileSystem`` performed or failed, for debugging a test.
public struct IOOperationRecord: Sendable, Equatable, CustomStringConvertible {
    /// The operation's 1-based position among all counted operations.
    public var number: Int
    /// ``IOOperationKind/grow`` for a write that extended the file.
    public var kind: IOOperationKind
    public var path: String
    /// The errno it failed with, nil when it went ahead.
    public var failure: Int32?

    public var description: String {
        "#\(number) \(kind) \(path)" + (failure.map { " failed with errno \($0)" } ?? "")
    }
}

/// Wraps a ``MemoryFileSystem`` and fails chosen operations, the way LevelDB's fault
/// injection environment does: every error path of the store can be driven by a test.
///
/// It counts, in order, the reads, writes, syncs, truncates and size queries of the files
/// it opened, and its own opens, renames, removes and directory syncs. ``fileExists(at:)``,
/// locks and `close` are not counted. A failed operation does nothing, except a write with
/// ``InjectedFault/tornWriteBytes``, and a failed sync makes nothing durable.
///
/// After ``cutPower(afterOperation:)`` takes effect the machine is dead: every operation
/// (locks included) throws EIO and is no longer counted. The test then calls
/// ``MemoryFileSystem/simulatePowerLoss(_:seed:keepUnsyncedNames:)`` on ``base`` and reopens
/// through `base` or a fresh wrapper.
///
/// Thread safety: every method may be called from any thread.
public final class FaultInjectingFileSystem: StorageFileSystem {
    public let base: MemoryFileSystem

    private struct ArmedFault {
        let fault: InjectedFault
        /// Operations of the fault's kinds seen since it was injected.
        var seen = 0
    }

    private struct State {
        var operationCount = 0
        var faults: [ArmedFault] = []
        var powerCutAfter: Int?
        var recentOperations: [IOOperationRecord] = []
    }

    /// How many records ``recentOperations`` keeps.
    private static let recentOperationLimit = 256

    private let state = Mutex(State())

    public init(base: MemoryFileSystem = MemoryFileSystem()) {
        self.base = base
    }

    /// Operations counted so far, of every kind.
    public var operationCount: Int { state.withLock { $0.operationCount } }

    /// The latest counted operations (up to 256), oldest first.
    public var recentOperations: [IOOperationRecord] {
        state.withLock { Array($0.recentOperations.suffix(Self.recentOperationLimit)) }
    }

    public func inject(_ fault: InjectedFault) {
        state.withLock { $0.faults.append(ArmedFault(fault: fault)) }
    }

    /// After `count` more operations have completed, every operation fails with EIO.
    public func cutPower(afterOperation count: Int) {
        state.withLock { $0.powerCutAfter = $0.operationCount + count }
    }

    /// The faults and any power cut are gone: operations work again.
    public func clearFaults() {
        state.withLock { state in
            state.faults = []
            state.powerCutAfter = nil
        }
    }

    /// Counts an operation and returns the fault it hits, if any. `grows` marks a write
    /// that extends its file: one operation, matching faults on writes and on grows.
    func fault(for kind: IOOperationKind, grows: Bool = false, path: String) -> InjectedFault? {
        state.withLock { state in
            if let cut = state.powerCutAfter, state.operationCount >= cut {
                return InjectedFault(kinds: [], atOperation: 0, errno: EIO, persistent: true)
            }
            state.operationCount += 1
            var hit: InjectedFault?
            for index in state.faults.indices {
                let fault = state.faults[index].fault
                guard fault.kinds.contains(kind) || (grows && fault.kinds.contains(.grow)) else { continue }
                state.faults[index].seen += 1
                let position = state.faults[index].seen
                if position == fault.atOperation || (fault.persistent && position > fault.atOperation) {
                    hit = hit ?? fault
                }
            }
            let record = IOOperationRecord(number: state.operationCount, kind: grows ? .grow : kind, path: path, failure: hit?.errno)
            state.recentOperations.append(record)
            // Trimmed in batches, so appending stays amortized constant time.
            if state.recentOperations.count >= 2 * Self.recentOperationLimit {
                state.recentOperations.removeFirst(Self.recentOperationLimit)
            }
            return hit
        }
    }

    func check(_ kind: IOOperationKind, _ operation: String, _ path: String) throws {
        if let fault = fault(for: kind, path: path) {
            throw StoreError.io(operation: operation, path: path, errno: fault.errno)
        }
    }

    public func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        try check(.open, "open", path)
        return FaultInjectingFile(wrapped: try base.openFile(at: path, mode: mode), fileSystem: self)
    }

    public func fileExists(at path: String) -> Bool {
        base.fileExists(at: path)
    }

    public func removeFile(at path: String) throws {
        try check(.remove, "unlink", path)
        try base.removeFile(at: path)
    }

    public func renameFile(from source: String, to destination: String) throws {
        try check(.rename, "rename", source)
        try base.renameFile(from: source, to: destination)
    }

    public func syncDirectory(containing path: String) throws {
        try check(.syncDirectory, "fsync directory", path)
        try base.syncDirectory(containing: path)
    }

    public func lockExclusively(at path: String) throws -> any StorageLock {
        let powerIsCut = state.withLock { state in state.powerCutAfter.map { state.operationCount >= $0 } ?? false }
        if powerIsCut { throw StoreError.io(operation: "open lock file", path: path, errno: EIO) }
        return try base.lockExclusively(at: path)
    }
}

/// A file opened through a ``FaultInjectingFileSystem``: each call is counted and may fail.
final class FaultInjectingFile: StorageFile {
    private let wrapped: any StorageFile
    private let fileSystem: FaultInjectingFileSystem

    init(wrapped: any StorageFile, fileSystem: FaultInjectingFileSystem) {
        self.wrapped = wrapped
        self.fileSystem = fileSystem
    }

    var path: String { wrapped.path }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try fileSystem.check(.read, "read", path)
        return try wrapped.read(into: buffer, at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        let size = try wrapped.size()
        let grows = !bytes.isEmpty && (offset > size || UInt64(bytes.count) > size - offset)
        guard let fault = fileSystem.fault(for: .write, grows: grows, path: path) else {
            return try wrapped.write(bytes, at: offset)
        }
        if let torn = fault.tornWriteBytes, torn > 0 {
            try wrapped.write(UnsafeRawBufferPointer(rebasing: bytes.prefix(torn)), at: offset)
        }
        throw StoreError.io(operation: "write", path: path, errno: fault.errno)
    }

    func sync() throws {
        try fileSystem.check(.sync, "fdatasync", path)
        try wrapped.sync()
    }

    func truncate(to size: UInt64) throws {
        try fileSystem.check(.truncate, "truncate", path)
        try wrapped.truncate(to: size)
    }

    func size() throws -> UInt64 {
        try fileSystem.check(.size, "fstat", path)
        return try wrapped.size()
    }

    func close() {
        wrapped.close()
    }
}
