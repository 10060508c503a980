/// The hash that dictionaries and sets give integers the library keys them by (object
/// numbers, integer attribute values): one multiplication and a shift over the number and
/// the table's seed, where SipHash cost a twentieth of an upsert's reading thread.
/// The numbers come from the store or from the data being imported, and a table that
/// collides only slows down; the seed still varies the layout from table to table.
enum IntegerHash {
    static func mixed(_ number: Int64, seed: Int) -> Int {
        var mixed = (UInt64(bitPattern: number) ^ UInt64(bitPattern: Int64(seed))) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= mixed >> 32
        return Int(truncatingIfNeeded: mixed)
    }
}
