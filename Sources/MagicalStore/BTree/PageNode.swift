/// A tree page as read from the file (Spec section 4): immutable, shared by every snapshot
/// that reaches it, and searched in place without decoding its entries.
///
/// The initializer validates the whole structure, so the accessors can trust every
/// offset: a damaged page becomes a corruption error once, here, never a trap later.
final class PageNode: Sendable {
    /// Where an entry's pieces lie in the payload, with the key's first bytes at hand: 16
    /// bytes, so a cached page's table of entries stays small beside its payload.
    struct EntryLocation: Sendable {
        /// The key's first 8 bytes, big-endian, zero-padded: comparing these orders most
        /// keys without touching the payload, which saves cache misses on lookups.
        var keyPrefix: UInt64
        var keyStart: UInt16
        /// The key's length (below 0x8000: keys are at most 1,024 bytes, F15), with the
        /// top bit set when the value is an overflow reference.
        private var keyLengthAndOverflow: UInt16
        /// Inline value bytes, or the 16-byte overflow reference.
        var valueStart: UInt16
        var valueLength: UInt16

        init(keyPrefix: UInt64, keyStart: UInt16, keyLength: UInt16, valueStart: UInt16, valueLength: UInt16, isOverflow: Bool) {
            self.keyPrefix = keyPrefix
            self.keyStart = keyStart
            self.keyLengthAndOverflow = keyLength | (isOverflow ? 0x8000 : 0)
            self.valueStart = valueStart
            self.valueLength = valueLength
        }

        var keyLength: UInt16 { keyLengthAndOverflow & 0x7FFF }
        var isOverflow: Bool { keyLengthAndOverflow & 0x8000 != 0 }
    }

    let offset: UInt64
    /// On-disk size of the frame, counted as dead space once the page is replaced.
    let frameSize: UInt64
    /// A page read from a leaf delta frame: its base and keys (its entries are the merged
    /// leaf, section 4.3).
    let delta: LeafDelta?
    let transaction: UInt64
    let isLeaf: Bool
    let payload: [UInt8]
    /// Leaf: one per entry. Branch: one per separator key (child count - 1).
    let entries: [EntryLocation]
    /// Branch only: child page offsets.
    let children: [UInt64]
    /// What the page holds in memory: payload, entry table, children, and the objects'
    /// headers; the page cache's budget counts this.
    let memoryCost: Int
    /// The first and last entries' key prefixes, beside the object's header: a search
    /// guesses where a key lies from them before touching the entry table.
    private let firstPrefix: UInt64
    private let lastPrefix: UInt64
    /// `entries.count`, beside the prefixes: a search that took the count from the entry
    /// table's header waited on that cold line before it could probe its guess.
    private let entryCount: Int

    /// Entries of a leaf; children of a branch.
    var count: Int { isLeaf ? entries.count : children.count }

    /// On-disk bytes that stay live through this page: its frame, and a delta's base (F28).
    var liveFrameBytes: UInt64 { frameSize + (delta?.base.frameSize ?? 0) }

    convenience init(
        offset: UInt64, frameSize: UInt64, transaction: UInt64, isLeaf: Bool, payload: [UInt8], delta: LeafDelta? = nil
    ) throws(FrameError) {
        let parsed = payload.withUnsafeBytes { raw in
            isLeaf ? Self.parseLeaf(raw) : Self.parseBranch(raw, pageOffset: offset)
        }
        guard let parsed else { throw FrameError.badStructure }
        self.init(
            offset: offset, frameSize: frameSize, transaction: transaction, isLeaf: isLeaf, payload: payload,
            entries: parsed.entries, children: parsed.children, delta: delta
        )
    }

