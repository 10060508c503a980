import CLZ4

/// LZ4 block compression of page payloads, through the system liblz4 (Spec F11).
enum LZ4 {
    /// How hard LZ4 looks for matches, by who writes the page: higher is faster and
    /// compresses less. A commit's pages are often superseded by the next commit (a large
    /// import rewrites a leaf once per batch), and what settles is rewritten by a compaction,
    /// so commits favour speed: on the 1M benchmark's leaves, acceleration 3 took half of
    /// LZ4's time for 4.9% more bytes, and LZ4 was a twentieth of an import's instructions.
    enum Acceleration {
        static let commit: Int32 = 3
        /// A compaction's pages, and LZ4's own default.
        static let settled: Int32 = 1
    }

    /// Compresses `source` onto the end of `buffer`, returning the compressed length, or
    /// nil (and `buffer` as it was) when that would not save at least 1/16 of it. Written
    /// in place: a page's frame is built with no array of its own for the compressed bytes.
    static func compressIfWorthwhile(_ source: UnsafeRawBufferPointer, acceleration: Int32, appendingTo buffer: inout [UInt8]) -> Int? {
        guard source.count >= 64, source.count <= Int(LZ4_MAX_INPUT_SIZE) else { return nil }
        let worthwhileLimit = source.count - source.count / 16
        let bound = Int(LZ4_compressBound(Int32(source.count)))
        let start = buffer.count
        buffer.appendZeros(bound)
        let written = buffer.withUnsafeMutableBytes { output in
            LZ4_compress_fast(
                source.baseAddress!.assumingMemoryBound(to: CChar.self),
                (output.baseAddress! + start).assumingMemoryBound(to: CChar.self),
                Int32(source.count),
                Int32(bound),
                acceleration
            )
        }
        guard written > 0, Int(written) <= worthwhileLimit else {
            buffer.removeLast(bound)
            return nil
        }
        buffer.removeLast(bound - Int(written))
        return Int(written)
    }

    /// Decompresses `source` into exactly `rawLength` bytes, or returns nil when the input
    /// is malformed or decompresses to any other length. Never reads or writes out of bounds.
    static func decompress(_ source: UnsafeRawBufferPointer, rawLength: Int) -> [UInt8]? {
        guard rawLength > 0, source.count > 0, source.count <= Int(Int32.max) else { return nil }
        // Into new storage as it is: zeroing it first was a quarter of decompressing a page.
        var produced: Int32 = -1
        let destination = [UInt8](unsafeUninitializedCapacity: rawLength) { output, initialized in
            produced = LZ4_decompress_safe(
                source.baseAddress!.assumingMemoryBound(to: CChar.self),
                UnsafeMutableRawPointer(output.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(source.count),
                Int32(rawLength)
            )
            initialized = max(Int(produced), 0)
        }
        return produced == Int32(rawLength) ? destination : nil
    }
}
