/// What a direct import knows of one entity's keys, by key value: open addressing with
/// linear probing, at most half full.
///
/// A batch probes it once or twice per record and its look-up fills it with every key;
/// as a `Dictionary` of attribute values each probe hashed the value with SipHash, a
/// twentieth of an import's reading thread. Here an integer key (the usual kind) is placed
/// by one multiplication; other values by their hash value.
struct ImportKeyTable: Sequence, ExpressibleByDictionaryLiteral {
    /// Keys by slot (nil: empty), apart from the answers so that a probe reads keys only.
    private var keys: [AttributeValue?]
    private var values: [IndexedKey]
    /// 64 minus the bits of the capacity: a home slot is the top bits of the hashed key.
    private var shift: UInt64
    private(set) var count = 0

    init() {
        self.init(capacity: Self.minimumCapacity)
    }

    private init(capacity: Int) {
        keys = Array(repeating: nil, count: capacity)
        values = Array(repeating: .absent, count: capacity)
        shift = UInt64(UInt64.bitWidth - capacity.trailingZeroBitCount)
    }

    init(dictionaryLiteral elements: (AttributeValue, IndexedKey)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }

    private static var minimumCapacity: Int { 16 }

    var isEmpty: Bool { count == 0 }

    /// Makes room for `entries` in all without growing again.
    mutating func reserveCapacity(_ entries: Int) {
        var capacity = keys.count
        while capacity < entries * 2 { capacity *= 2 }
        if capacity > keys.count { rehash(capacity: capacity) }
    }

    /// What is known of `key`; setting nil takes it out.
    subscript(key: AttributeValue) -> IndexedKey? {
        get {
            guard case (let index, true) = place(of: key) else { return nil }
            return values[index]
        }
        set {
            guard let newValue else {
                removeValue(forKey: key)
                return
            }
            let (index, found) = place(of: key)
            values[index] = newValue
            if found { return }
            keys[index] = key
            count += 1
            if count * 2 > keys.count { rehash(capacity: keys.count * 2) }
        }
    }

    /// The slot holding `key`, for reading and changing its answer without a second probe.
    func slot(forKey key: AttributeValue) -> Int? {
        guard case (let index, true) = place(of: key) else { return nil }
        return index
    }

    /// The answer in `slot` (from ``slot(forKey:)``, with no insertion or removal since).
    subscript(slot slot: Int) -> IndexedKey {
        get { values[slot] }
        set { values[slot] = newValue }
    }

    /// Takes `key` out; returns what was known of it.
    @discardableResult
    mutating func removeValue(forKey key: AttributeValue) -> IndexedKey? {
        guard case (var hole, true) = place(of: key) else { return nil }
        let removed = values[hole]
        keys[hole] = nil
        count -= 1
        // Backward shift: an entry after the hole moves into it unless its home lies
        // cyclically in (hole, its place], so every entry stays reachable from its home
        // without tombstones.
        let mask = keys.count - 1
        var next = (hole + 1) & mask
        while let entry = keys[next] {
            let home = self.home(of: entry)
            if (next - home) & mask >= (next - hole) & mask {
                keys[hole] = keys[next].take()
                values[hole] = values[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        values[hole] = .absent
        return removed
    }

    func makeIterator() -> some IteratorProtocol<(key: AttributeValue, value: IndexedKey)> {
        zip(keys, values).lazy.compactMap { key, value in key.map { ($0, value) } }.makeIterator()
    }

    private mutating func rehash(capacity: Int) {
        var rebuilt = ImportKeyTable(capacity: capacity)
        let mask = capacity - 1
        for index in keys.indices {
            guard let key = keys[index].take() else { continue }
            var place = rebuilt.home(of: key)
            while rebuilt.keys[place] != nil { place = (place + 1) & mask }
            rebuilt.keys[place] = key
            rebuilt.values[place] = values[index]
            rebuilt.count += 1
        }
        self = rebuilt
    }

    /// Where `key` is (`found`), or the empty slot where it would go.
    private func place(of key: AttributeValue) -> (index: Int, found: Bool) {
        let mask = keys.count - 1
        var index = home(of: key)
        // Integers, the usual keys, compared as integers, without the general equality.
        if case .integer(let number) = key {
            while let entry = keys[index] {
                if case .integer(number) = entry { return (index, true) }
                index = (index + 1) & mask
            }
            return (index, false)
        }
        while let entry = keys[index] {
            if entry == key { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    private func home(of key: AttributeValue) -> Int {
        let hashed: UInt64
        if case .integer(let number) = key {
            hashed = UInt64(bitPattern: number)
        } else {
            hashed = UInt64(bitPattern: Int64(key.hashValue))
        }
        // Fibonacci hashing: keys are often consecutive, and the multiplication spreads
        // them over the top bits.
        return Int(truncatingIfNeeded: (hashed &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }
}
