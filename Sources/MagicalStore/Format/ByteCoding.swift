/// Little-endian integers and LEB128 varints, the primitives of every on-disk structure
/// (public: the object layer's records use the same ones).
extension Array where Element == UInt8 {
    public mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var littleEndian = value.littleEndian
        Swift.withUnsafeBytes(of: &littleEndian) { append(contentsOf: $0) }
    }

    public mutating func appendVarint(_ value: Int) {
        appendVarint(UInt64(value))
    }

    public mutating func appendVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        append(UInt8(remaining))
    }

    /// Appends `count` zero bytes, copied from a block of zeros: appending repeated zeros
    /// wrote them one at a time, about 4 instructions a byte (a commit makes room so for
    /// every leaf it writes).
    public mutating func appendZeros(_ count: Int) {
        precondition(count >= 0, "a negative count of zeros")
        var remaining = count
        while remaining > 0 {
            let chunk = Swift.min(remaining, zeroBlock.count)
            append(contentsOf: zeroBlock[..<chunk])
            remaining -= chunk
        }
    }

    /// Overwrites `T.bitWidth / 8` bytes at `offset`.
    mutating func storeLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
    }
}

/// What ``Swift/Array/appendZeros(_:)`` copies from.
private let zeroBlock = [UInt8](repeating: 0, count: 4_096)

extension UnsafeMutableRawBufferPointer {
    /// Writes `value` as a varint at `offset`, which has room for it; returns the offset
    /// after it.
    @inlinable
    public func storeVarint(_ value: Int, at offset: Int) -> Int {
        storeVarint(UInt64(value), at: offset)
    }

    /// The same for an unsigned value (a presence mask may use all 64 bits).
    @inlinable
    public func storeVarint(_ value: UInt64, at offset: Int) -> Int {
        var remaining = value
        var offset = offset
        while remaining >= 0x80 {
            self[offset] = UInt8(truncatingIfNeeded: remaining) | 0x80
            remaining >>= 7
            offset += 1
        }
        self[offset] = UInt8(remaining)
        return offset + 1
    }
}

extension UnsafeRawBufferPointer {
    /// Reads a little-endian integer at `offset`; the caller has checked the bounds.
    @inlinable
    public func loadLittleEndian<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

/// Size in bytes of `value` as a varint.
public func varintSize(_ value: Int) -> Int {
    varintSize(UInt64(value))
}

/// Size in bytes of `value` as a varint.
public func varintSize(_ value: UInt64) -> Int {
    var size = 1
    var remaining = value >> 7
    while remaining != 0 {
        size += 1
        remaining >>= 7
    }
    return size
}

/// A bounds-checked reader over untrusted bytes: every read past the end or malformed
/// varint returns nil instead of trapping, so damaged pages become typed errors.
/// Inlinable: the object layer decodes every record it scans with it, and an unspecialised
/// generic read across the module boundary costs a metadata lookup per field.
@frozen
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    public var position: Int

    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    @inlinable
    public mutating func read<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard position >= 0, position <= bytes.count - size else { return nil }
        defer { position += size }
        return bytes.loadLittleEndian(at: position, as: T.self)
    }

    @inlinable
    public mutating func readVarint() -> Int? {
        guard let value = readVarintUInt64(), value <= UInt64(Int.max) else { return nil }
        return Int(value)
    }

    @inlinable
    public mutating func readVarintUInt64() -> UInt64? {
        // Most varints are one byte: small counts, slots and tags' lengths.
        if position >= 0, position < bytes.count, bytes[position] < 0x80 {
            position += 1
            return UInt64(bytes[position - 1])
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count, shift < 64 {
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        return nil
    }

    /// Skips `count` bytes, returning the offset where they start.
    @inlinable
    public mutating func skip(_ count: Int) -> Int? {
        guard count >= 0, position <= bytes.count - count else { return nil }
        defer { position += count }
        return position
    }
}
