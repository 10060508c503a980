/// A leaf as a packed leaf frame stores it (Spec F33): the entry count, then the entries
/// back to back in key order, without the table of their positions that a leaf keeps in
/// memory (4.1). Each position is where the entry before ends, so the table is rebuilt by
/// one walk on reading; on disk it cost 2 bytes an entry that compress poorly (a page's
/// positions differ in every entry, where its keys and values repeat).
enum PackedLeaf {
    /// Appends `leaf` (a leaf payload, 4.1) packed onto `buffer`, or returns false (and
    /// `buffer` as it was) when `leaf` is not a well-formed leaf payload.
    static func pack(_ leaf: UnsafeRawBufferPointer, appendingTo buffer: inout [UInt8]) -> Bool {
        var header = ByteReader(leaf)
        guard let count = header.read(UInt16.self), count > 0 else { return false }
        let start = buffer.count
        buffer.reserveCapacity(start + leaf.count)
        buffer.appendLittleEndian(count)
        // Entries that lie back to back (as a leaf is written) are copied as one run: an
        // append an entry was most of packing a leaf.
        var run = 0..<0
        for index in 0..<Int(count) {
            guard let entry = LeafLayoutEntry.read(leaf, entry: index, allowsRemoval: false) else {
                buffer.removeLast(buffer.count - start)
                return false
            }
            if entry.start == run.upperBound, !run.isEmpty {
                run = run.lowerBound..<entry.end
            } else {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: leaf[run]))
                run = entry.start..<entry.end
            }
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: leaf[run]))
        return true
    }

    /// The leaf payload (4.1) that `packed` holds, with its table of positions, or nil when
    /// `packed` is malformed: no entries, an entry that does not read, bytes left over, or
    /// a leaf longer than `limit` bytes (its positions are 16-bit, F31).
    static func unpack(_ packed: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        unpack(packed, limit: limit) { _, _, _ in }
    }

    /// The same, with where each entry's key and value lie in the leaf, found in the one
    /// walk that rebuilds the table: a page read from the file walked its entries twice,
    /// once to unpack them and once to parse them (a fifth of reading a page).
    static func unpackWithLocations(_ packed: UnsafeRawBufferPointer, limit: Int) -> (leaf: [UInt8], entries: [PageNode.EntryLocation])? {
        let count = packed.count >= 2 ? Int(packed.loadLittleEndian(at: 0, as: UInt16.self)) : 0
        var leaf: [UInt8]?
        // Written in place, as the walk goes: appending checked the capacity and the
        // array's uniqueness for every entry.
        let entries = [PageNode.EntryLocation](unsafeUninitializedCapacity: count) { locations, initialized in
            leaf = unpack(packed, limit: limit) { index, entry, shift in
                (locations.baseAddress! + index).initialize(to: PageNode.EntryLocation(
                    keyPrefix: keyPrefix(UnsafeRawBufferPointer(rebasing: packed[entry.keyStart..<entry.keyStart + entry.keyLength])),
                    keyStart: UInt16(entry.keyStart + shift), keyLength: UInt16(entry.keyLength),
                    valueStart: UInt16(entry.valueStart + shift), valueLength: UInt16(entry.valueLength),
                    isOverflow: entry.kind == LeafLayoutEntry.overflowKind
                ))
                initialized = index + 1
            }
        }
        return leaf.map { ($0, entries) }
    }

    /// Unpacks `packed`, handing `body` each entry's index and the entry as read in
    /// `packed`, with how far the table moves it in the leaf (``unpack(_:limit:)``): at
    /// most the count in `packed`'s first two bytes, in order from 0, each once. The leaf
    /// is checked to fit 16-bit positions before any entry is handed on.
    @inline(__always)
    private static func unpack(
        _ packed: UnsafeRawBufferPointer, limit: Int, _ body: (_ index: Int, _ entry: LeafLayoutEntry, _ shift: Int) -> Void
    ) -> [UInt8]? {
        var header = ByteReader(packed)
        guard let count = header.read(UInt16.self), count > 0 else { return nil }
        let tableEnd = 2 + 2 * Int(count)
        let length = packed.count + 2 * Int(count)
        guard length <= min(limit, Int(UInt16.max)) else { return nil }
        var valid = true
        let leaf = [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
            let raw = UnsafeMutableRawBufferPointer(output)
            raw.storeBytes(of: count.littleEndian, toByteOffset: 0, as: UInt16.self)
            var position = 2
            for index in 0..<Int(count) {
                guard let entry = LeafLayoutEntry.read(packed, at: position, allowsRemoval: false) else {
                    valid = false
                    break
                }
                raw.storeBytes(of: UInt16(position + tableEnd - 2).littleEndian, toByteOffset: 2 + 2 * index, as: UInt16.self)
                body(index, entry, tableEnd - 2)
                position = entry.end
            }
            if valid, position == packed.count {
                UnsafeMutableRawBufferPointer(rebasing: raw[tableEnd...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: packed[2...]))
            } else {
                valid = false
                raw.initializeMemory(as: UInt8.self, repeating: 0)
            }
            initialized = length
        }
        return valid ? leaf : nil
    }
}
