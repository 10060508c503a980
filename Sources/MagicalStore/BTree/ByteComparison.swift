#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unsigned lexicographic order of byte strings (Spec section 4): `memcmp` over the common
/// prefix, then the shorter string first. Returns <0, 0 or >0.
@inline(__always)
func compareBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
    let common = min(left.count, right.count)
    if common > 0 {
        let result = memcmp(left.baseAddress!, right.baseAddress!, common)
        if result != 0 { return Int(result) }
    }
    return left.count - right.count
}

@inline(__always)
func compareBytes(_ left: [UInt8], _ right: [UInt8]) -> Int {
    left.withUnsafeBytes { l in right.withUnsafeBytes { r in compareBytes(l, r) } }
}

/// A stored key (its ``keyPrefix(_:)`` kept beside it, its bytes at `keyStart` in `bytes`)
/// against `key`, whose prefix is `prefix`: the prefixes decide unless they are equal, and
/// then, when both keys fit in 8 bytes, their lengths do (the prefixes hold every byte,
/// zero-padded), so the stored bytes are not read.
@inline(__always)
func compareStoredKey(
    prefix storedPrefix: UInt64, start keyStart: Int, length keyLength: Int, in bytes: UnsafeRawBufferPointer,
    with key: UnsafeRawBufferPointer, prefix: UInt64
) -> Int {
    if storedPrefix != prefix { return storedPrefix < prefix ? -1 : 1 }
    if keyLength <= 8 && key.count <= 8 { return keyLength - key.count }
    return compareBytes(UnsafeRawBufferPointer(rebasing: bytes[keyStart..<keyStart + keyLength]), key)
}

/// The first 8 bytes of `key` as a big-endian integer, zero-padded. Ordering is monotone:
/// a < b implies prefix(a) <= prefix(b), so unequal prefixes decide a comparison.
@inline(__always)
func keyPrefix(_ key: UnsafeRawBufferPointer) -> UInt64 {
    if key.count >= 8 {
        return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }
    var prefix: UInt64 = 0
    for index in 0..<key.count {
        prefix |= UInt64(key[index]) << (56 - 8 * UInt64(index))
    }
    return prefix
}

/// The order of a batch of keys, for callers that sort one before walking a tree with it.
public enum KeyOrder {
    /// The indices `0..<count` in ascending byte order of `key(index)` (Spec section 4),
    /// equal keys by index. Sorted by each key's first 8 bytes, which order most pairs
    /// without reading the keys (comparing two arrays retained both, a cache miss each);
    /// the whole keys only on ties.
    public static func ascending(count: Int, key: (Int) -> [UInt8]) -> [Int] {
        var sorted = (0..<count).map { index in (prefix: key(index).withUnsafeBytes { keyPrefix($0) }, index: index) }
        sorted.sort { left, right in
            if left.prefix != right.prefix { return left.prefix < right.prefix }
            let order = compareBytes(key(left.index), key(right.index))
            return order != 0 ? order < 0 : left.index < right.index
        }
        return sorted.map(\.index)
    }
}
