/// Integers seen lately, in a direct-mapped table: a batch names its targets' keys over
/// and over (a department per person), and a repeat found here needs no set to hash it
/// (a set's insert was a hundredth of the reading thread's work).
///
/// It only ever answers true for a value it was told before; it may forget one.
struct RecentIntegers {
    private static let slotCount = 256
    private var values = [Int64](repeating: 0, count: RecentIntegers.slotCount)
    private var filled = [Bool](repeating: false, count: RecentIntegers.slotCount)

    /// Whether `value` was noted lately; notes it either way.
    mutating func noteIsRepeat(_ value: Int64) -> Bool {
        // The top bits of a multiplicative hash: keys that step by a constant spread out.
        let slot = Int(truncatingIfNeeded: (UInt64(bitPattern: value) &* 0x9E37_79B9_7F4A_7C15) >> 56)
        if filled[slot], values[slot] == value { return true }
        values[slot] = value
        filled[slot] = true
        return false
    }
}
