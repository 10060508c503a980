import Glibc

/// A changed leaf's entries, kept as the bytes a page stores them in (F15) in one buffer
/// with a small table in key order.
///
/// Copying a page takes its payload as it is (the buffer is shared until changed) and
/// writing one copies each entry's bytes once: no array per key and per value, which
/// made copying, freeing and encoding leaves the larger part of a batch's work.
struct LeafEntries {
    /// Where one entry lies in `bytes`.
    private struct Entry {
        /// The key's first 8 bytes, big-endian (``keyPrefix(_:)``): most comparisons end here.
        var keyPrefix: UInt64
        /// The entry's first byte (its key-length varint).
        var start: UInt32
        var keyStart: UInt32
        /// Past the entry's last byte.
        var end: UInt32
        var keyLength: UInt16
        var kind: UInt8
        /// Whether the entry was added or changed since `deltaBase` (its bytes go in the delta).
        var isChanged = false
    }

    /// Value kinds as F15 writes them, and one that never reaches a page: a large value not
    /// yet written (`varint length` and its bytes), which becomes an overflow reference.
    private static let inlineKind: UInt8 = 0
    private static let overflowKind: UInt8 = 1
    private static let pendingKind: UInt8 = 2

    /// Entry bytes; those no entry points at any more are counted in `unusedBytes`.
    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    private var unusedBytes = 0
    /// The payload these entries encode to: header, slots and entries (F15).
    private(set) var encodedSize = 2
    /// The full leaf these entries were copied from, or its base when that was a delta
    /// (section 4.3). Nil for new entries.
    private(set) var deltaBase: LeafBase?
    /// Whether these entries were split or merged since `deltaBase`, or changed too much
    /// to track: they are written in full (F29).
    private(set) var isRebuilt = false
    /// Keys removed since `deltaBase`, each as `varint length` and its bytes, in no order.
    private var removedKeys: [UInt8] = []
    /// Whether these entries are the right half of a leaf split in the middle: new, but
    /// among keys the tree's users read, like the copies (a split at the end, as loads in
    /// key order make, leaves a new last leaf that nobody reads soon).
    private(set) var isSplitFromMiddle = false

    /// Whether a written page of these entries is worth caching: a copy of a leaf, or the
    /// right half of one split in the middle. A batch of scattered keys reads most leaves
    /// of a tree again in the next batch: an import's key index splits many of its leaves
    /// in each, and their new halves, not cached, were read back from the file.
    var isReadAgainSoon: Bool { deltaBase != nil || isSplitFromMiddle }

    init() {}

    /// The entries of a committed leaf, sharing its payload until the first change.
    init(page: PageNode) {
        precondition(page.isLeaf)
        deltaBase = page.delta?.base ?? LeafBase(offset: page.offset, frameSize: page.frameSize)
        removedKeys = page.delta?.removedKeys ?? []
        bytes = page.payload
        // Written in place, with room for a few insertions: appending checked the capacity
        // and the array's uniqueness for every entry, of every leaf a batch changes.
        let count = page.entries.count
        entries = [Entry](unsafeUninitializedCapacity: count + 8) { table, initialized in
            page.payload.withUnsafeBytes { payload in
                page.entries.withUnsafeBufferPointer { locations in
                    for index in 0..<count {
                        let location = locations[index]
                        table.initializeElement(at: index, to: Entry(
                            keyPrefix: location.keyPrefix, start: UInt32(PageNode.entryStart(at: index, in: payload)),
                            keyStart: UInt32(location.keyStart), end: UInt32(Int(location.valueStart) + Int(location.valueLength)),
                            keyLength: location.keyLength, kind: location.isOverflow ? Self.overflowKind : Self.inlineKind
                        ))
                    }
                }
            }
            initialized = count
        }
        for index in page.delta?.changedEntries ?? [] { entries[Int(index)].isChanged = true }
        encodedSize = page.payload.count
        unusedBytes = 2 + 2 * entries.count
    }

    var count: Int { entries.count }

    /// Bytes an entry takes in a page, with its slot.
    static func pageBytes(key: [UInt8], value: LeafValue) -> Int {
        2 + varintSize(key.count) + key.count + 1 + value.encodedSize
    }

    /// Bytes entry `index` takes in a page, with its slot.
    func pageBytes(at index: Int) -> Int {
        let entry = entries[index]
        if entry.kind == Self.pendingKind { return 2 + Int(entry.keyStart + UInt32(entry.keyLength) - entry.start) + 1 + 16 }
        return 2 + Int(entry.end - entry.start)
    }

