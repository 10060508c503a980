#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The kinds of I/O a fault can be injected into.
public enum IOOperationKind: Sendable, CaseIterable {
    case read, write, sync, truncate, size
    /// A write that extends the file (where ENOSPC happens).
    case grow
    case open, rename, remove, syncDirectory
}

/// A failure to inject: the `atOperation`-th operation (1-based, counted from when the
/// fault is injected) among those of `kinds` fails with `errno`, once or from then on.
public struct InjectedFault: Sendable {
    public var kinds: Set<IOOperationKind>
    public var atOperation: Int
    public var errno: Int32
    public var persistent: Bool
    /// For a failing write: how many of its leading bytes reach the file first.
    public var tornWriteBytes: Int?

    public init(kinds: Set<IOOperationKind>, atOperation: Int, errno: Int32, persistent: Bool = false, tornWriteBytes: Int? = nil) {
        self.kinds = kinds
        self.atOperation = atOperation
        self.errno = errno
        self.persistent = persistent
        self.tornWriteBytes = tornWriteBytes
    }
}

/// Wraps a ``MemoryFileSystem`` and fails chosen operations, the way LevelDB's fault
/// injection environment does: every error path of the store can be driven by a test.
public final class FaultInjectingFileSystem: StorageFileSystem, Sendable {
    public let base: MemoryFileSystem

    private struct State {
        var operations = 0
        var operationsByKind: [IOOperationKind: Int] = [:]
        /// Each fault with the per-kind counts when it was injected.
        var faults: [(fault: InjectedFault, baseline: [IOOperationKind: Int])] = []
        var powerCutAfter: Int?
    }

    private let state = Mutex(State())

    public init(base: MemoryFileSystem = MemoryFileSystem()) {
        self.base = base
    }

    /// Operations performed so far, of every kind.
    public var operationCount: Int { state.withLock { $0.operations } }

    public func inject(_ fault: InjectedFault) {
        state.withLock { $0.faults.append((fault, $0.operationsByKind)) }
    }

    /// After `count` more operations have completed, every operation fails with EIO: the
    /// machine is dead until ``MemoryFileSystem/simulatePowerLoss(_:seed:keepUnsyncedNames:)``.
    public func cutPower(afterOperation count: Int) {
        state.withLock { $0.powerCutAfter = $0.operations + count }
    }

    /// The faults are gone: operations work again.
    public func clearFaults() {
        state.withLock { state in
            state.faults = []
            state.powerCutAfter = nil
        }
    }

    /// Counts an operation and returns the fault it hits, if any.
    func fault(for kinds: [IOOperationKind]) -> InjectedFault? {
        state.withLock { state in
            if let cut = state.powerCutAfter, state.operations >= cut {
                return InjectedFault(kinds: [], atOperation: 0, errno: EIO, persistent: true)
            }
            state.operations += 1
            var hit: InjectedFault?
            for kind in kinds {
                let index = state.operationsByKind[kind, default: 0] + 1
                state.operationsByKind[kind] = index
                for (fault, baseline) in state.faults where fault.kinds.contains(kind) {
                    let position = index - baseline[kind, default: 0]
                    if position == fault.atOperation || (fault.persistent && position > fault.atOperation) {
                        hit = hit ?? fault
                    }
                }
            }
            return hit
        }
    }

    func check(_ kinds: [IOOperationKind], _ operation: String, _ path: String) throws {
        if let fault = fault(for: kinds) {
            throw StoreError.io(operation: operation, path: path, errno: fault.errno)
        }
    }

    public func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        try check([.open], "open", path)
        return FaultInjectingFile(wrapped: try base.openFile(at: path, mode: mode), fileSystem: self)
    }

    public func fileExists(at path: String) -> Bool {
        base.fileExists(at: path)
    }

    public func removeFile(at path: String) throws {
        try check([.remove], "unlink", path)
        try base.removeFile(at: path)
    }

    public func renameFile(from source: String, to destination: String) throws {
        try check([.rename], "rename", source)
        try base.renameFile(from: source, to: destination)
    }

    public func syncDirectory(containing path: String) throws {
        try check([.syncDirectory], "fsync directory", path)
        try base.syncDirectory(containing: path)
    }

    public func lockExclusively(at path: String) throws -> any StorageLock {
        try base.lockExclusively(at: path)
    }
}

final class FaultInjectingFile: StorageFile {
    private let wrapped: any StorageFile
    private let fileSystem: FaultInjectingFileSystem

    init(wrapped: any StorageFile, fileSystem: FaultInjectingFileSystem) {
        self.wrapped = wrapped
        self.fileSystem = fileSystem
    }

    var path: String { wrapped.path }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try fileSystem.check([.read], "read", path)
        return try wrapped.read(into: buffer, at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        let grows = offset + UInt64(bytes.count) > (try wrapped.size())
        guard let fault = fileSystem.fault(for: grows ? [.write, .grow] : [.write]) else {
            return try wrapped.write(bytes, at: offset)
        }
        if let torn = fault.tornWriteBytes, torn > 0 {
            try wrapped.write(UnsafeRawBufferPointer(rebasing: bytes.prefix(torn)), at: offset)
        }
        throw StoreError.io(operation: "write", path: path, errno: fault.errno)
    }

    func sync() throws {
        try fileSystem.check([.sync], "fdatasync", path)
        try wrapped.sync()
    }

    func truncate(to size: UInt64) throws {
        try fileSystem.check([.truncate], "truncate", path)
        try wrapped.truncate(to: size)
    }

    func size() throws -> UInt64 {
        try fileSystem.check([.size], "fstat", path)
        return try wrapped.size()
    }

    func close() {
        wrapped.close()
    }
}
