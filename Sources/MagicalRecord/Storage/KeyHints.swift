import Synchronization

/// Where objects of one entity were last seen by their integer key: key -> object number,
/// so that a finder by key reads the records tree alone instead of the key index first.
///
/// A hint is only ever a guess. Keys are unique among an entity's objects in every
/// snapshot (each commit checks them), so the record a hint names is the object with the
/// key exactly when that record, read in the caller's snapshot, holds the key; a hint gone
/// stale (the object deleted, its key changed, a save that failed) fails that check and
/// the caller asks the index. Hints therefore need no invalidation, and the table may lose
/// any of them, or even answer for a key with another key's number: each slot keeps the
/// last key hashed to it, as 32 bits of its hash, in a table that doubles with what it is
/// told up to a maximum (2 Mi slots of 8 bytes, 16 MiB), so its memory stays bounded
/// whatever the entity's size.
final class KeyHints: Sendable {
    /// 8 bytes a slot: at most 16 MiB per entity.
    static let defaultMaximumSlots = 1 << 21
    private static let initialSlots = 1 << 10

    /// A slot: the top 32 bits of the key's hash (which begin with its place) above the
    /// object number; 0 for an empty slot (object numbers start at 1). Numbers past 32
    /// bits are not noted.
    private typealias Slot = UInt64

    private struct Table {
        let maximumSlots: Int
        var slots: [Slot]
        /// Hints noted since the table last grew: it doubles once they outnumber half its
        /// slots. Doubling at twice as many held 46% of a 1M-record import's keys in
        /// 512 Ki slots; at half, 74% in 1 Mi (a simulation of the import's shuffled keys),
        /// in the memory 16-byte slots took before.
        var notedSinceGrowth = 0
        /// Hints handed out (tests check the short way is taken).
        var answered = 0

        /// The key's hash, top 32 bits: Fibonacci hashing spreads consecutive keys over
        /// the whole table, and a place is the hash's top bits.
        static func tag(of key: Int64) -> UInt64 {
            (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 32
        }

        func place(ofTag tag: UInt64) -> Int {
            Int(truncatingIfNeeded: tag >> UInt64(32 - slots.count.trailingZeroBitCount))
        }

        mutating func note(_ key: Int64, _ number: Int64) {
            guard let number = UInt32(exactly: number), number > 0 else { return }
            let tag = Self.tag(of: key)
            slots[place(ofTag: tag)] = tag << 32 | UInt64(number)
            notedSinceGrowth += 1
            if notedSinceGrowth > slots.count / 2, slots.count < maximumSlots { grow() }
        }

        func number(for key: Int64) -> Int64? {
            let tag = Self.tag(of: key)
            let slot = slots[place(ofTag: tag)]
            guard slot != 0, slot >> 32 == tag else { return nil }
            return Int64(slot & 0xFFFF_FFFF)
        }

        private mutating func grow() {
            let old = slots
            slots = [Slot](repeating: 0, count: old.count * 2)
            for slot in old where slot != 0 { slots[place(ofTag: slot >> 32)] = slot }
            notedSinceGrowth = 0
        }
    }

    private let table: Mutex<Table>

    /// `maximumSlots`: a power of two up to 2^32, the most the table grows to.
    init(maximumSlots: Int = KeyHints.defaultMaximumSlots) {
        precondition(maximumSlots > 0 && maximumSlots & (maximumSlots - 1) == 0 && maximumSlots <= 1 << 32, "maximumSlots must be a power of two up to 2^32")
        let slots = min(maximumSlots, Self.initialSlots)
        table = Mutex(Table(maximumSlots: maximumSlots, slots: [Slot](repeating: 0, count: slots)))
    }

    /// The object number last noted for `key`, if the table still holds it; rarely, that
    /// of another key with the same 32-bit hash.
    func number(for key: Int64) -> Int64? {
        table.withLock { table -> Int64? in
            guard let number = table.number(for: key) else { return nil }
            table.answered += 1
            return number
        }
    }

    /// Notes that object `number` has `key`.
    func note(key: Int64, number: Int64) {
        guard number > 0 else { return }
        table.withLock { $0.note(key, number) }
    }

    /// Notes each pair of `hints`, under one lock.
    func note(_ hints: [(key: Int64, number: Int64)]) {
        guard !hints.isEmpty else { return }
        table.withLock { table in
            for hint in hints where hint.number > 0 { table.note(hint.key, hint.number) }
        }
    }

    /// How many hints were handed out (for tests).
    var answeredCount: Int { table.withLock { $0.answered } }

    /// Slots the table has now (for tests).
    var slotCount: Int { table.withLock { $0.slots.count } }
}
