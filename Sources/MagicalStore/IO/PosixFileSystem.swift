import CWriteback
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real file system, through POSIX calls.
public struct PosixFileSystem: StorageFileSystem {
    public init() {}

    public func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        }
        let descriptor = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw StoreError.fileNotFound(path: path) }
            if code == EEXIST { throw StoreError.fileExists(path: path) }
            throw StoreError.io(operation: "open", path: path, errno: code)
        }
        return PosixFile(path: path, descriptor: descriptor)
    }

    public func fileExists(at path: String) -> Bool {
        access(path, F_OK) == 0
    }

    public func removeFile(at path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw StoreError.io(operation: "unlink", path: path, errno: errno)
        }
    }

    public func renameFile(from source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else {
            throw StoreError.io(operation: "rename", path: source, errno: errno)
        }
    }

    public func syncDirectory(containing path: String) throws {
        let directory = Self.directory(of: path)
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError.io(operation: "open directory", path: directory, errno: errno)
        }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StoreError.io(operation: "fsync directory", path: directory, errno: errno)
        }
    }

    public func lockExclusively(at path: String) throws -> any StorageLock {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError.io(operation: "open lock file", path: path, errno: errno)
        }
        // flock locks belong to the open file description, so a second open in the same
        // process conflicts too (POSIX fcntl locks would not).
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            if code == EWOULDBLOCK { throw StoreError.locked(path: path) }
            throw StoreError.io(operation: "flock", path: path, errno: code)
        }
        return PosixLock(descriptor: descriptor)
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}

final class PosixFile: StorageFile, @unchecked Sendable {
    // The descriptor is set once and only cleared by close(); pread/pwrite are thread-safe.
    let path: String
    private let descriptor: Int32
    private let closed = Atomic(false)

    init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close() }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try ensureOpen()
        var total = 0
        while total < buffer.count {
            let result = pread(descriptor, buffer.baseAddress! + total, buffer.count - total, off_t(offset) + off_t(total))
            if result < 0 {
                if errno == EINTR { continue }
                throw StoreError.io(operation: "read", path: path, errno: errno)
            }
            if result == 0 { break }
            total += result
        }
        return total
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try ensureOpen()
        var total = 0
        while total < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + total, bytes.count - total, off_t(offset) + off_t(total))
            if result < 0 {
                if errno == EINTR { continue }
                throw StoreError.io(operation: "write", path: path, errno: errno)
            }
            total += result
        }
    }

    func sync() throws {
        try ensureOpen()
        guard fdatasync(descriptor) == 0 else {
            throw StoreError.io(operation: "fdatasync", path: path, errno: errno)
        }
    }

    func startWriteback(at offset: UInt64, count: UInt64) {
        guard !closed.load(ordering: .acquiring), count > 0,
              let start = Int64(exactly: offset), let length = Int64(exactly: count) else { return }
        // A failure costs only the head start: the next sync writes the bytes anyway.
        _ = mr_start_writeback(descriptor, start, length)
    }

    func truncate(to size: UInt64) throws {
        try ensureOpen()
        guard ftruncate(descriptor, off_t(size)) == 0 else {
            throw StoreError.io(operation: "truncate", path: path, errno: errno)
        }
    }

    func size() throws -> UInt64 {
        try ensureOpen()
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StoreError.io(operation: "fstat", path: path, errno: errno)
        }
        return UInt64(status.st_size)
    }

    /// A closed descriptor number may be reused by another open, so every call checks first.
    private func ensureOpen() throws {
        if closed.load(ordering: .acquiring) { throw StoreError.closed }
    }

    func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) {
            Glibc.close(descriptor)
        }
    }
}

final class PosixLock: StorageLock {
    let descriptor: Int32
    private let released = Atomic(false)

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { release() }

    func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) {
            // Unlock before closing: a child forked meanwhile shares the open file
            // description until it execs, and would keep the lock alive after our close.
            flock(descriptor, LOCK_UN)
            Glibc.close(descriptor)
        }
    }
}
