import Synchronization

/// Where objects of one entity were last seen by their integer key: key -> object number,
/// so that a finder by key reads the records tree alone instead of the key index first.
///
/// A hint is only ever a guess. Keys are unique among an entity's objects in every
/// snapshot (each commit checks them), so the record a hint names is the object with the
/// key exactly when that record, read in the caller's snapshot, holds the key; a hint gone
/// stale (the object deleted, its key changed, a save that failed) fails that check and
/// the caller asks the index. Hints therefore need no invalidation, and the table may lose
/// any of them: each slot keeps the last key hashed to it, in a table that doubles with
/// what it is told up to a maximum (1 Mi slots, 16 MiB), so its memory stays bounded
/// whatever the entity's size.
final class KeyHints: Sendable {
    /// 16 bytes a slot: at most 16 MiB per entity.
    static let defaultMaximumSlots = 1 << 20
    private static let initialSlots = 1 << 10

    private struct Slot {
        var key: Int64
        /// 0 for an empty slot: object numbers start at 1.
        var number: Int64
    }

    private struct Table {
        let maximumSlots: Int
        var slots: [Slot]
        /// Hints noted since the table last grew: it doubles once they outnumber its slots.
        var notedSinceGrowth = 0
        /// Hints handed out (tests check the short way is taken).
        var answered = 0

        func place(of key: Int64) -> Int {
            // Fibonacci hashing: consecutive keys spread over the whole table.
            Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - slots.count.trailingZeroBitCount))
        }

        mutating func note(_ key: Int64, _ number: Int64) {
            slots[place(of: key)] = Slot(key: key, number: number)
            notedSinceGrowth += 1
            if notedSinceGrowth > slots.count, slots.count < maximumSlots { grow() }
        }

        private mutating func grow() {
            let old = slots
            slots = [Slot](repeating: Slot(key: 0, number: 0), count: old.count * 2)
            for slot in old where slot.number != 0 { slots[place(of: slot.key)] = slot }
            notedSinceGrowth = 0
        }
    }

    private let table: Mutex<Table>

    /// `maximumSlots`: a power of two, the most the table grows to.
    init(maximumSlots: Int = KeyHints.defaultMaximumSlots) {
        precondition(maximumSlots > 0 && maximumSlots & (maximumSlots - 1) == 0, "maximumSlots must be a power of two")
        let slots = min(maximumSlots, Self.initialSlots)
        table = Mutex(Table(maximumSlots: maximumSlots, slots: [Slot](repeating: Slot(key: 0, number: 0), count: slots)))
    }

    /// The object number last noted for `key`, if the table still holds it.
    func number(for key: Int64) -> Int64? {
        table.withLock { table -> Int64? in
            let slot = table.slots[table.place(of: key)]
            guard slot.number != 0, slot.key == key else { return nil }
            table.answered += 1
            return slot.number
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
