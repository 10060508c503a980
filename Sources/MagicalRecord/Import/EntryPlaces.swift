/// Places in an import batch's entries, by object id. The objects a batch makes take their
/// numbers from the store's counter one after another, so their places are kept in an
/// array by number, written in order; the objects it finds, numbered anywhere, in a
/// dictionary. (One dictionary of both took a random write per object made, in a table
/// of tens of thousands out of the cache.)
struct EntryPlaces {
    /// The number `made` starts at: the batch's first object made.
    private var firstMade: Int64 = 0
    /// By number from `firstMade`: the place of the object made with it, or -1 (a number
    /// the store gave elsewhere meanwhile).
    private var made: [Int32] = []
    private var others: [ObjectID: Int] = [:]
    /// How many numbers given elsewhere `made` is grown over for the next object made; one
    /// further on (other writers took many meanwhile) goes to `others`.
    private static let largestGap = 4_096

    /// Room for `capacity` objects made and as many found.
    init(capacity: Int) {
        made.reserveCapacity(capacity)
        others.reserveCapacity(capacity)
    }

    subscript(id: ObjectID) -> Int? {
        if let place = madePlace(of: id) { return place }
        return others[id]
    }

    /// Notes the place of an object the batch made, its number given after every number
    /// the batch found.
    mutating func noteMade(_ id: ObjectID, at place: Int) {
        if made.isEmpty { firstMade = id.number }
        let offset = Int(truncatingIfNeeded: id.number &- firstMade)
        if offset >= made.count, offset - made.count <= Self.largestGap {
            while made.count < offset { made.append(-1) }
            made.append(Int32(place))
        } else {
            others[id] = place
        }
    }

    /// Notes the place of an object the batch found, unless it has one: then returns that.
    mutating func noteFound(_ id: ObjectID, at place: Int) -> Int? {
        if let entered = madePlace(of: id) { return entered }
        guard let entered = others.updateValue(place, forKey: id) else { return nil }
        others[id] = entered
        return entered
    }

    private func madePlace(of id: ObjectID) -> Int? {
        let offset = Int(truncatingIfNeeded: id.number &- firstMade)
        guard offset >= 0, offset < made.count, made[offset] >= 0 else { return nil }
        return Int(made[offset])
    }
}