    /// A leaf read from a packed leaf frame's payload (F33), at most `limit` bytes once
    /// unpacked: its entries located as the walk that unpacks them goes.
    convenience init(offset: UInt64, frameSize: UInt64, transaction: UInt64, packedLeaf packed: [UInt8], limit: Int) throws(FrameError) {
        let unpacked = packed.withUnsafeBytes { PackedLeaf.unpackWithLocations($0, limit: limit) }
        guard let unpacked else { throw FrameError.badStructure }
        self.init(
            offset: offset, frameSize: frameSize, transaction: transaction, isLeaf: true, payload: unpacked.leaf,
            entries: unpacked.entries, children: [], delta: nil
        )
    }

    /// A leaf this process has just encoded, with the entry table its encoder worked out
    /// (``LeafEntries/encodeLocating(into:)``): a commit keeps the leaves it writes for
    /// the cache, and parsing each one again was a thirtieth of the committing thread.
    convenience init(encodedLeafAt offset: UInt64, frameSize: UInt64, transaction: UInt64, payload: [UInt8], entries: [EntryLocation], delta: LeafDelta?) {
        self.init(offset: offset, frameSize: frameSize, transaction: transaction, isLeaf: true, payload: payload, entries: entries, children: [], delta: delta)
    }

    private init(
        offset: UInt64, frameSize: UInt64, transaction: UInt64, isLeaf: Bool, payload: [UInt8], entries: [EntryLocation],
        children: [UInt64], delta: LeafDelta?
    ) {
        self.offset = offset
        self.frameSize = frameSize
        self.delta = delta
        self.transaction = transaction
        self.isLeaf = isLeaf
        self.payload = payload
        self.entries = entries
        self.children = children
        memoryCost = payload.count + entries.count * MemoryLayout<EntryLocation>.stride + children.count * 8 + 128
            + (delta?.memoryCost ?? 0)
        firstPrefix = entries.first?.keyPrefix ?? 0
        lastPrefix = entries.last?.keyPrefix ?? 0
        entryCount = entries.count
    }

