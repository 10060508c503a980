import Foundation

/// Every failure the engine reports. Each case names what went wrong and where.
public enum StoreError: Error, Equatable, Sendable {
    /// The file does not start with the store magic (Spec F9).
    case notAStore(path: String)
    /// The file is shorter than its header, or a checkpoint points past its end.
    case truncatedFile(path: String, size: UInt64)
    /// The file was written by a newer format version than this library reads.
    case unsupportedVersion(path: String, found: UInt32, supported: UInt32)
    /// Bytes on disk fail their checks: a checksum, a length, a structure rule.
    case corrupt(offset: UInt64, reason: String)
    /// Another process holds the store open for writing (Spec F26).
    case locked(path: String)
    /// A system call failed; `errno` is the system error number (EIO, ENOSPC, ...).
    case io(operation: String, path: String, errno: Int32)
    /// An earlier sync or write failed, so the store no longer knows what is on disk.
    /// It refuses writes until it is closed and opened again.
    case poisoned(reason: String)
    /// The store was opened read-only.
    case readOnly
    /// The store or the transaction has been closed or ended.
    case closed
    case fileNotFound(path: String)
    case fileExists(path: String)
    case keyTooLarge(length: Int, limit: Int)
    case valueTooLarge(length: Int, limit: Int)
    case invalidTreeName(String)
    case treeNotFound(String)
    case treeExists(String)
    case invalidOption(String)
    /// A ``TreeLoader`` was given a key not above the one before it.
    case keysOutOfOrder(tree: String)
}

extension StoreError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .notAStore(let path):
            return "\(path) is not a MagicalStore file (bad magic number)"
        case .truncatedFile(let path, let size):
            return "\(path) is truncated (\(size) bytes)"
        case .unsupportedVersion(let path, let found, let supported):
            return "\(path) has format version \(found); this library reads up to version \(supported)"
        case .corrupt(let offset, let reason):
            return "store is corrupt at offset \(offset): \(reason)"
        case .locked(let path):
            return "store is locked: another process has \(path) open for writing"
        case .io(let operation, let path, let errno):
            return "\(operation) failed on \(path): \(String(cString: strerror(errno))) (errno \(errno))"
        case .poisoned(let reason):
            return "store refuses writes until reopened: \(reason)"
        case .readOnly:
            return "store is open read-only"
        case .closed:
            return "store or transaction is closed"
        case .fileNotFound(let path):
            return "no store at \(path)"
        case .fileExists(let path):
            return "a file already exists at \(path)"
        case .keyTooLarge(let length, let limit):
            return "key of \(length) bytes exceeds the limit of \(limit) bytes"
        case .valueTooLarge(let length, let limit):
            return "value of \(length) bytes exceeds the limit of \(limit) bytes"
        case .invalidTreeName(let name):
            return "invalid tree name \"\(name)\": names are 1 to 255 UTF-8 bytes"
        case .treeNotFound(let name):
            return "no tree named \"\(name)\""
        case .treeExists(let name):
            return "a tree named \"\(name)\" already exists"
        case .invalidOption(let message):
            return "invalid option: \(message)"
        case .keysOutOfOrder(let tree):
            return "keys loaded into \"\(tree)\" must strictly ascend"

        }
    }

    public var errorDescription: String? { description }
}
