import CPrefetch

/// What a direct import knows of one entity's keys, by key value: open addressing with
/// linear probing, at most half full.
///
/// A batch probes it once or twice per record and its look-up fills it with every key;
/// as a `Dictionary` of attribute values each probe hashed the value with SipHash, a
/// twentieth of an import's reading thread. Here an integer key (the usual kind) is placed
/// by ``IntegerHash``; other values by their hash value.
///
/// An upsert's table holds a batch's keys (tens of thousands), so probes land in memory
/// out of the cache: integer keys are kept as bare integers, with a byte per slot saying
/// what it holds, and a probe for one reads those two compact arrays only (the perf
/// samples of a probe over optional attribute values, 56 bytes a slot with the answers,
/// were a sixteenth of the upsert's reading thread). The kinds, a byte a slot, stay in
/// the cache, and a probe for an absent key (half an upsert's) reads nothing else: slots
/// of kind and integer together, 16 bytes each, made probes half as costly again. An
/// answer is kept as the object's number alone (8 bytes a slot, not an id's 32): a
/// table's objects are of one entity, whose name it keeps once.
struct ImportKeyTable: Sequence, ExpressibleByDictionaryLiteral {
    /// What each slot holds: ``empty``, an integer key (in `integers`) or another key (in
    /// `others`).
    private var kinds: [UInt8]
    private var integers: [Int64]
    /// Keys other than integers by slot; empty until the first such key.
    private var others: [AttributeValue?] = []
    /// Per slot, the number of the object with the key, ``absentNumber`` when the store
    /// lacks the key, or ``foreignNumber`` for an id in `foreignIDs`.
    private var numbers: [Int64]
    /// The entity of the ids answered, taken from the first.
    private var entityName: Unmanaged<InternedName>?
    /// By slot, ids of another entity than `entityName` (which no import gives a table,
    /// but which it keeps correctly).
    private var foreignIDs: [Int: ObjectID] = [:]
    /// Per slot, where its user keeps the object's state (``subscript(locationAt:)``), or
    /// ``noLocation``: a probe finds the state with the answer, where finding it by id was
    /// a dictionary's probe out of the cache for every record.
    private var locations: [Int32]
    /// 64 minus the bits of the capacity: a home slot is the top bits of the hashed key.
    private var shift: UInt64
    private(set) var count = 0

    private static let empty: UInt8 = 0
    private static let integer: UInt8 = 1
    private static let other: UInt8 = 2
    /// Object numbers start at 1.
    private static let absentNumber: Int64 = 0
    static let noLocation: Int32 = -1
    private static let foreignNumber: Int64 = -1

    init() {
        self.init(capacity: Self.minimumCapacity)
    }

    private init(capacity: Int) {
        kinds = Array(repeating: Self.empty, count: capacity)
        integers = Array(repeating: 0, count: capacity)
        numbers = Array(repeating: Self.absentNumber, count: capacity)
        locations = Array(repeating: Self.noLocation, count: capacity)
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
        var capacity = kinds.count
        while capacity < entries * 2 { capacity *= 2 }
        if capacity > kinds.count { rehash(capacity: capacity) }
    }

    /// What is known of `key`; setting nil takes it out.
    subscript(key: AttributeValue) -> IndexedKey? {
        get {
            guard case (let index, true) = place(of: key) else { return nil }
            return answer(at: index)
        }
        set {
            guard let newValue else {
                removeValue(forKey: key)
                return
            }
            insert(key, newValue)
        }
    }

    /// Sets the answer for `key`, whose location goes back to ``noLocation``; returns its slot.
    @discardableResult
    private mutating func insert(_ key: AttributeValue, _ answer: IndexedKey) -> Int {
        let (index, found) = place(of: key)
        setAnswer(answer, at: index)
        locations[index] = Self.noLocation
        if found { return index }
        store(key, at: index)
        count += 1
        guard count * 2 > kinds.count else { return index }
        rehash(capacity: kinds.count * 2)
        return place(of: key).index
    }

