/// Group numbers by integer key, for grouped aggregates: open addressing with a
/// multiplicative hash, several times cheaper per row than a `Dictionary` keyed by an
/// attribute value (which hashes with SipHash).
struct IntegerGroupTable {
    private var keys: [Int64]
    /// The group number of each slot; -1 when the slot is free.
    private var groups: [Int]
    private var shift: UInt64
    private(set) var count = 0

    init() {
        keys = Array(repeating: 0, count: 16)
        groups = Array(repeating: -1, count: 16)
        shift = 64 - 4
    }

    /// The group of `key`; a new key gets the next group number (`count` before the call).
    mutating func group(of key: Int64) -> Int {
        var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while groups[slot] >= 0 {
            if keys[slot] == key { return groups[slot] }
            slot = (slot + 1) & (keys.count - 1)
        }
        keys[slot] = key
        groups[slot] = count
        count += 1
        if count * 2 > keys.count { grow() }
        return count - 1
    }

    /// Every key with its group.
    var entries: [(key: Int64, group: Int)] {
        keys.indices.compactMap { groups[$0] >= 0 ? (keys[$0], groups[$0]) : nil }
    }

    private mutating func grow() {
        let old = entries
        keys = Array(repeating: 0, count: keys.count * 2)
        groups = Array(repeating: -1, count: keys.count)
        shift -= 1
        for (key, group) in old {
            var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while groups[slot] >= 0 { slot = (slot + 1) & (keys.count - 1) }
            keys[slot] = key
            groups[slot] = group
        }
    }
}
