import CPrefetch
import Synchronization

/// Where objects of one entity were last seen by their integer key: key -> object number,
/// so that a finder by key reads the records tree alone instead of the key index first.
///
/// A hint is only ever a guess. Keys are unique among an entity's objects in every
/// snapshot (each commit checks them), so the record a hint names is the object with the
/// key exactly when that record, read in the caller's snapshot, holds the key; a hint gone
/// stale (the object deleted, its key changed, a save that failed) fails that check and
/// the caller asks the index. Hints therefore need no invalidation, and the table may lose
/// any of them, or even answer for a key with another key's number: each slot keeps a key
/// as 32 bits of its hash, in a table that doubles with what it is told up to a maximum
/// (2 Mi slots of 8 bytes, 16 MiB), so its memory stays bounded whatever the entity's size.
///
/// The slots are in buckets of eight, one cache line each, the last noted first: a key
/// goes to its bucket's front. A full bucket makes the table grow while it is under its
/// maximum; at the maximum, the bucket's oldest hint makes room. With one place per key
/// the table kept 66% of the benchmark's 1.5M keys after its 1M import and upsert, and a
/// get without its hint reads the key index first; buckets of eight keep 92% (a
/// simulation of both), at one cache miss a look-up still.
///
/// The table can also say that a key is absent, which an import's look-up of a batch's
/// keys asks for every key (``presence(of:asOf:_:)``): once it is known to have been told
/// every key the entity holds as of some commit (``markComplete(asOf:)``: its key index
/// was empty then, or was read whole into the table), a key whose tag is in none of its
/// slots is in no snapshot from that commit on. That holds because every commit notes the
/// keys it writes before it is published, and a slot is only ever replaced by a hint for
/// the same tag, except at the maximum, where a bucket that lost a hint is marked, and
/// answers for none of its absent keys after that.
final class KeyHints: Sendable {
    /// 8 bytes a slot: at most 16 MiB per entity.
    static let defaultMaximumSlots = 1 << 21
    private static let initialSlots = 1 << 10
    /// Slots a bucket has (fewer in a table smaller than that): a cache line.
    private static let bucketSlots = 8

    /// A slot: the top 32 bits of the key's hash (which begin with its bucket) above the
    /// object number; 0 for an empty slot (object numbers start at 1). Numbers past 32
    /// bits are not noted.
    private typealias Slot = UInt64

    private struct Table: ~Copyable {
        let maximumSlots: Int
        /// `slotCount` slots, aligned to a bucket's size (a bucket is one cache line).
        private var slots: UnsafeMutablePointer<Slot>
        private(set) var slotCount: Int
        /// Slots a bucket has, and how far a tag shifts to give its bucket: kept, not
        /// worked out (with a division) at every look-up.
        private var ways: Int
        private var bucketShift: UInt64
        /// Hints noted since the table last grew: it doubles once they outnumber half its
        /// slots. With one place per key, doubling at twice as many held 46% of a
        /// 1M-record import's keys in 512 Ki slots; at half, 74% in 1 Mi (a simulation of
        /// the import's shuffled keys), in the memory 16-byte slots took before.
        var notedSinceGrowth = 0
        /// Hints handed out (tests check the short way is taken).
        var answered = 0
        /// The first commit as of which the table holds every key of the entity (nil: not
        /// known to); see ``KeyHints``.
        var completeSince: UInt64?
        /// Keys looked up while the table was not complete (``wantsFilling(keysWanted:keysHeld:)``).
        var wantedWhileIncomplete = 0
        /// A bit per bucket that has lost a hint (evicted at the maximum, or a number past
        /// 32 bits not noted): its absent keys are not known absent.
        private var lossyBuckets: [UInt64]

        init(slotCount: Int, maximumSlots: Int) {
            self.maximumSlots = maximumSlots
            self.slotCount = slotCount
            (ways, bucketShift) = Self.shape(slotCount)
            slots = Self.allocate(slotCount)
            lossyBuckets = Self.bitmap(buckets: slotCount / ways)
        }

        private static func bitmap(buckets: Int) -> [UInt64] {
            [UInt64](repeating: 0, count: (buckets + 63) / 64)
        }

        private static func shape(_ slotCount: Int) -> (ways: Int, bucketShift: UInt64) {
            let ways = min(KeyHints.bucketSlots, slotCount)
            return (ways, UInt64(32 - (slotCount / ways).trailingZeroBitCount))
        }

        deinit { slots.deallocate() }

        private static func allocate(_ count: Int) -> UnsafeMutablePointer<Slot> {
            let raw = UnsafeMutableRawPointer.allocate(
                byteCount: count * MemoryLayout<Slot>.stride, alignment: KeyHints.bucketSlots * MemoryLayout<Slot>.stride
            )
            raw.initializeMemory(as: Slot.self, repeating: 0, count: count)
            return raw.assumingMemoryBound(to: Slot.self)
        }

