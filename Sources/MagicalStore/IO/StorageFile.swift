/// The one interface through which the engine touches files (Spec section 1).
///
/// Everything the store does to disk (reads, appends, syncs, truncation, renames, locks)
/// goes through these two protocols, so tests can substitute an in-memory file system
/// or one that injects faults: torn and lost unsynced writes, EIO, ENOSPC.
///
/// Errors thrown are ``StoreError/io(operation:path:errno:)`` for system failures.
public protocol StorageFile: AnyObject, Sendable {
    /// The path the file was opened at, for error messages.
    var path: String { get }
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read, which is
    /// fewer only at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int
    /// Writes all of `bytes` at `offset`, growing the file when needed.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Makes every write so far durable (`fdatasync`).
    func sync() throws
    /// Starts writing `count` bytes at `offset` to the device without waiting: a hint, so
    /// that the next ``sync()`` finds them written or on their way rather than all to do.
    /// Nothing it starts is durable before a sync; it cannot fail.
    func startWriteback(at offset: UInt64, count: UInt64)
    /// Sets the file's size, dropping bytes past it.
    func truncate(to size: UInt64) throws
    /// The file's current size in bytes.
    func size() throws -> UInt64
    /// Releases the file. Idempotent; later calls on the file fail.
    func close()
}

/// How ``StorageFileSystem/openFile(at:mode:)`` opens a file.
public enum FileOpenMode: Sendable {
    case readOnly
    case readWrite
    /// Creates the file, failing when it exists.
    case createNew
}

/// An exclusive advisory lock, released by ``release()`` or when the value is dropped.
public protocol StorageLock: AnyObject, Sendable {
    func release()
}

/// File-level operations: opening, renaming, directory syncs and locks (Spec sections 7, 8).
public protocol StorageFileSystem: Sendable {
    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile
    func fileExists(at path: String) -> Bool
    func removeFile(at path: String) throws
    /// Atomically replaces `destination` with `source`.
    func renameFile(from source: String, to destination: String) throws
    /// Makes a rename or creation inside the directory holding `path` durable.
    func syncDirectory(containing path: String) throws
    /// Takes an exclusive lock named by `path` without waiting; throws
    /// ``StoreError/locked(path:)`` when another holder has it.
    func lockExclusively(at path: String) throws -> any StorageLock
}

extension StorageFile {
    /// Nothing: a file that is not on a device (in memory, in tests) has nothing to start.
    public func startWriteback(at offset: UInt64, count: UInt64) {}

    /// Reads exactly `count` bytes at `offset`, or fewer only at the end of the file.
    func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        // Straight into new storage: zeroing it first was a fortieth of reading a page.
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = try self.read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
        }
    }

    func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }
}