    // MARK: Reading

    /// The first index whose key is >= `key`, and whether it is equal.
    func search(_ key: [UInt8]) -> (index: Int, found: Bool) {
        key.withUnsafeBytes { search($0) }
    }

    /// ``search(_:)`` for a key in borrowed bytes.
    func search(_ key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
        let prefix = keyPrefix(key)
        return bytes.withUnsafeBytes { bytes in
            entries.withUnsafeBufferPointer { entries in
                var low = 0
                var high = entries.count
                while low < high {
                    let middle = (low + high) / 2
                    if Self.compare(entries[middle], bytes, key, prefix) < 0 { low = middle + 1 } else { high = middle }
                }
                return (low, low < entries.count && Self.compare(entries[low], bytes, key, prefix) == 0)
            }
        }
    }

    /// ``search(_:)`` from `from` (every key before it must be smaller), for the next key of
    /// an ascending run, which mostly lies a few entries past the previous one: steps of 1,
    /// 2, 4... from `from` bound it, and the search continues within the last step (a run of
    /// hundreds into one leaf searched the whole rest of it for each key).
    private static func searchOnward(
        _ key: UnsafeRawBufferPointer, from: Int, in entries: UnsafeBufferPointer<Entry>, _ bytes: UnsafeRawBufferPointer
    ) -> (index: Int, found: Bool) {
        let prefix = keyPrefix(key)
        var low = from
        var step = 1
        var high = from
        while high < entries.count, compare(entries[high], bytes, key, prefix) < 0 {
            low = high + 1
            high = low + step
            step *= 2
        }
        high = min(high, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if compare(entries[middle], bytes, key, prefix) < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, low < entries.count && compare(entries[low], bytes, key, prefix) == 0)
    }

    @inline(__always)
    private static func compare(_ entry: Entry, _ bytes: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer, _ prefix: UInt64) -> Int {
        compareStoredKey(prefix: entry.keyPrefix, start: Int(entry.keyStart), length: Int(entry.keyLength), in: bytes, with: key, prefix: prefix)
    }

    func key(at index: Int) -> [UInt8] {
        let entry = entries[index]
        return Array(bytes[Int(entry.keyStart)..<Int(entry.keyStart) + Int(entry.keyLength)])
    }

    func value(at index: Int) -> LeafValue {
        let entry = entries[index]
        let valueStart = Int(entry.keyStart) + Int(entry.keyLength) + 1
        return bytes.withUnsafeBytes { raw in
            switch entry.kind {
            case Self.overflowKind:
                return .overflow(OverflowReference(
                    offset: raw.loadLittleEndian(at: valueStart, as: UInt64.self),
                    frameSize: raw.loadLittleEndian(at: valueStart + 8, as: UInt32.self),
                    length: raw.loadLittleEndian(at: valueStart + 12, as: UInt32.self)
                ))
            case Self.pendingKind:
                return .pendingOverflow(Array(Self.lengthPrefixed(raw, at: valueStart)))
            default:
                return .inline(Array(Self.lengthPrefixed(raw, at: valueStart)))
            }
        }
    }

    /// The overflow frame entry `index` refers to, if its value is in one.
    func overflowReference(at index: Int) -> OverflowReference? {
        guard entries[index].kind == Self.overflowKind, case .overflow(let reference) = value(at: index) else { return nil }
        return reference
    }

    /// Whether entry `index` holds a large value not yet written.
    func isPendingOverflow(at index: Int) -> Bool {
        entries[index].kind == Self.pendingKind
    }

