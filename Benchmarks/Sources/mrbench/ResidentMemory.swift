import Foundation

/// The process's resident memory from `/proc/self/status`, with the peak reset before a
/// phase (Linux `clear_refs` 5), so one phase's peak can be told from the rest of the run:
/// generating the input, and the systems that ran before.
enum ResidentMemory {
    /// Returns the heap's free memory to the system (what the systems run before freed),
    /// then resets the peak to the resident size; false where the kernel does not allow it.
    @discardableResult
    static func resetPeak() -> Bool {
        trimHeap()
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// glibc's `malloc_trim(0)`, which Swift's Glibc module does not export; nothing elsewhere.
    private static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// Resident bytes now (`VmRSS`).
    static var current: UInt64? { field("VmRSS:") }

    /// The peak resident bytes since the start or the last ``resetPeak()`` (`VmHWM`).
    static var peak: UInt64? { field("VmHWM:") }

    private static func field(_ name: String) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let kilobytes = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { UInt64($0) }
            return kilobytes.map { $0 * 1_024 }
        }
        return nil
    }
}
