/// One entry of a table in leaf layout (Spec 4.1, and 4.3 for a delta's): where its key
/// and value lie in the bytes, read and bounds-checked once for pages and deltas alike.
struct LeafLayoutEntry {
    /// Value kinds (F15, and removal in a delta, section 4.3).
    static let inlineKind: UInt8 = 0
    static let overflowKind: UInt8 = 1
    static let removedKind: UInt8 = 2

    var start: Int
    var keyStart: Int
    var keyLength: Int
    var kind: UInt8
    /// Inline bytes or the 16-byte overflow reference; empty for a removal.
    var valueStart: Int
    var valueLength: Int

    /// Past the entry's last byte.
    var end: Int { valueStart + valueLength }

    /// Entry `index` of the table at the start of `raw` (a 2-byte count, then 2-byte
    /// positions); nil when it lies outside `raw` or is malformed. Removals are read only
    /// where `allowsRemoval` (a delta's table).
    @inline(__always)
    static func read(_ raw: UnsafeRawBufferPointer, entry index: Int, allowsRemoval: Bool) -> LeafLayoutEntry? {
        var slot = ByteReader(raw, at: 2 + 2 * index)
        guard let start = slot.read(UInt16.self) else { return nil }
        return read(raw, at: Int(start), allowsRemoval: allowsRemoval)
    }

    /// The entry that starts at `start` in `raw`, wherever its position came from (a
    /// table, or the end of the entry before in a packed leaf, F33).
    @inline(__always)
    static func read(_ raw: UnsafeRawBufferPointer, at start: Int, allowsRemoval: Bool) -> LeafLayoutEntry? {
        var reader = ByteReader(raw, at: start)
        guard let keyLength = reader.readVarint(), keyLength < 0x8000,
              let keyStart = reader.skip(keyLength),
              let kind = reader.read(UInt8.self)
        else { return nil }
        let valueLength: Int
        switch kind {
        case inlineKind:
            guard let length = reader.readVarint(), length < UInt16.max else { return nil }
            valueLength = length
        case overflowKind:
            valueLength = 16
        case removedKind where allowsRemoval:
            valueLength = 0
        default:
            return nil
        }
        guard let valueStart = reader.skip(valueLength) else { return nil }
        return LeafLayoutEntry(
            start: start, keyStart: keyStart, keyLength: keyLength, kind: kind, valueStart: valueStart, valueLength: valueLength
        )
    }
}
