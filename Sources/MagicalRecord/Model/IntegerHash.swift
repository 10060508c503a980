/// The hash that dictionaries and sets give integers the library keys them by (object
/// numbers, integer attribute values): the number and the table's seed through a 64-bit
/// finalizer (two multiplications and three shifts, every output bit depending on every
/// input bit), where SipHash cost a twentieth of an upsert's reading thread.
///
/// The seed is random per process and per table, so imported keys cannot be chosen to
/// collide without it: one multiplication alone let keys that differ only in their high
/// bits share a bucket, and a crafted import could have made its own tables quadratic.
enum IntegerHash {
    static func mixed(_ number: Int64, seed: Int) -> Int {
        var mixed = UInt64(bitPattern: number) ^ UInt64(bitPattern: Int64(seed))
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        return Int(truncatingIfNeeded: mixed)
    }
}