        /// The key's hash, top 32 bits: Fibonacci hashing spreads consecutive keys over
        /// the whole table, and a bucket is the hash's top bits.
        static func tag(of key: Int64) -> UInt64 {
            (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 32
        }

        /// The first slot of the bucket for `tag`.
        private func bucket(ofTag tag: UInt64) -> Int {
            Int(truncatingIfNeeded: tag >> bucketShift) &* ways
        }

        mutating func note(_ key: Int64, _ number: Int64) {
            guard number > 0 else { return }
            let tag = Self.tag(of: key)
            guard let number = UInt32(exactly: number) else {
                markLossy(bucket(ofTag: tag))
                return
            }
            while place(forTag: tag) == nil, slotCount < maximumSlots { grow() }
            insert(tag << 32 | UInt64(number))
            notedSinceGrowth += 1
            if notedSinceGrowth > slotCount / 2, slotCount < maximumSlots { grow() }
        }

        /// The slot of `tag`'s bucket that a hint for it takes without evicting another
        /// key's: its earlier hint's, else the first empty one; nil when the bucket is full.
        private func place(forTag tag: UInt64) -> Int? {
            let first = bucket(ofTag: tag)
            for index in first..<first + ways where slots[index] == 0 || slots[index] >> 32 == tag { return index }
            return nil
        }

        /// Puts `slot` at its bucket's front: in place of the key's earlier hint, else of
        /// the bucket's oldest (marking the bucket lossy).
        private mutating func insert(_ slot: Slot) {
            let first = bucket(ofTag: slot >> 32)
            let place: Int
            if let free = self.place(forTag: slot >> 32) {
                place = free
            } else {
                place = first + ways - 1
                markLossy(first)
            }
            var index = place
            while index > first {
                slots[index] = slots[index - 1]
                index -= 1
            }
            slots[first] = slot
        }

        private mutating func markLossy(_ firstSlot: Int) {
            let bucket = firstSlot / ways
            lossyBuckets[bucket / 64] |= 1 << UInt64(bucket % 64)
        }

        private func isLossy(_ firstSlot: Int) -> Bool {
            Self.isSet(firstSlot / ways, in: lossyBuckets)
        }

        private static func isSet(_ bucket: Int, in bitmap: [UInt64]) -> Bool {
            bitmap[bucket / 64] & 1 << UInt64(bucket % 64) != 0
        }

        /// Whether the table holds every key of a snapshot of `transaction`.
        func isComplete(asOf transaction: UInt64) -> Bool {
            completeSince.map { $0 <= transaction } ?? false
        }

        /// What the table knows of `key`, its completeness aside.
        func presence(of key: Int64) -> KeyHints.Presence {
            let tag = Self.tag(of: key)
            let first = bucket(ofTag: tag)
            for index in first..<first + ways {
                let slot = slots[index]
                if slot == 0 { break }
                if slot >> 32 == tag { return .candidate(Int64(slot & 0xFFFF_FFFF)) }
            }
            return isLossy(first) ? .unknown : .absent
        }

        /// Asks the CPU for `key`'s bucket ahead of its probe.
        func prefetch(_ key: Int64) {
            mr_prefetch(slots + bucket(ofTag: Self.tag(of: key)))
        }

        func number(for key: Int64) -> Int64? {
            let tag = Self.tag(of: key)
            let first = bucket(ofTag: tag)
            // A bucket's empty slots come after its hints.
            for index in first..<first + ways {
                let slot = slots[index]
                if slot == 0 { return nil }
                if slot >> 32 == tag { return Int64(slot & 0xFFFF_FFFF) }
            }
            return nil
        }

        /// Twice the slots: each bucket splits in two, its hints keeping their order, and
        /// a lossy bucket's halves stay lossy.
        private mutating func grow() {
            let (old, oldCount, oldWays, oldShift, oldLossy) = (slots, slotCount, ways, bucketShift, lossyBuckets)
            slotCount *= 2
            (ways, bucketShift) = Self.shape(slotCount)
            slots = Self.allocate(slotCount)
            lossyBuckets = Self.bitmap(buckets: slotCount / ways)
            if oldLossy.contains(where: { $0 != 0 }) {
                for bucket in 0..<slotCount / ways {
                    let parent = bucket >> Int(oldShift - bucketShift)
                    if Self.isSet(parent, in: oldLossy) { markLossy(bucket * ways) }
                }
            }
            // Oldest first, each to its new bucket's front: the newest end up first again.
            for first in stride(from: 0, to: oldCount, by: oldWays) {
                for index in (first..<first + oldWays).reversed() where old[index] != 0 { insert(old[index]) }
            }
            old.deallocate()
            notedSinceGrowth = 0
        }
    }