    /// Calls `body` with entry `index`'s key and inline value as bytes borrowed from the
    /// buffer (valid only during the call); another kind of value comes from `overflow`.
    func withEntry<T>(
        at index: Int, overflow: (LeafValue) throws -> [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        let entry = entries[index]
        let separate = entry.kind == Self.inlineKind ? nil : try overflow(value(at: index))
        return try bytes.withUnsafeBytes { raw in
            let keyStart = Int(entry.keyStart)
            let key = UnsafeRawBufferPointer(rebasing: raw[keyStart..<keyStart + Int(entry.keyLength)])
            guard let separate else { return try body(key, Self.lengthPrefixed(raw, at: keyStart + Int(entry.keyLength) + 1)) }
            return try separate.withUnsafeBytes { try body(key, $0) }
        }
    }

    /// The bytes after a varint length at `offset`.
    private static func lengthPrefixed(_ raw: UnsafeRawBufferPointer, at offset: Int) -> UnsafeRawBufferPointer {
        var reader = ByteReader(raw, at: offset)
        let length = reader.readVarint() ?? 0
        return UnsafeRawBufferPointer(rebasing: raw[reader.position..<reader.position + length])
    }

    // MARK: Changing

    /// Inserts an entry at `index`, which must keep the keys ascending.
    mutating func insert(_ key: [UInt8], _ value: LeafValue, at index: Int) {
        entries.insert(appendBytes(key: key, value: value), at: index)
        encodedSize += Self.pageBytes(key: key, value: value)
    }

    /// Bytes an entry with an inline value takes in a page, with its slot.
    static func pageBytes(keyCount: Int, inlineValueCount valueCount: Int) -> Int {
        2 + varintSize(keyCount) + keyCount + 1 + varintSize(valueCount) + valueCount
    }

    /// Appends an entry with an inline value from borrowed bytes (a compaction copies
    /// millions without making arrays of them).
    mutating func appendInline(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        entries.append(appendInlineBytes(key: key, value: value))
        encodedSize += Self.pageBytes(keyCount: key.count, inlineValueCount: value.count)
    }

    /// Adds an entry after the last one (bulk loading).
    mutating func append(_ key: [UInt8], _ value: LeafValue) {
        entries.append(appendBytes(key: key, value: value))
        encodedSize += Self.pageBytes(key: key, value: value)
    }

    mutating func replaceValue(at index: Int, with value: LeafValue) {
        replaceValue(at: index) { $0.appendValue(value) }
    }

    /// Rewrites entry `index` at the end of the buffer with the value `appendValue` appends
    /// (returning its kind).
    private mutating func replaceValue(at index: Int, appending appendValue: (inout LeafEntries) -> UInt8) {
        let old = entries[index]
        encodedSize -= pageBytes(at: index)
        let keyLength = Int(old.keyLength)
        let start = bytes.count
        // The key is copied within the buffer: appending a slice of it would copy it whole.
        bytes.appendVarint(keyLength)
        let keyStart = bytes.count
        bytes.appendZeros(keyLength)
        bytes.withUnsafeMutableBytes { raw in
            _ = memmove(raw.baseAddress! + keyStart, raw.baseAddress! + Int(old.keyStart), keyLength)
        }
        let kind = appendValue(&self)
        entries[index] = Entry(
            keyPrefix: old.keyPrefix, start: UInt32(start), keyStart: UInt32(keyStart), end: UInt32(bytes.count),
            keyLength: old.keyLength, kind: kind, isChanged: true
        )
        encodedSize += pageBytes(at: index)
        discard(old)
    }

    /// What ``putInline(capacity:_:)`` did.
    struct PutRun {
        /// How many of the run's entries went in: a prefix of it.
        var taken = 0
        /// How many of those were new keys (the others replaced a value).
        var inserted = 0
        /// Overflow frame bytes of the values replaced.
        var freedOverflowBytes: UInt64 = 0
    }

    /// Puts a run of entries with inline values in one pass: `entry(i)` gives the i-th key
    /// and value (ascending distinct keys, borrowed for the call), nil past the run's end.
    /// A key there gets the new value, the others are inserted, while the entries stay
    /// within `capacity` bytes.
    ///
    /// A batch puts hundreds of keys into one leaf; inserting each on its own shifted the
    /// table behind it, a leaf's table moved once per key.
    mutating func putInline(
        capacity: Int, _ entry: (Int) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
    ) -> PutRun {
        // Where each entry that fits goes, found before anything changes.
        // A batch's run into one leaf is a hundred entries or more: room for most at once.
        var places: [Place] = []
        places.reserveCapacity(256)
        var size = encodedSize
        var appended = 0
        bytes.withUnsafeBytes { bytes in
            entries.withUnsafeBufferPointer { table in
                var from = 0
                while let (key, value) = entry(places.count) {
                    let place = Self.searchOnward(key, from: from, in: table, bytes)
                    let added = Self.pageBytes(keyCount: key.count, inlineValueCount: value.count)
                    let replaced = place.found ? pageBytes(at: place.index) : 0
                    guard size - replaced + added <= capacity else { return }
                    size += added - replaced
                    appended += added - 2
                    places.append(Place(index: place.index, found: place.found, key: key, value: value))
                    from = place.found ? place.index + 1 : place.index
                }
            }
        }
        var result = PutRun(taken: places.count)
        // Every entry's bytes go at the end of the buffer (a replaced key is the batch's
        // key), then the table takes them: a replacement in its entry's place, insertions
        // merged in. Compacting waits until the table is whole.
        let written = appendInlineEntries(places, bytes: appended)
        for (place, new) in zip(places, written) where place.found {
            if let reference = overflowReference(at: place.index) { result.freedOverflowBytes += UInt64(reference.frameSize) }
            let old = entries[place.index]
            encodedSize -= pageBytes(at: place.index)
            unusedBytes += Int(old.end - old.start)
            entries[place.index] = new
        }
        result.inserted = mergeIntoTable(places, written)
        compactIfWasteful()
        return result
    }

    /// Where ``putInline(capacity:_:)`` puts one entry of its run: the table index it goes
    /// at (`found`: the one whose value it replaces), and its bytes, borrowed.
    private struct Place {
        var index: Int
        var found: Bool
        var key: UnsafeRawBufferPointer
        var value: UnsafeRawBufferPointer
    }

    /// Appends the bytes of `places`' entries (`count` bytes in all, without slots) to the
    /// buffer in one piece, written in place; returns their table entries, in order. Read
    /// from the places' array itself: through a lazy map of it, each entry's sizes and
    /// bytes took a generic iteration twice.
    private mutating func appendInlineEntries(_ places: [Place], bytes count: Int) -> [Entry] {
        var offset = bytes.count
        bytes.appendZeros(count)
        let written = bytes.withUnsafeMutableBytes { out in
            [Entry](unsafeUninitializedCapacity: places.count) { table, initialized in
                for place in places {
                    let key = place.key, value = place.value
                    let start = offset
                    offset = out.storeVarint(key.count, at: offset)
                    let keyStart = offset
                    Self.copy(key, to: out, at: offset)
                    offset += key.count
                    out[offset] = Self.inlineKind
                    offset = out.storeVarint(value.count, at: offset + 1)
                    Self.copy(value, to: out, at: offset)
                    offset += value.count
                    table.initializeElement(at: initialized, to: Entry(
                        keyPrefix: keyPrefix(key), start: UInt32(start), keyStart: UInt32(keyStart),
                        end: UInt32(offset), keyLength: UInt16(key.count), kind: Self.inlineKind, isChanged: true
                    ))
                    initialized += 1
                }
            }
        }
        encodedSize += count + 2 * written.count
        return written
    }

    /// Copies `source` into `out` at `offset`, which the caller has made room for: straight
    /// to `memmove`, without the bounds checks of a rebased buffer's copy.
    @inline(__always)
    private static func copy(_ source: UnsafeRawBufferPointer, to out: UnsafeMutableRawBufferPointer, at offset: Int) {
        guard let from = source.baseAddress, !source.isEmpty else { return }
        precondition(offset >= 0 && source.count <= out.count - offset, "room is made before entries are copied")
        out.baseAddress!.advanced(by: offset).copyMemory(from: from, byteCount: source.count)
    }

    /// Puts the entries `written` for places not `found` (ascending places in the table as
    /// it is; several may share one, in order) into the table, moving each stretch of it
    /// once, from the back; returns how many went in.
    private mutating func mergeIntoTable(_ places: [Place], _ written: [Entry]) -> Int {
        var count = 0
        for place in places where !place.found { count += 1 }
        guard count > 0 else { return 0 }
        let oldCount = entries.count
        entries.append(contentsOf: repeatElement(written[0], count: count))
        entries.withUnsafeMutableBufferPointer { table in
            let base = table.baseAddress!
            var end = oldCount
            var write = table.count
            for position in places.indices.reversed() where !places[position].found {
                let index = places[position].index
                let moving = end - index
                write -= moving
                (base + write).update(from: base + index, count: moving)
                write -= 1
                base[write] = written[position]
                end = index
            }
        }
        return count
    }

    mutating func remove(at index: Int) {
        noteRemoval(of: entries[index])
        encodedSize -= pageBytes(at: index)
        discard(entries.remove(at: index))
    }

    /// What ``removeRun(floor:_:)`` did.
    struct RemovedRun {
        /// How many of the run's keys were dealt with: a prefix of it.
        var taken = 0
        /// How many of those were there and are gone (the others were absent).
        var removed = 0
        /// Overflow frame bytes of the values removed.
        var freedOverflowBytes: UInt64 = 0
    }

    /// Removes a run of keys in one pass: `key(i)` gives the i-th (ascending, borrowed for
    /// the call; a key repeated is absent the second time), nil past the run's end. Stops
    /// before a removal that would leave the entries under `floor` bytes.
    ///
    /// A batch removes hundreds of keys from one leaf; removing each on its own shifted the
    /// table behind it.
    mutating func removeRun(floor: Int, _ key: (Int) -> UnsafeRawBufferPointer?) -> RemovedRun {
        var result = RemovedRun()
        var removing: [Int] = []
        var size = encodedSize
        bytes.withUnsafeBytes { bytes in
            entries.withUnsafeBufferPointer { table in
                var from = 0
                while let key = key(result.taken) {
                    let place = Self.searchOnward(key, from: from, in: table, bytes)
                    if place.found {
                        let entryBytes = pageBytes(at: place.index)
                        guard size - entryBytes >= floor else { return }
                        size -= entryBytes
                        removing.append(place.index)
                        from = place.index + 1
                    } else {
                        from = place.index
                    }
                    result.taken += 1
                }
            }
        }
        guard !removing.isEmpty else { return result }
        result.removed = removing.count
        for index in removing {
            if let reference = overflowReference(at: index) { result.freedOverflowBytes += UInt64(reference.frameSize) }
            noteRemoval(of: entries[index])
            unusedBytes += Int(entries[index].end - entries[index].start)
        }
        encodedSize = size
        removeFromTable(removing)
        compactIfWasteful()
        return result
    }

    /// Takes the entries at `indices` (ascending) out of the table, moving each stretch
    /// between them once.
    private mutating func removeFromTable(_ indices: [Int]) {
        entries.withUnsafeMutableBufferPointer { table in
            let base = table.baseAddress!
            var write = indices[0]
            for (position, index) in indices.enumerated() {
                let next = position + 1 < indices.count ? indices[position + 1] : table.count
                let keeping = next - index - 1
                (base + write).update(from: base + index + 1, count: keeping)
                write += keeping
            }
        }
        entries.removeLast(indices.count)
    }

    /// Moves the entries from `index` on into a new set, which it returns.
    mutating func split(at index: Int) -> LeafEntries {
        markRebuilt()
        var right = LeafEntries()
        right.isSplitFromMiddle = index < entries.count - 1
        right.appendEntries(of: self, in: index..<entries.count)
        for entry in entries[index...] { unusedBytes += Int(entry.end - entry.start) }
        entries.removeSubrange(index...)
        encodedSize -= right.encodedSize - 2
        compactIfWasteful()
        return right
    }

    /// Appends `other`'s entries, whose keys must all follow this set's.
    mutating func absorb(_ other: LeafEntries) {
        markRebuilt()
        appendEntries(of: other, in: 0..<other.entries.count)
    }

    // MARK: Delta tracking

    /// Keeps a removed entry's key for the delta; past a page of them the delta would be
    /// too large anyway, and the entries are written in full.
    private mutating func noteRemoval(of entry: Entry) {
        guard deltaBase != nil, !isRebuilt else { return }
        guard removedKeys.count < 4096 else { return markRebuilt() }
        removedKeys.appendVarint(Int(entry.keyLength))
        removedKeys.append(contentsOf: bytes[Int(entry.keyStart)..<Int(entry.keyStart) + Int(entry.keyLength)])
    }

    private mutating func markRebuilt() {
        isRebuilt = true
        removedKeys = []
    }

    /// Appends the inline entries `range` of a committed leaf after the last one, their
    /// bytes copied as the page holds them (`bytes`: theirs with their slots, as
    /// ``PageNode/inlineRun(from:to:room:inlineLimit:takesFirst:)`` counts them): a
    /// compaction refills leaves from runs of entries, not one entry at a time.
    mutating func appendEntries(ofPage page: PageNode, in range: Range<Int>, bytes pageBytes: Int) {
        var offset = bytes.count
        bytes.appendZeros(pageBytes - 2 * range.count)
        entries.reserveCapacity(entries.count + range.count)
        page.payload.withUnsafeBytes { source in
            page.entries.withUnsafeBufferPointer { locations in
                bytes.withUnsafeMutableBytes { target in
                    for index in range {
                        let location = locations[index]
                        precondition(!location.isOverflow, "only inline entries are copied in runs")
                        let start = Int(source.loadLittleEndian(at: 2 + 2 * index, as: UInt16.self))
                        let end = Int(location.valueStart) + Int(location.valueLength)
                        (target.baseAddress! + offset).copyMemory(from: source.baseAddress! + start, byteCount: end - start)
                        let shift = offset - start
                        entries.append(Entry(
                            keyPrefix: location.keyPrefix, start: UInt32(offset), keyStart: UInt32(Int(location.keyStart) + shift),
                            end: UInt32(end + shift), keyLength: location.keyLength, kind: Self.inlineKind, isChanged: true
                        ))
                        offset += end - start
                    }
                }
            }
        }
        precondition(offset == bytes.count, "a run's bytes are those its page holds")
        encodedSize += pageBytes
    }

    private mutating func appendEntries(of other: LeafEntries, in range: Range<Int>) {
        var total = 0
        for entry in other.entries[range] { total += Int(entry.end - entry.start) }
        bytes.reserveCapacity(bytes.count + total)
        entries.reserveCapacity(entries.count + range.count)
        other.bytes.withUnsafeBytes { source in
            for index in range {
                let entry = other.entries[index]
                let shift = UInt32(bytes.count) &- entry.start
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: source[Int(entry.start)..<Int(entry.end)]))
                entries.append(Entry(
                    keyPrefix: entry.keyPrefix, start: entry.start &+ shift, keyStart: entry.keyStart &+ shift,
                    end: entry.end &+ shift, keyLength: entry.keyLength, kind: entry.kind, isChanged: entry.isChanged
                ))
                encodedSize += other.pageBytes(at: index)
            }
        }
    }

    /// Writes entry `index`'s pending value's bytes with `write`, which returns where it
    /// put them, and keeps that reference instead.
    mutating func resolvePendingOverflow(at index: Int, _ write: (UnsafeRawBufferPointer) throws -> OverflowReference) rethrows {
        let entry = entries[index]
        let reference = try bytes.withUnsafeBytes { raw in
            try write(Self.lengthPrefixed(raw, at: Int(entry.keyStart) + Int(entry.keyLength) + 1))
        }
        replaceValue(at: index, with: .overflow(reference))
    }

    // MARK: Encoding

    /// ``encode(into:)``, returning where each entry's key and value lie in the payload,
    /// as a page read from it would find them.
    func encodeLocating(into payload: inout [UInt8]) -> [PageNode.EntryLocation] {
        encode(into: &payload)
        // Built in place from the entries' own fields: appended one at a time, with a
        // reader made for each value's length, this was most of a retained leaf's encoding.
        let count = entries.count
        return bytes.withUnsafeBytes { raw in
            entries.withUnsafeBufferPointer { entries in
                [PageNode.EntryLocation](unsafeUninitializedCapacity: count) { table, initialized in
                    var offset = 2 + 2 * count
                    for entry in entries {
                        // The entry's bytes lie at `offset` in the payload, as they lie at `start` here.
                        let shift = offset - Int(entry.start)
                        let valueKind = Int(entry.keyStart) + Int(entry.keyLength)
                        let isOverflow = entry.kind == Self.overflowKind
                        let value = isOverflow ? valueKind + 1..<valueKind + 1 + 16 : Self.inlineValue(in: raw, after: valueKind, end: Int(entry.end))
                        table.initializeElement(at: initialized, to: PageNode.EntryLocation(
                            keyPrefix: entry.keyPrefix, keyStart: UInt16(Int(entry.keyStart) + shift), keyLength: entry.keyLength,
                            valueStart: UInt16(value.lowerBound + shift), valueLength: UInt16(value.count), isOverflow: isOverflow
                        ))
                        initialized += 1
                        offset += Int(entry.end - entry.start)
                    }
                }
            }
        }
    }

    /// Where an inline value lies: after its kind byte at `valueKind` and its length
    /// varint, up to the entry's `end` (the varint's value, as the entry was written).
    @inline(__always)
    private static func inlineValue(in raw: UnsafeRawBufferPointer, after valueKind: Int, end: Int) -> Range<Int> {
        var at = valueKind + 1
        while at < end, raw[at] & 0x80 != 0 { at += 1 }
        return min(at + 1, end)..<end
    }

    /// The leaf payload (Spec section 4.1). Every value must be inline or a written
    /// overflow reference.
    func encode(into payload: inout [UInt8]) {
        var size = 2 + 2 * entries.count
        for entry in entries { size += Int(entry.end - entry.start) }
        payload.removeAll(keepingCapacity: true)
        payload.appendZeros(size)
        // Copied through pointers: an append per slot and per entry checked capacity and
        // grew the count each time (most of a leaf's encoding, with a few bytes per entry).
        payload.withUnsafeMutableBytes { out in
            bytes.withUnsafeBytes { raw in
                out.storeBytes(of: UInt16(entries.count).littleEndian, toByteOffset: 0, as: UInt16.self)
                var slot = 2
                var offset = 2 + 2 * entries.count
                for entry in entries {
                    precondition(entry.kind != Self.pendingKind, "overflow values are written before their leaf")
                    out.storeBytes(of: UInt16(offset).littleEndian, toByteOffset: slot, as: UInt16.self)
                    slot += 2
                    let length = Int(entry.end - entry.start)
                    out.baseAddress!.advanced(by: offset).copyMemory(from: raw.baseAddress!.advanced(by: Int(entry.start)), byteCount: length)
                    offset += length
                }
            }
        }
    }

    /// How a changed leaf goes to the log (F29).
    enum LeafWrite {
        /// Nothing changed since the base: the parent keeps pointing at it.
        case unchanged(LeafBase)
        /// A delta frame on the base; what the page written keeps of it.
        case delta(LeafDelta)
        /// A full leaf.
        case full
    }

    /// Chooses how to write these entries and, for a delta, encodes its payload (section
    /// 4.3) into `payload`: the changed entries and removals of keys now absent, in key
    /// order, when that takes at most `limit` bytes.
    func encodeDelta(limit: Int, into payload: inout [UInt8]) -> LeafWrite {
        guard let base = deltaBase, !isRebuilt else { return .full }
        let removals = removedKeysAbsent()
        // Bytes of a delta entry: a changed entry's own, or a removal's key and kind byte.
        func entryBytes(isRemoval: Bool, _ index: Int) -> Int {
            isRemoval
                ? varintSize(removals[index].count) + removals[index].count + 1
                : Int(entries[index].end - entries[index].start)
        }
        var changed: [UInt16] = []
        var size = FileFormat.leafDeltaHeaderSize + 2
        for (index, entry) in entries.enumerated() where entry.isChanged {
            changed.append(UInt16(index))
            size += 2 + entryBytes(isRemoval: false, index)
            if size > limit { return .full }
        }
        for index in removals.indices { size += 2 + entryBytes(isRemoval: true, index) }
        guard size <= limit else { return .full }
        guard !changed.isEmpty || !removals.isEmpty else { return .unchanged(base) }

        // The delta's entries in key order: changed entries (by index) and removals.
        var order: [(isRemoval: Bool, index: Int)] = []
        order.reserveCapacity(changed.count + removals.count)
        bytes.withUnsafeBytes { raw in
            removedKeys.withUnsafeBytes { removed in
                var next = 0
                for index in changed {
                    let entry = entries[Int(index)]
                    let key = UnsafeRawBufferPointer(rebasing: raw[Int(entry.keyStart)..<Int(entry.keyStart) + Int(entry.keyLength)])
                    while next < removals.count, compareBytes(UnsafeRawBufferPointer(rebasing: removed[removals[next]]), key) < 0 {
                        order.append((true, next))
                        next += 1
                    }
                    order.append((false, Int(index)))
                }
                while next < removals.count {
                    order.append((true, next))
                    next += 1
                }
            }
        }
        payload.removeAll(keepingCapacity: true)
        payload.reserveCapacity(size)
        payload.appendLittleEndian(base.offset)
        payload.appendLittleEndian(UInt32(base.frameSize))
        payload.appendLittleEndian(UInt16(order.count))
        var offset = 2 + 2 * order.count
        for item in order {
            payload.appendLittleEndian(UInt16(offset))
            offset += entryBytes(isRemoval: item.isRemoval, item.index)
        }
        var removedBytes: [UInt8] = []
        bytes.withUnsafeBytes { raw in
            for item in order {
                if item.isRemoval {
                    let key = removedKeys[removals[item.index]]
                    payload.appendVarint(key.count)
                    payload.append(contentsOf: key)
                    payload.append(LeafLayoutEntry.removedKind)
                    removedBytes.appendVarint(key.count)
                    removedBytes.append(contentsOf: key)
                } else {
                    let entry = entries[item.index]
                    precondition(entry.kind != Self.pendingKind, "overflow values are written before their leaf")
                    payload.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[Int(entry.start)..<Int(entry.end)]))
                }
            }
        }
        return .delta(LeafDelta(base: base, changedEntries: changed, removedKeys: removedBytes))
    }

    /// Where the keys removed since the base lie in `removedKeys`: ascending, each once,
    /// and only those not present again.
    private func removedKeysAbsent() -> [Range<Int>] {
        guard !removedKeys.isEmpty else { return [] }
        var keys: [Range<Int>] = []
        removedKeys.withUnsafeBytes { removed in
            var reader = ByteReader(removed)
            while let length = reader.readVarint(), let start = reader.skip(length) {
                keys.append(start..<start + length)
            }
            keys.sort { compareBytes(UnsafeRawBufferPointer(rebasing: removed[$0]), UnsafeRawBufferPointer(rebasing: removed[$1])) < 0 }
            var unique: [Range<Int>] = []
            for key in keys {
                let bytes = UnsafeRawBufferPointer(rebasing: removed[key])
                if let last = unique.last, compareBytes(UnsafeRawBufferPointer(rebasing: removed[last]), bytes) == 0 { continue }
                if search(bytes).found { continue }
                unique.append(key)
            }
            keys = unique
        }
        return keys
    }

    // MARK: Buffer

    private mutating func appendBytes(key: [UInt8], value: LeafValue) -> Entry {
        key.withUnsafeBytes { key in appendEntry(key: key) { $0.appendValue(value) } }
    }

    /// An entry with an inline value from borrowed bytes, appended to the buffer.
    private mutating func appendInlineBytes(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Entry {
        appendEntry(key: key) { $0.appendInlineValue(value) }
    }

    /// An entry of `key` and the value `appendValue` appends (returning its kind),
    /// appended to the buffer.
    private mutating func appendEntry(key: UnsafeRawBufferPointer, appendingValue appendValue: (inout LeafEntries) -> UInt8) -> Entry {
        let start = bytes.count
        bytes.appendVarint(key.count)
        let keyStart = bytes.count
        bytes.append(contentsOf: key)
        let kind = appendValue(&self)
        return Entry(
            keyPrefix: keyPrefix(key), start: UInt32(start), keyStart: UInt32(keyStart),
            end: UInt32(bytes.count), keyLength: UInt16(key.count), kind: kind, isChanged: true
        )
    }

    /// Appends a value's kind byte and bytes; returns the kind.
    private mutating func appendValue(_ value: LeafValue) -> UInt8 {
        switch value {
        case .inline(let value):
            return value.withUnsafeBytes { appendInlineValue($0) }
        case .overflow(let reference):
            bytes.append(Self.overflowKind)
            bytes.appendLittleEndian(reference.offset)
            bytes.appendLittleEndian(reference.frameSize)
            bytes.appendLittleEndian(reference.length)
            return Self.overflowKind
        case .pendingOverflow(let value):
            bytes.append(Self.pendingKind)
            bytes.appendVarint(value.count)
            bytes.append(contentsOf: value)
            return Self.pendingKind
        }
    }

    private mutating func appendInlineValue(_ value: UnsafeRawBufferPointer) -> UInt8 {
        bytes.append(Self.inlineKind)
        bytes.appendVarint(value.count)
        bytes.append(contentsOf: value)
        return Self.inlineKind
    }

    private mutating func discard(_ entry: Entry) {
        unusedBytes += Int(entry.end - entry.start)
        compactIfWasteful()
    }

    /// Copies the live entries into a fresh buffer once most of it is unused.
    private mutating func compactIfWasteful() {
        guard unusedBytes > 4096, unusedBytes * 2 > bytes.count else { return }
        var compacted = LeafEntries()
        compacted.appendEntries(of: self, in: 0..<entries.count)
        compacted.deltaBase = deltaBase
        compacted.isRebuilt = isRebuilt
        compacted.removedKeys = removedKeys
        compacted.isSplitFromMiddle = isSplitFromMiddle
        self = compacted
    }
}
