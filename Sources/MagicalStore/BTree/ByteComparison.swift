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
        ascending(count: count, prefix: { key($0).withUnsafeBytes { keyPrefix($0) } }, compare: { compareBytes(key($0), key($1)) })
    }

    /// The same for keys in borrowed bytes (an ``EntryBatch``'s).
    static func ascending(count: Int, key: (Int) -> UnsafeRawBufferPointer) -> [Int] {
        ascending(count: count, prefix: { keyPrefix(key($0)) }, compare: { compareBytes(key($0), key($1)) })
    }

    /// `prefix(index)` is the key's first 8 bytes (``keyPrefix(_:)``); `compare` orders
    /// two keys by index in full.
    private static func ascending(count: Int, prefix: (Int) -> UInt64, compare: (Int, Int) -> Int) -> [Int] {
        var sorted = (0..<count).map { index in Prefixed(prefix: prefix(index), index: index) }
        if count < radixSortMinimum {
            sorted.sort { left, right in ordered(left, right, compare) }
        } else {
            // A stable radix sort by prefix keeps equal prefixes in index order; runs of
            // equal prefixes are then put in key order. A commit sorts every batch it puts
            // (tens of thousands of keys), and comparison sorting was a twelfth of it.
            radixSortByPrefix(&sorted)
            var start = 0
            while start < sorted.count {
                var end = start + 1
                while end < sorted.count && sorted[end].prefix == sorted[start].prefix { end += 1 }
                if end - start > 1 { sorted[start..<end].sort { left, right in ordered(left, right, compare) } }
                start = end
            }
        }
        return sorted.map(\.index)
    }

    /// The indices of `numbers` in ascending order, equal numbers by index: the radix sort
    /// of keys, on the numbers themselves (an import's integer keys, which encode in
    /// numeric order).
    public static func ascending(_ numbers: [Int64]) -> [Int] {
        // With the sign bit flipped, unsigned order is signed order.
        var sorted = numbers.indices.map { Prefixed(prefix: UInt64(bitPattern: numbers[$0]) ^ (1 << 63), index: $0) }
        if sorted.count < radixSortMinimum {
            sorted.sort { ($0.prefix, $0.index) < ($1.prefix, $1.index) }
        } else {
            radixSortByPrefix(&sorted)
        }
        return sorted.map(\.index)
    }

    /// Below this many keys a comparison sort is quicker than radix passes.
    static let radixSortMinimum = 128

    private struct Prefixed {
        let prefix: UInt64
        let index: Int
    }

    private static func ordered(_ left: Prefixed, _ right: Prefixed, _ compare: (Int, Int) -> Int) -> Bool {
        if left.prefix != right.prefix { return left.prefix < right.prefix }
        let order = compare(left.index, right.index)
        return order != 0 ? order < 0 : left.index < right.index
    }

    /// Least significant byte first, skipping bytes every prefix shares (keys of one tree
    /// often share their first bytes): stable.
    private static func radixSortByPrefix(_ items: inout [Prefixed]) {
        var common = UInt64.max
        var any: UInt64 = 0
        for item in items {
            common &= item.prefix
            any |= item.prefix
        }
        let varying = common ^ any
        var scratch = items
        var counts = [Int](repeating: 0, count: 256)
        for byte in 0..<8 {
            let shift = UInt64(8 * byte)
            guard (varying >> shift) & 0xFF != 0 else { continue }
            items.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { target in
                    counts.withUnsafeMutableBufferPointer { counts in
                        for index in counts.indices { counts[index] = 0 }
                        for item in source { counts[Int(truncatingIfNeeded: item.prefix >> shift) & 0xFF] += 1 }
                        var start = 0
                        for index in counts.indices {
                            let count = counts[index]
                            counts[index] = start
                            start += count
                        }
                        for item in source {
                            let digit = Int(truncatingIfNeeded: item.prefix >> shift) & 0xFF
                            target[counts[digit]] = item
                            counts[digit] += 1
                        }
                    }
                }
            }
            swap(&items, &scratch)
        }
    }
}
