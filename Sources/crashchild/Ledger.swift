import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The child's record of acknowledged steps: one line per step number, appended and
/// synced after the step's commit returned, so every number in it was acknowledged.
struct Ledger {
    let path: String

    /// Appends `number` and syncs the file before returning.
    func acknowledge(_ number: Int) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { throw LedgerError(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        let line = Array("\(number)\n".utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else { throw LedgerError(operation: "write", path: path, errno: errno) }
        guard fsync(descriptor) == 0 else { throw LedgerError(operation: "fsync", path: path, errno: errno) }
    }

    /// The highest step number on a whole line (a kill can leave the last line torn), 0
    /// when there is none.
    func lastAcknowledged() -> Int {
        guard let bytes = FileManager.default.contents(atPath: path) else { return 0 }
        let whole = bytes.prefix(through: bytes.lastIndex(of: UInt8(ascii: "\n")) ?? -1)
        return String(decoding: whole, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }.max() ?? 0
    }
}

struct LedgerError: Error, CustomStringConvertible {
    var operation: String
    var path: String
    var errno: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}