    /// The slot holding `key`, for reading and changing its answer without a second probe.
    func slot(forKey key: AttributeValue) -> Int? {
        guard case (let index, true) = place(of: key) else { return nil }
        return index
    }

    /// ``slot(forKey:)``, the answer and the location there, for a table held in an array:
    /// `mutating` (though it changes nothing) so the table is read in place, where a
    /// non-mutating call on `tables[index]` copied it, retaining its arrays, at every probe.
    mutating func slotAnswerAndLocation(forKey key: AttributeValue) -> (slot: Int, answer: IndexedKey, location: Int32)? {
        slot(forKey: key).map { ($0, answer(at: $0), locations[$0]) }
    }

    /// How many keys ahead of its probes a batch loop prefetches (``prefetch(forKey:)``):
    /// enough for the lines to arrive, few enough that they are still there when probed.
    static let probesAhead = 16

    /// Starts loading the slot an integer `key`'s probe reads first, for a probe a few
    /// records later: a batch's table is out of the cache, and a probe waited for each of
    /// its lines in turn. `mutating` for the reason ``slotAnswerAndLocation(forKey:)`` is.
    mutating func prefetch(forKey key: AttributeValue) {
        guard case .integer(let number) = key else { return }
        let home = home(ofInteger: number)
        kinds.withUnsafeBufferPointer { mr_prefetch($0.baseAddress! + home) }
        integers.withUnsafeBufferPointer { mr_prefetch($0.baseAddress! + home) }
        numbers.withUnsafeBufferPointer { mr_prefetch($0.baseAddress! + home) }
        locations.withUnsafeBufferPointer { mr_prefetch($0.baseAddress! + home) }
    }

    /// Sets what is known of `key` and its location at once.
    mutating func set(_ key: AttributeValue, _ answer: IndexedKey, location: Int32) {
        locations[insert(key, answer)] = location
    }

    /// The location in `slot` (from ``slot(forKey:)``, with no insertion or removal since):
    /// what the table's user put there, ``noLocation`` until then.
    subscript(locationAt slot: Int) -> Int32 {
        get { locations[slot] }
        set { locations[slot] = newValue }
    }

    /// The answer in `slot` (from ``slot(forKey:)``, with no insertion or removal since).
    subscript(slot slot: Int) -> IndexedKey {
        get { answer(at: slot) }
        set {
            setAnswer(newValue, at: slot)
            locations[slot] = Self.noLocation
        }
    }

    private func answer(at slot: Int) -> IndexedKey {
        switch numbers[slot] {
        case Self.absentNumber: .absent
        case Self.foreignNumber: foreignIDs[slot].map(IndexedKey.object) ?? .absent
        case let number: .object(ObjectID(entityName: entityName ?? InternedName.token(for: ""), number: number))
        }
    }

    private mutating func setAnswer(_ answer: IndexedKey, at slot: Int) {
        if numbers[slot] == Self.foreignNumber { foreignIDs[slot] = nil }
        guard case .object(let id) = answer else {
            numbers[slot] = Self.absentNumber
            return
        }
        if entityName == nil { entityName = id.internedName }
        if let entityName, id.isOf(entityName), id.number > 0 {
            numbers[slot] = id.number
        } else {
            numbers[slot] = Self.foreignNumber
            foreignIDs[slot] = id
        }
    }

    /// Takes `key` out; returns what was known of it.
    @discardableResult
    mutating func removeValue(forKey key: AttributeValue) -> IndexedKey? {
        guard case (var hole, true) = place(of: key) else { return nil }
        let removed = answer(at: hole)
        setAnswer(.absent, at: hole)
        locations[hole] = Self.noLocation
        count -= 1
        // Backward shift: an entry after the hole moves into it unless its home lies
        // cyclically in (hole, its place], so every entry stays reachable from its home
        // without tombstones.
        let mask = kinds.count - 1
        var next = (hole + 1) & mask
        while kinds[next] != Self.empty {
            if (next - home(ofSlot: next)) & mask >= (next - hole) & mask {
                move(from: next, to: hole)
                hole = next
            }
            next = (next + 1) & mask
        }
        kinds[hole] = Self.empty
        if !others.isEmpty { others[hole] = nil }
        return removed
    }