    private static func parseLeaf(_ raw: UnsafeRawBufferPointer) -> (entries: [EntryLocation], children: [UInt64])? {
        var header = ByteReader(raw)
        guard let count = header.read(UInt16.self), count > 0 else { return nil }
        var entries: [EntryLocation] = []
        entries.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            // Positions are 16-bit (F31): a payload past 64 KiB is refused, not truncated.
            guard let entry = LeafLayoutEntry.read(raw, entry: index, allowsRemoval: false), entry.end <= Int(UInt16.max) else {
                return nil
            }
            entries.append(EntryLocation(
                keyPrefix: keyPrefix(UnsafeRawBufferPointer(rebasing: raw[entry.keyStart..<entry.keyStart + entry.keyLength])),
                keyStart: UInt16(entry.keyStart), keyLength: UInt16(entry.keyLength),
                valueStart: UInt16(entry.valueStart), valueLength: UInt16(entry.valueLength),
                isOverflow: entry.kind == LeafLayoutEntry.overflowKind
            ))
        }
        return (entries, [])
    }

    private static func parseBranch(_ raw: UnsafeRawBufferPointer, pageOffset: UInt64) -> (entries: [EntryLocation], children: [UInt64])? {
        var reader = ByteReader(raw)
        guard let count = reader.read(UInt16.self), count >= 2 else { return nil }
        var children: [UInt64] = []
        children.reserveCapacity(Int(count))
        for _ in 0..<Int(count) {
            // F18: children precede their parent, and sit past the header region.
            guard let child = reader.read(UInt64.self), child >= FileFormat.headerRegionSize, child < pageOffset else { return nil }
            children.append(child)
        }
        var separators: [EntryLocation] = []
        separators.reserveCapacity(Int(count) - 1)
        for _ in 0..<Int(count) - 1 {
            guard let start = reader.read(UInt16.self) else { return nil }
            var keyReader = ByteReader(raw, at: Int(start))
            guard let keyLength = keyReader.readVarint(), keyLength < 0x8000, let keyStart = keyReader.skip(keyLength),
                  keyStart + keyLength <= Int(UInt16.max)
            else { return nil }
            separators.append(EntryLocation(
                keyPrefix: keyPrefix(UnsafeRawBufferPointer(rebasing: raw[keyStart..<keyStart + keyLength])),
                keyStart: UInt16(keyStart), keyLength: UInt16(keyLength), valueStart: 0, valueLength: 0, isOverflow: false
            ))
        }
        return (separators, children)
    }

    /// Compares the key of entry (leaf) or separator (branch) `index` with `key`.
    func compareKey(at index: Int, with key: UnsafeRawBufferPointer) -> Int {
        entries.withUnsafeBufferPointer { entries in
            payload.withUnsafeBytes { payload in
                Self.compare(entries[index], key, keyPrefix(key), payload)
            }
        }
    }

    @inline(__always)
    private static func compare(
        _ location: EntryLocation, _ key: UnsafeRawBufferPointer, _ prefix: UInt64, _ payload: UnsafeRawBufferPointer
    ) -> Int {
        compareStoredKey(prefix: location.keyPrefix, start: Int(location.keyStart), length: Int(location.keyLength), in: payload, with: key, prefix: prefix)
    }

    /// The key of entry `index`; one of at most 8 bytes is rebuilt from its prefix, without
    /// reading the payload.
    func key(at index: Int) -> [UInt8] {
        let location = entries[index]
        let length = Int(location.keyLength)
        if length <= 8 {
            return (0..<length).map { UInt8(truncatingIfNeeded: location.keyPrefix >> (56 - 8 * UInt64($0))) }
        }
        return Array(payload[Int(location.keyStart)..<Int(location.keyStart) + length])
    }

    /// The first index whose key is >= `key` (leaf), or `entries.count` when none is.
    func lowerBound(_ key: UnsafeRawBufferPointer) -> Int {
        search(key) { $0 < 0 }
    }

    /// The child of a branch that holds `key` (F16): the number of separators <= key.
    func childIndex(for key: UnsafeRawBufferPointer) -> Int {
        search(key) { $0 <= 0 }
    }

    /// The first index whose comparison with `key` is not `isBefore`: searched from where
    /// the key's prefix lies between the first and last entries' (see ``interpolatedSearch``).
    @inline(__always)
    private func search(_ key: UnsafeRawBufferPointer, _ isBefore: (Int) -> Bool) -> Int {
        let prefix = keyPrefix(key)
        return entries.withUnsafeBufferPointer { entries in
            payload.withUnsafeBytes { payload in
                interpolatedSearch(count: entryCount, prefix: prefix, first: firstPrefix, last: lastPrefix) { index in
                    isBefore(Self.compare(entries[index], key, prefix, payload))
                }
            }
        }
    }

    /// Calls `body` with the key of entry (leaf) or separator (branch) `index`, borrowed
    /// from the page (valid only during the call).
    func withKey<T>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let location = entries[index]
        return try payload.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[Int(location.keyStart)..<Int(location.keyStart) + Int(location.keyLength)]))
        }
    }

    /// Calls `body` with entry `index`'s key and value as bytes borrowed from the page
    /// (valid only during the call); an overflow value comes from `overflow`.
    func withEntry<T>(
        at index: Int, overflow: (LeafValue) throws -> [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        let location = entries[index]
        if location.isOverflow {
            let value = try overflow(self.value(at: index))
            return try payload.withUnsafeBytes { raw in
                let key = UnsafeRawBufferPointer(rebasing: raw[Int(location.keyStart)..<Int(location.keyStart) + Int(location.keyLength)])
                return try value.withUnsafeBytes { try body(key, $0) }
            }
        }
        return try payload.withUnsafeBytes { raw in
            let key = UnsafeRawBufferPointer(rebasing: raw[Int(location.keyStart)..<Int(location.keyStart) + Int(location.keyLength)])
            let value = UnsafeRawBufferPointer(rebasing: raw[Int(location.valueStart)..<Int(location.valueStart) + Int(location.valueLength)])
            return try body(key, value)
        }
    }

    /// Where leaf entry `index` starts in `payload`, as the page's table says: its
    /// key-length varint may take more bytes than the length needs (Spec section 1).
    func entryStart(at index: Int) -> Int {
        payload.withUnsafeBytes { Self.entryStart(at: index, in: $0) }
    }

    /// The same in a leaf payload's borrowed bytes, for a walk over all its entries.
    static func entryStart(at index: Int, in payload: UnsafeRawBufferPointer) -> Int {
        Int(payload.loadLittleEndian(at: 2 + 2 * index, as: UInt16.self))
    }

    /// Whether leaf entry `index` holds its value inline, its key and value together at
    /// most `inlineLimit` bytes (as a writer would store it inline).
    func isInlineEntry(at index: Int, inlineLimit: Int) -> Bool {
        Self.holdsInline(entries[index], within: inlineLimit)
    }

    private static func holdsInline(_ location: EntryLocation, within inlineLimit: Int) -> Bool {
        !location.isOverflow && Int(location.keyLength) + Int(location.valueLength) <= inlineLimit
    }

    /// How many leaf entries from `start` (up to `end`) are inline ones
    /// (``isInlineEntry(at:inlineLimit:)``) whose page bytes with their slots add up to at
    /// most `room`, the first taken whatever its size when `takesFirst`; and those bytes.
    func inlineRun(from start: Int, to end: Int, room: Int, inlineLimit: Int, takesFirst: Bool) -> (count: Int, bytes: Int) {
        payload.withUnsafeBytes { raw in
            entries.withUnsafeBufferPointer { entries in
                var index = start
                var bytes = 0
                while index < end {
                    let location = entries[index]
                    guard Self.holdsInline(location, within: inlineLimit) else { break }
                    let entryStart = Int(raw.loadLittleEndian(at: 2 + 2 * index, as: UInt16.self))
                    let size = 2 + Int(location.valueStart) + Int(location.valueLength) - entryStart
                    guard bytes + size <= room || (takesFirst && index == start) else { break }
                    bytes += size
                    index += 1
                }
                return (index - start, bytes)
            }
        }
    }

    /// Calls `body` with leaf entries from `start` to the last (to the first when
    /// `reverse`), as ``withEntry(at:overflow:_:)`` gives them, until it returns false.
    /// Forwards, `end` stops the walk before that index. True when it went through.
    func forEachEntry(
        from start: Int, below end: Int? = nil, reverse: Bool, overflow: (LeafValue) throws -> [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        try payload.withUnsafeBytes { raw in
            try entries.withUnsafeBufferPointer { entries in
                let end = end ?? entries.count
                var index = start
                while index >= 0 && index < end {
                    let location = entries[index]
                    let key = UnsafeRawBufferPointer(rebasing: raw[Int(location.keyStart)..<Int(location.keyStart) + Int(location.keyLength)])
                    let goOn: Bool
                    if location.isOverflow {
                        goOn = try overflow(value(at: index)).withUnsafeBytes { try body(key, $0) }
                    } else {
                        goOn = try body(key, UnsafeRawBufferPointer(rebasing: raw[Int(location.valueStart)..<Int(location.valueStart) + Int(location.valueLength)]))
                    }
                    guard goOn else { return false }
                    index += reverse ? -1 : 1
                }
                return true
            }
        }
    }

    func value(at index: Int) -> LeafValue {
        let location = entries[index]
        let start = Int(location.valueStart)
        if location.isOverflow {
            return payload.withUnsafeBytes { raw in
                .overflow(OverflowReference(
                    offset: raw.loadLittleEndian(at: start, as: UInt64.self),
                    frameSize: raw.loadLittleEndian(at: start + 8, as: UInt32.self),
                    length: raw.loadLittleEndian(at: start + 12, as: UInt32.self)
                ))
            }
        }
        return .inline(Array(payload[start..<start + Int(location.valueLength)]))
    }
}
