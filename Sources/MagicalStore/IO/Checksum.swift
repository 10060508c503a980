import CCRC32C

/// CRC32C (Castagnoli), the checksum of every header slot and frame (Spec section 3).
enum CRC32C {
    /// Extends `crc` over `bytes`; start from 0. Pieces fed in order give the checksum of
    /// their concatenation.
    static func extend(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return mr_crc32c_extend(crc, base, bytes.count)
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        extend(0, bytes)
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { extend(0, $0) }
    }
}