    func makeIterator() -> some IteratorProtocol<(key: AttributeValue, value: IndexedKey)> {
        kinds.indices.lazy.compactMap { slot in key(at: slot).map { ($0, answer(at: slot)) } }.makeIterator()
    }

    /// The key in `slot`, nil when it is empty.
    private func key(at slot: Int) -> AttributeValue? {
        switch kinds[slot] {
        case Self.integer: .integer(integers[slot])
        case Self.other: others[slot]
        default: nil
        }
    }

    /// Writes `key` into the empty `slot` (its answer is written apart).
    private mutating func store(_ key: AttributeValue, at slot: Int) {
        if case .integer(let number) = key {
            kinds[slot] = Self.integer
            integers[slot] = number
            return
        }
        if others.isEmpty { others = Array(repeating: nil, count: kinds.count) }
        kinds[slot] = Self.other
        others[slot] = key
    }

    /// Moves the entry in `source` into the empty `target`.
    private mutating func move(from source: Int, to target: Int) {
        kinds[target] = kinds[source]
        integers[target] = integers[source]
        if !others.isEmpty { others[target] = others[source].take() }
        numbers[target] = numbers[source]
        numbers[source] = Self.absentNumber
        locations[target] = locations[source]
        locations[source] = Self.noLocation
        if let id = foreignIDs.removeValue(forKey: source) { foreignIDs[target] = id }
    }

    private mutating func rehash(capacity: Int) {
        var rebuilt = ImportKeyTable(capacity: capacity)
        let mask = capacity - 1
        for slot in kinds.indices {
            guard let key = key(at: slot) else { continue }
            var place = rebuilt.home(of: key)
            while rebuilt.kinds[place] != Self.empty { place = (place + 1) & mask }
            rebuilt.store(key, at: place)
            rebuilt.setAnswer(answer(at: slot), at: place)
            rebuilt.locations[place] = locations[slot]
            rebuilt.count += 1
        }
        self = rebuilt
    }

    /// Where `key` is (`found`), or the empty slot where it would go.
    private func place(of key: AttributeValue) -> (index: Int, found: Bool) {
        let mask = kinds.count - 1
        var index = home(of: key)
        // Integers, the usual keys, compared as integers in the compact arrays.
        if case .integer(let number) = key {
            return kinds.withUnsafeBufferPointer { kinds in
                integers.withUnsafeBufferPointer { integers in
                    while kinds[index] != Self.empty {
                        if kinds[index] == Self.integer && integers[index] == number { return (index, true) }
                        index = (index + 1) & mask
                    }
                    return (index, false)
                }
            }
        }
        while kinds[index] != Self.empty {
            if kinds[index] == Self.other && others[index] == key { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    /// The home slot of the key in `slot`, without making an attribute value of an integer.
    private func home(ofSlot slot: Int) -> Int {
        kinds[slot] == Self.integer ? home(ofInteger: integers[slot]) : home(of: others[slot] ?? .null)
    }

    private func home(of key: AttributeValue) -> Int {
        if case .integer(let number) = key { return home(ofInteger: number) }
        return home(ofHash: UInt64(bitPattern: Int64(key.hashValue)))
    }

    /// An integer key's home: the hash dictionaries give it (``IntegerHash``), seeded per
    /// process, so imported keys cannot be chosen to share a home.
    private func home(ofInteger number: Int64) -> Int {
        home(ofHash: UInt64(bitPattern: Int64(IntegerHash.mixed(number, seed: Self.seed))))
    }

    private static let seed = Int.random(in: .min ... .max)

    /// The slot of a well-mixed hash: its top bits.
    private func home(ofHash hashed: UInt64) -> Int {
        Int(truncatingIfNeeded: hashed >> shift)
    }
}
