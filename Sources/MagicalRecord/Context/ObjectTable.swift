/// Something a context registers under its object id.
protocol ObjectIdentified: AnyObject {
    var objectID: ObjectID { get }
}

extension ManagedObject: ObjectIdentified {}

/// A context's registered objects, found by id: open addressing on the id's number, with
/// linear probing at most half full.
///
/// A point get looks its id up and registers the object it makes, and the objects a loop
/// of gets drops are swept out later: through a `Dictionary`, hashing the id (SipHash) on
/// each of those steps, and deleting each dead entry one by one, cost a twentieth of a
/// get. Here an id's place is one multiplication, and a sweep takes the dead out in place.
struct ObjectTable<Object: ObjectIdentified> {
    private var slots: [Object?]
    /// 64 minus the bits of the capacity: a home slot is the top bits of the hashed number.
    private var shift: UInt64
    private(set) var count = 0

    init() {
        self.init(capacity: Self.minimumCapacity)
    }

    private init(capacity: Int) {
        slots = Array(repeating: nil, count: capacity)
        shift = UInt64(UInt64.bitWidth - capacity.trailingZeroBitCount)
    }

    private static var minimumCapacity: Int { 16 }

    var isEmpty: Bool { count == 0 }

    /// The object registered for `id`, if any.
    subscript(id: ObjectID) -> Object? {
        guard case (let index, true) = place(of: id) else { return nil }
        return slots[index]
    }

    /// The object registered for `id` when something besides this table holds it.
    mutating func referencedObject(for id: ObjectID) -> Object? {
        guard case (let index, true) = place(of: id), !isKnownUniquelyReferenced(&slots[index]) else { return nil }
        return slots[index]
    }

    /// Registers `object`, in place of one registered for the same id.
    mutating func insert(_ object: Object) {
        let (index, found) = place(of: object.objectID)
        slots[index] = object
        if found { return }
        count += 1
        if count * 2 > slots.count { rehash(capacity: slots.count * 2) }
    }

    /// Takes the object registered for `id` out of the table.
    @discardableResult
    mutating func remove(_ id: ObjectID) -> Object? {
        guard case (let index, true) = place(of: id) else { return nil }
        return remove(at: index)
    }

    /// Lets go of every object only this table holds, in place: a sweep into a fresh
    /// table allocated one every few point gets (a loop of gets sweeps often).
    mutating func removeUnreferenced() {
        var index = 0
        while index < slots.count {
            if isKnownUniquelyReferenced(&slots[index]) {
                // A later entry may have moved back into this slot: looked at again. No
                // entry moves forward, so none is passed over.
                remove(at: index)
            } else {
                index += 1
            }
        }
    }

    /// Takes the entry at `index` out of the table.
    @discardableResult
    private mutating func remove(at index: Int) -> Object? {
        var hole = index
        let removed = slots[hole].take()
        count -= 1
        // Backward shift: an entry after the hole moves into it unless its home lies
        // cyclically in (hole, its place], so every entry stays reachable from its home
        // without tombstones.
        let mask = slots.count - 1
        var next = (hole + 1) & mask
        while let entry = slots[next] {
            let home = self.home(of: entry.objectID)
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next].take()
                hole = next
            }
            next = (next + 1) & mask
        }
        return removed
    }

    /// Gives back memory when `entries` fit in a quarter of the table or less (a table
    /// that grew for many live objects and now holds few).
    mutating func shrink(toHold entries: Int) {
        var capacity = Self.minimumCapacity
        while capacity < max(entries, count) * 2 { capacity *= 2 }
        if capacity * 4 <= slots.count { rehash(capacity: capacity) }
    }

    mutating func removeAll() {
        self = ObjectTable()
    }

    /// Every registered object, in no particular order.
    var objects: [Object] { slots.compactMap { $0 } }

    /// Moves every entry into a table of `capacity` slots.
    private mutating func rehash(capacity: Int) {
        var rebuilt = ObjectTable(capacity: capacity)
        for index in slots.indices {
            if let object = slots[index].take() { rebuilt.insertNew(object) }
        }
        self = rebuilt
    }

    /// Adds an object whose id is not in the table, with room to spare.
    private mutating func insertNew(_ object: Object) {
        let mask = slots.count - 1
        var index = home(of: object.objectID)
        while slots[index] != nil { index = (index + 1) & mask }
        slots[index] = object
        count += 1
    }

    /// Where `id` is (`found`), or the empty slot where it would go.
    private func place(of id: ObjectID) -> (index: Int, found: Bool) {
        let mask = slots.count - 1
        var index = home(of: id)
        while let entry = slots[index] {
            if entry.objectID == id { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    private func home(of id: ObjectID) -> Int {
        // Fibonacci hashing: numbers are mostly consecutive, and the multiplication
        // spreads them over the top bits.
        Int(truncatingIfNeeded: (UInt64(bitPattern: id.number) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }
}