    private let table: Mutex<Table>

    /// `maximumSlots`: a power of two up to 2^32, the most the table grows to.
    init(maximumSlots: Int = KeyHints.defaultMaximumSlots) {
        precondition(maximumSlots > 0 && maximumSlots & (maximumSlots - 1) == 0 && maximumSlots <= 1 << 32, "maximumSlots must be a power of two up to 2^32")
        table = Mutex(Table(slotCount: min(maximumSlots, Self.initialSlots), maximumSlots: maximumSlots))
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

    /// What the table says of a key's object.
    enum Presence: Equatable {
        /// No object has the key.
        case absent
        /// The object last noted with the key's hash: it has the key if its record, read
        /// in the same snapshot, holds it.
        case candidate(Int64)
        /// Not known: look in the key index.
        case unknown
    }

    /// The table has been told every key of the entity as of `transaction`: the entity's
    /// key index held none then, or every entry it held has been noted.
    func markComplete(asOf transaction: UInt64) {
        table.withLock { table in
            table.completeSince = min(table.completeSince ?? transaction, transaction)
        }
    }

    /// Whether a look-up of `keysWanted` keys should fill the table from an index holding
    /// `keysHeld`, so that the table answers from then on: once the keys looked up while
    /// it could not answer reach half of those held (reading an entry into the table costs
    /// about what searching the index for a key does), and if the table has room for them.
    func wantsFilling(keysWanted: Int, keysHeld: Int) -> Bool {
        table.withLock { table in
            table.wantedWhileIncomplete += keysWanted
            return keysHeld <= table.maximumSlots / 2 && table.wantedWhileIncomplete * 2 >= keysHeld
        }
    }

    /// Whether the table answers for absent keys in a snapshot of `transaction`.
    func isComplete(asOf transaction: UInt64) -> Bool {
        table.withLock { table in table.isComplete(asOf: transaction) }
    }

    /// What the table says of each key of `keys` in a snapshot of `transaction`, handed to
    /// `body` with the key's index, under one lock: all `unknown` unless the table is
    /// complete as of the snapshot. Each key's bucket is asked for a few keys ahead of its
    /// probe, so that the misses of a table out of the cache overlap.
    func presence(of keys: [Int64], asOf transaction: UInt64, _ body: (Int, Presence) -> Void) {
        table.withLock { table in
            guard table.isComplete(asOf: transaction) else {
                for index in keys.indices { body(index, .unknown) }
                return
            }
            let ahead = Self.probesAhead
            for index in keys.indices.prefix(ahead) { table.prefetch(keys[index]) }
            for index in keys.indices {
                if index + ahead < keys.count { table.prefetch(keys[index + ahead]) }
                body(index, table.presence(of: keys[index]))
            }
        }
    }

    /// What the table says of `key` in a snapshot of `transaction`: `unknown` unless the
    /// table is complete as of the snapshot. A hint or an absence handed out counts as
    /// answered.
    func presence(of key: Int64, asOf transaction: UInt64) -> Presence {
        table.withLock { table in
            guard table.isComplete(asOf: transaction) else {
                guard let number = table.number(for: key) else { return .unknown }
                table.answered += 1
                return .candidate(number)
            }
            let presence = table.presence(of: key)
            if presence != .unknown { table.answered += 1 }
            return presence
        }
    }

    /// How many keys ahead of its probe ``presence(of:asOf:_:)`` and ``note(_:)`` ask for a bucket.
    private static let probesAhead = 16

    /// Notes that object `number` has `key`.
    func note(key: Int64, number: Int64) {
        guard number > 0 else { return }
        table.withLock { $0.note(key, number) }
    }

    /// Notes each pair of `hints`, under one lock, each key's bucket asked for a few keys
    /// ahead as ``presence(of:asOf:_:)`` does: a commit notes every key it writes, in no
    /// order the table's buckets follow.
    func note(_ hints: [(key: Int64, number: Int64)]) {
        guard !hints.isEmpty else { return }
        table.withLock { table in
            let ahead = Self.probesAhead
            for index in hints.indices.prefix(ahead) { table.prefetch(hints[index].key) }
            for index in hints.indices {
                // A growth meanwhile makes a prefetch useless, not wrong.
                if index + ahead < hints.count { table.prefetch(hints[index + ahead].key) }
                if hints[index].number > 0 { table.note(hints[index].key, hints[index].number) }
            }
        }
    }

    /// How many hints (and absences) were handed out (for tests).
    var answeredCount: Int { table.withLock { $0.answered } }

    /// Slots the table has now (for tests).
    var slotCount: Int { table.withLock { $0.slotCount } }
}
