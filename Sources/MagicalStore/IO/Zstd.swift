import CZstd
import Synchronization

/// Zstandard compression of page payloads, through the system libzstd (Spec F11).
///
/// Each call borrows a context from a small pool: making one costs far more than
/// compressing a page, and the encoding workers compress on several threads at once.
enum Zstd {
    static var levels: ClosedRange<Int> { Int(ZSTD_minCLevel())...Int(ZSTD_maxCLevel()) }

    /// Compresses `source` onto the end of `buffer`, returning the compressed length, or
    /// nil (and `buffer` as it was) when that would not save at least 1/16 of it: the
    /// output is given only that much room, so an incompressible page costs no bound's worth.
    static func compressIfWorthwhile(_ source: UnsafeRawBufferPointer, level: Int, appendingTo buffer: inout [UInt8]) -> Int? {
        guard source.count >= 64 else { return nil }
        let worthwhileLimit = source.count - source.count / 16
        let start = buffer.count
        buffer.appendZeros(worthwhileLimit)
        let written = compressionContexts.borrow { context in
            buffer.withUnsafeMutableBytes { output in
                ZSTD_compressCCtx(context, output.baseAddress! + start, worthwhileLimit, source.baseAddress!, source.count, Int32(level))
            }
        }
        guard ZSTD_isError(written) == 0, written > 0, written <= worthwhileLimit else {
            buffer.removeLast(worthwhileLimit)
            return nil
        }
        buffer.removeLast(worthwhileLimit - written)
        return written
    }

    /// Decompresses `source` into exactly `rawLength` bytes, or returns nil when the input
    /// is malformed or decompresses to any other length. Never writes past `rawLength`.
    static func decompress(_ source: UnsafeRawBufferPointer, rawLength: Int) -> [UInt8]? {
        guard rawLength > 0, source.count > 0 else { return nil }
        // Into new storage as it is, not zeroed first (see ``LZ4/decompress(_:rawLength:)``).
        var produced = 0
        let destination = [UInt8](unsafeUninitializedCapacity: rawLength) { output, initialized in
            produced = decompressionContexts.borrow { context in
                ZSTD_decompressDCtx(context, output.baseAddress!, rawLength, source.baseAddress!, source.count)
            }
            initialized = ZSTD_isError(produced) == 0 ? min(produced, rawLength) : 0
        }
        return ZSTD_isError(produced) == 0 && produced == rawLength ? destination : nil
    }

    /// Frees the contexts no thread is using. A compaction compresses and decompresses on
    /// every scan thread, and each context it leaves behind holds its workspace (277 KiB
    /// to compress 16 KiB pages at level 3, 94 KiB to decompress them): kept, they would
    /// outlive the compaction for the life of the process. The next caller makes a
    /// context again.
    static func releaseIdleContexts() {
        compressionContexts.releaseIdle()
        decompressionContexts.releaseIdle()
    }

    private static let compressionContexts = ContextPool(make: { ZSTD_createCCtx() }, free: { _ = ZSTD_freeCCtx($0) })
    private static let decompressionContexts = ContextPool(make: { ZSTD_createDCtx() }, free: { _ = ZSTD_freeDCtx($0) })
}

/// Contexts lent one at a time to whichever thread asks, kept for the next caller until
/// ``releaseIdle()``: as many exist as threads used them at once since.
final class ContextPool: Sendable {
    private let idle = Mutex<[UncheckedSendable<OpaquePointer>]>([])
    private let make: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void

    init(make: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.make = make
        self.free = free
    }

    var idleCount: Int { idle.withLock { $0.count } }

    /// Frees every context not lent out; those lent come back to the pool as usual.
    func releaseIdle() {
        for context in idle.withLock({ idle in defer { idle = [] }; return idle }) { free(context.value) }
    }

    func borrow<Result>(_ body: (OpaquePointer) -> Result) -> Result {
        let lent = idle.withLock { $0.popLast()?.value } ?? make()
        // libzstd fails to make a context only when out of memory, as Swift's own allocations do.
        guard let context = lent else { fatalError("libzstd could not allocate a context") }
        defer { idle.withLock { $0.append(UncheckedSendable(context)) } }
        return body(context)
    }
}
